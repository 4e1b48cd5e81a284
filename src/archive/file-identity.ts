/**
 * The identity of an archive's on-disk state: the database file and its `-wal` (inode, size,
 * mtime in ns) plus the 32-byte WAL header (its salts change when a writer restarts the WAL).
 */
import fs from 'node:fs';

export interface FileStamp {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

export interface ArchiveIdentity {
  db: FileStamp | null;
  wal: FileStamp | null;
  /** Hex of the first 32 bytes of `-wal` ('' when absent or shorter). */
  walHeader: string;
}

export function stamp(file: string): FileStamp | null {
  try {
    // throwIfNoEntry: a missing -wal is the common case, and building the ENOENT error costs more than the stat.
    const s = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
    return s ? { ino: s.ino, size: s.size, mtimeNs: s.mtimeNs } : null;
  } catch {
    return null;
  }
}

export function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  if (a === null || b === null) return a === b;
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

export function readWalHeader(walPath: string): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(walPath, fs.constants.O_RDONLY);
    const buf = Buffer.alloc(32);
    const n = fs.readSync(fd, buf, 0, 32, 0);
    return n === 32 ? buf.toString('hex') : '';
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function readIdentity(dbPath: string): ArchiveIdentity {
  const walPath = `${dbPath}-wal`;
  const wal = stamp(walPath);
  return { db: stamp(dbPath), wal, walHeader: wal ? readWalHeader(walPath) : '' };
}

/** Quick check (no header read): did anything about the db or -wal file change? */
export function statsChanged(base: ArchiveIdentity, dbPath: string): boolean {
  return !sameStamp(base.db, stamp(dbPath)) || !sameStamp(base.wal, stamp(`${dbPath}-wal`));
}

/**
 * Could a reader that opened at `base` have read a mixture of states? True when the database file
 * changed (a checkpoint wrote pages), the `-wal` was replaced, shrank or restarted (new header).
 * Frames merely appended to `-wal` are invisible to that reader and harmless.
 */
export function mayBeTorn(base: ArchiveIdentity, dbPath: string): boolean {
  if (!sameStamp(base.db, stamp(dbPath))) return true;
  const walPath = `${dbPath}-wal`;
  const wal = stamp(walPath);
  if (sameStamp(base.wal, wal)) return false;
  if (base.wal === null) return false; // a new -wal: its frames are invisible to this reader
  if (wal === null) return true;
  // The reader opened on a WAL without a header (empty): it used no frames, only db pages.
  if (base.walHeader === '') return false;
  if (wal.ino !== base.wal.ino || wal.size < base.wal.size) return true;
  return readWalHeader(walPath) !== base.walHeader;
}

export function fingerprint(id: ArchiveIdentity): string {
  const f = (s: FileStamp | null): string => (s ? `${s.ino}:${s.size}:${s.mtimeNs}` : '-');
  return `${f(id.db)}|${f(id.wal)}`;
}
