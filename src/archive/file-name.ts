/** The archive's file name inside msgbrowse's data directory (defined here only). */
export const ARCHIVE_FILE_NAME = 'msgbrowse.sqlite';
