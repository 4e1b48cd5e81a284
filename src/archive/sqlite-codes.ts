/** The SQLite C constants the archive layer uses (https://sqlite.org/rescode.html, https://sqlite.org/c3ref/c_blob.html). */
export const SQLITE = {
  // result codes
  BUSY: 5,
  INTERRUPT: 9,
  CORRUPT: 11,
  /** An FTS5 index row whose content row is missing. */
  CORRUPT_VTAB: 267,
  SCHEMA: 17,
  NOTADB: 26,
  ROW: 100,
  DONE: 101,
  IOERR_SHORT_READ: 522,
  // fundamental datatypes (sqlite3_column_type)
  INTEGER: 1,
  FLOAT: 2,
  TEXT: 3,
  BLOB: 4,
  NULL: 5,
} as const;
