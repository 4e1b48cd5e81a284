/** Errors the archive layer raises. Messages are written for people and models: what, where, what to do. */

export type ArchiveErrorCode =
  | 'missing_path'
  | 'no_archive_selected'
  | 'no_archive_in_directory'
  | 'not_sqlite'
  | 'not_msgbrowse'
  | 'incompatible_schema'
  | 'unreadable'
  | 'corrupt'
  | 'busy'
  | 'bad_embedding'
  | 'query_failed';

export class ArchiveError extends Error {
  constructor(
    readonly code: ArchiveErrorCode,
    message: string,
    readonly path?: string,
  ) {
    super(message);
    this.name = 'ArchiveError';
  }
}
