/** Opening an archive read-only; every failure is an ArchiveError that names the path and says what to do. */
import fs from 'node:fs';
import path from 'node:path';
import { WasmArchive } from './archive';
import { ARCHIVE_FILE_NAME } from './file-name';
import { ArchiveConnection, type ConnectionOptions, toArchiveError } from './connection';
import { ArchiveError } from './errors';
import { readableSchema } from './schema';
import type { Archive } from './types';
import { loadEngine } from './wasm-engine';

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code;
}

function unreadable(file: string, e: unknown): ArchiveError {
  const code = errno(e);
  return new ArchiveError(
    'unreadable',
    `Cannot read ${file} (${code ?? (e instanceof Error ? e.message : String(e))}). Check that this user may read the file and its folder.`,
    file,
  );
}

/** The archive file of a path (the file or its data directory), checked to be a readable SQLite file. */
function resolveArchivePath(pathOrDir: string): string {
  if (typeof pathOrDir !== 'string' || pathOrDir.trim() === '') {
    throw new ArchiveError(
      'missing_path',
      'No archive path was given. Set it to the msgbrowse data directory or its msgbrowse.sqlite file.',
    );
  }
  const input = path.resolve(pathOrDir);
  let st: fs.Stats;
  try {
    st = fs.statSync(input);
  } catch (e) {
    if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') {
      throw new ArchiveError(
        'missing_path',
        `${input} does not exist. Point to the msgbrowse data directory (the folder holding ${ARCHIVE_FILE_NAME}) or to the file itself.`,
        input,
      );
    }
    throw unreadable(input, e);
  }
  let file = input;
  if (st.isDirectory()) {
    file = path.join(input, ARCHIVE_FILE_NAME);
    try {
      st = fs.statSync(file);
    } catch (e) {
      if (errno(e) === 'ENOENT') {
        throw new ArchiveError(
          'no_archive_in_directory',
          `The folder ${input} has no ${ARCHIVE_FILE_NAME}. Point to msgbrowse's data directory (its data_dir, MSGBROWSE_DATA_DIR or --data-dir; ./data by default) or to the ${ARCHIVE_FILE_NAME} file.`,
          input,
        );
      }
      throw unreadable(file, e);
    }
  }
  if (!st.isFile()) {
    throw new ArchiveError('not_sqlite', `${file} is not a regular file, so it cannot be a msgbrowse archive.`, file);
  }
  const header = Buffer.alloc(16);
  let n = 0;
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY);
    n = fs.readSync(fd, header, 0, 16, 0);
  } catch (e) {
    throw unreadable(file, e);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  if (n < 16 || !header.equals(SQLITE_HEADER)) {
    throw new ArchiveError(
      'not_sqlite',
      `${file} is not a SQLite database${n === 0 ? ' (the file is empty)' : ''}. Point to msgbrowse's ${ARCHIVE_FILE_NAME}.`,
      file,
    );
  }
  return file;
}

export async function openArchive(pathOrDir: string, options: ConnectionOptions = {}): Promise<Archive> {
  const file = resolveArchivePath(pathOrDir);
  let engine: Awaited<ReturnType<typeof loadEngine>>;
  try {
    engine = await loadEngine();
  } catch (e) {
    throw new ArchiveError(
      'query_failed',
      `Could not load the SQLite WebAssembly engine (${e instanceof Error ? e.message : String(e)}). The installation looks incomplete (sqlite3.wasm missing?); reinstall the extension.`,
      file,
    );
  }
  const conn = new ArchiveConnection(engine, file, options);
  try {
    conn.run((sql) => readableSchema(sql, file));
    return new WasmArchive(conn, file);
  } catch (e) {
    conn.close();
    throw toArchiveError(file, e);
  }
}
