/** Public API of the read-only archive layer. */
export { openArchive, resolveArchivePath, ARCHIVE_FILE_NAME, type OpenOptions } from './open';
export { inThread } from './async';
export { ArchiveError, isArchiveError, type ArchiveErrorCode } from './errors';
export { buildFtsQuery, ftsTokens } from './fts-query';
export { normalizeDomain } from './queries/links';
export { MAX_SCHEMA_VERSION } from './schema';
export * from './types';
