/** Public API of the read-only archive layer. */
export { openArchive } from './open';
export { currentStamps, fingerprint, type FileStamp, stamp } from './file-identity';
export { inThread } from './async';
export { ArchiveError, type ArchiveErrorCode } from './errors';
export { buildFtsQuery, planFtsQuery, MAX_QUERY_TOKENS } from './fts-query';
export { TESTED_SCHEMA_VERSION } from './schema';
export { nameKey, suggest as closestConversations } from './queries/conversations';
export { isWholeArchive } from './queries/scope-counts';
export * from './types';
