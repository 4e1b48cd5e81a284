/** An archive's on-disk state: the db file and its `-wal` (inode, size, mtime) and the WAL header (salts). */
import fs from 'node:fs';

export interface FileStamp {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

export interface ArchiveIdentity {
  db: FileStamp | null;
  wal: FileStamp | null;
  walHeader: string;
}

const toStamp = (s: fs.BigIntStats | undefined): FileStamp | null =>
  s ? { dev: s.dev, ino: s.ino, size: s.size, mtimeNs: s.mtimeNs } : null;

export function stamp(file: string): FileStamp | null {
  try {
    // A missing -wal is the common case, and building the ENOENT error costs more than the stat.
    return toStamp(fs.statSync(file, { bigint: true, throwIfNoEntry: false }));
  } catch {
    return null;
  }
}

function fdStamp(fd: number): FileStamp | null {
  try {
    return toStamp(fs.fstatSync(fd, { bigint: true }));
  } catch {
    return null;
  }
}

function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  if (a === null || b === null) return a === b;
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

function readWalHeader(walPath: string): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(walPath, fs.constants.O_RDONLY);
    return readHeaderFd(fd);
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function readHeaderFd(fd: number): string {
  try {
    const buf = Buffer.alloc(32);
    const n = fs.readSync(fd, buf, 0, 32, 0);
    return n === 32 ? buf.toString('hex') : '';
  } catch {
    return '';
  }
}

export function readIdentity(dbPath: string): ArchiveIdentity {
  const walPath = `${dbPath}-wal`;
  const wal = stamp(walPath);
  return { db: stamp(dbPath), wal, walHeader: wal ? readWalHeader(walPath) : '' };
}

/** Without reading the header. */
export function statsChanged(base: ArchiveIdentity, dbPath: string): boolean {
  return !sameStamp(base.db, stamp(dbPath)) || !sameStamp(base.wal, stamp(`${dbPath}-wal`));
}

/** See ReadonlyVfs.fdsOf; a number means "check this file". */
export interface ReaderFds {
  db: number | null | undefined;
  wal: number | null | undefined;
}

/**
 * Could a reader opened at `base` have read a mixture of states (db pages written, `-wal` replaced, shrunk or
 * restarted)? Appended frames are invisible to it. With `fds`, the files it holds are checked, not their paths.
 */
export function mayBeTorn(base: ArchiveIdentity, dbPath: string, fds?: ReaderFds): boolean {
  const db = typeof fds?.db === 'number' ? fdStamp(fds.db) : stamp(dbPath);
  if (!sameStamp(base.db, db)) return true;
  if (base.wal === null) return false; // a -wal created later: its frames are invisible to this reader
  const walFd = fds?.wal;
  const walPath = `${dbPath}-wal`;
  const wal = typeof walFd === 'number' ? fdStamp(walFd) : stamp(walPath);
  if (sameStamp(base.wal, wal)) return false;
  if (wal === null) return true;
  // The reader opened on a WAL without a header (empty): it used no frames, only db pages.
  if (base.walHeader === '') return false;
  if (wal.ino !== base.wal.ino || wal.size < base.wal.size) return true;
  return (typeof walFd === 'number' ? readHeaderFd(walFd) : readWalHeader(walPath)) !== base.walHeader;
}

/** The one fingerprint everything uses (summary, change detection, vector-cache keys): changes on every commit. */
export function fingerprint(id: Pick<ArchiveIdentity, 'db' | 'wal'>): string {
  const f = (s: FileStamp | null): string => (s ? `${s.ino}:${s.size}:${s.mtimeNs}` : '-');
  return `${f(id.db)}|${f(id.wal)}`;
}

/** Two stats, no reads: what {@link fingerprint} and replacement checks need. */
export function currentStamps(dbPath: string): Pick<ArchiveIdentity, 'db' | 'wal'> {
  return { db: stamp(dbPath), wal: stamp(`${dbPath}-wal`) };
}
