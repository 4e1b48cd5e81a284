/** Public API of the read-only archive layer. */
export { openArchive, resolveArchivePath } from './open';
export { ARCHIVE_FILE_NAME } from './file-name';
export { currentStamps, fingerprint, type FileStamp } from './file-identity';
export { inThread } from './async';
export { ArchiveError, isArchiveError, type ArchiveErrorCode } from './errors';
export { buildFtsQuery, ftsTokens, planFtsQuery, MAX_QUERY_TOKENS, type FtsQueryPlan } from './fts-query';
export { TESTED_SCHEMA_VERSION } from './schema';
export { looseNameKey, nameKey, suggest as closestConversations } from './queries/conversations';
export { isWholeArchive } from './queries/scope-counts';
export * from './types';
