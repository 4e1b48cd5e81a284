/**
 * A read-only SQLite VFS over node:fs for @sqlite.org/sqlite-wasm.
 *
 * - Pages are read lazily with positioned `fs.readSync` straight into the WASM heap; the archive
 *   is never loaded into memory. Offsets are 64-bit (BigInt from WASM) and work beyond 4 GiB.
 * - A connection that scans (an index build) can have its main database read ahead ({@link ReadonlyVfs.readAhead}):
 *   a read that continues the one before it, outside the file's 64 KiB buffer, refills the buffer from there on, so
 *   a sequential scan makes one read call per 16 pages instead of one per page; any other read outside the buffer
 *   reads just its own bytes (pages scattered between other tables' pages cost what they cost without it). The
 *   buffer belongs to the open file, so it lives no longer than the connection, which reopens on any change to the
 *   files (the same lifetime as SQLite's own page cache).
 * - It never creates, writes, truncates, deletes or locks a file: xWrite/xTruncate/xDelete answer
 *   SQLITE_READONLY, locks are no-ops, temp files are refused (connections use
 *   `PRAGMA temp_store=MEMORY`). A missing `-wal` is an empty file without an fd; `-shm` is never
 *   opened (io methods v1 have no xShm*), `-journal` is never created.
 * - Two registrations share the io methods and differ only in xDeviceCharacteristics:
 *   - {@link WAL_VFS} (0): with `PRAGMA locking_mode=EXCLUSIVE` issued right after open, SQLite keeps
 *     the wal-index in heap memory and reads un-checkpointed frames from `-wal`;
 *   - {@link IMMUTABLE_VFS} (SQLITE_IOCAP_IMMUTABLE): no locks, `-wal` ignored (checkpointed data only).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm';

export const WAL_VFS = 'msgbrowse-ro';
export const IMMUTABLE_VFS = 'msgbrowse-ro-immutable';

const SECTOR_SIZE = 4096;
/** The read-ahead buffer of a scanning connection's main database (64 KiB: 16 pages of 4 KiB; larger was slower). */
export const READ_AHEAD_BYTES = 64 << 10;
const MX_PATHNAME = 1024;

interface OpenFile {
  path: string;
  /** null: a `-wal` that does not exist, read as an empty file. */
  fd: number | null;
  immutable: boolean;
  /**
   * Read-ahead (main database of a scanning connection): `buf[0, len)` holds the file's bytes from `pos`; `next` is
   * where the last read ended (a read starting there continues a sequential scan).
   */
  ahead?: { buf: Uint8Array; pos: number; len: number; next: number };
}

export interface ReadonlyVfs {
  readonly walName: string;
  readonly immutableName: string;
  /** Number of files the VFS currently holds open (for leak checks in tests). */
  openFiles(): number;
  /** Paths of currently open files. */
  openPaths(): string[];
  /**
   * Self-test of the I/O path: open `file` through xOpen as a main db, xRead `n` bytes at the
   * 64-bit `offset` into the WASM heap, xClose. Returns the bytes and the SQLite result code.
   */
  probeRead(file: string, offset: bigint, n: number): { rc: number; bytes: Uint8Array };
  /**
   * The same through a read-ahead file: each read of `reads` in turn (offset, length) on one open file, as a scanning
   * connection's main database; returns each read's code and bytes, and how many read calls reached the file.
   */
  probeReadAhead(
    file: string,
    reads: [offset: number, n: number][],
  ): { results: { rc: number; bytes: Uint8Array }[]; fileReads: number };
  /** Whether the main database of the connection at `dbPointer` is read ahead. */
  readsAhead(dbPointer: number): boolean;
  /**
   * The fds this VFS holds for a connection's main database and its `-wal` (null: a `-wal` that did
   * not exist when SQLite opened it; undefined: not opened through this VFS, e.g. no WAL in use).
   */
  fdsOf(dbPointer: number): { db: number | null | undefined; wal: number | null | undefined };
  /**
   * Reads the main database of the connection at `dbPointer` ahead, {@link READ_AHEAD_BYTES} at a time, from now
   * until it closes: for a connection that scans, never for one answering queries (their reads are scattered).
   */
  readAhead(dbPointer: number): void;
}

/* The sqlite-wasm typings of the struct/wasm helpers are loose; this is the narrow surface we use. */
interface Struct {
  pointer: number;
  $iVersion: number;
  $szOsFile: number;
  $mxPathname: number;
  $zName: number;
  $xRandomness: number;
  $xSleep: number;
  $xCurrentTime: number;
  $xCurrentTimeInt64: number;
  $xGetLastError: number;
  $pMethods: number;
  addOnDispose(...x: unknown[]): void;
  dispose(): void;
}
interface StructCtor {
  new (ptr?: number): Struct;
  structInfo: { sizeof: number };
}
interface Wasm {
  heap8u(): Uint8Array;
  peek32(p: number): number;
  exports: { sqlite3_file_control(db: number, zDbName: number, op: number, pArg: number): number };
  poke32(p: number, v: number): unknown;
  poke64(p: number, v: bigint): unknown;
  cstrToJs(p: number): string | null;
  allocCString(s: string): number;
  alloc(n: number): number;
  dealloc(p: number): void;
}
type Capi = Record<string, number> & {
  sqlite3_vfs: StructCtor;
  sqlite3_io_methods: StructCtor;
  sqlite3_file: StructCtor;
  sqlite3_vfs_find(name: string | null): number;
};

/** Read calls that reached a file (probeReadAhead reports them). */
let fileReads = 0;

/** Reads `n` bytes at `pos` into `into[at…]`, fewer only at the end of the file; returns the bytes read. */
function readFully(fd: number, into: Uint8Array, n: number, pos: number, at = 0): number {
  let got = 0;
  while (got < n) {
    fileReads++;
    const r = fs.readSync(fd, into, at + got, n - got, pos + got);
    if (r <= 0) break;
    got += r;
  }
  return got;
}

let installed: ReadonlyVfs | undefined;

export function installReadonlyVfs(sqlite3: Sqlite3Static): ReadonlyVfs {
  if (installed) return installed;
  const capi = sqlite3.capi as unknown as Capi;
  const wasm = sqlite3.wasm as unknown as Wasm;
  const vfsApi = (sqlite3 as unknown as { vfs: { installVfs(o: unknown): unknown } }).vfs;
  const files = new Map<number, OpenFile>();
  const immutablePtrs = new Set<number>();

  const {
    SQLITE_OK,
    SQLITE_READONLY,
    SQLITE_CANTOPEN,
    SQLITE_IOERR_READ,
    SQLITE_IOERR_SHORT_READ,
    SQLITE_IOERR_FSTAT,
    SQLITE_NOTFOUND,
    SQLITE_OPEN_MAIN_DB,
    SQLITE_OPEN_WAL,
    SQLITE_OPEN_MAIN_JOURNAL,
    SQLITE_OPEN_READONLY,
    SQLITE_IOCAP_IMMUTABLE,
    SQLITE_ACCESS_EXISTS,
    SQLITE_ACCESS_READ,
  } = capi;

  const ioMethods = new capi.sqlite3_io_methods();
  ioMethods.$iVersion = 1;

  const io = {
    xClose(pFile: number): number {
      const f = files.get(pFile);
      files.delete(pFile);
      if (f?.fd != null) {
        try {
          fs.closeSync(f.fd);
        } catch {
          /* already closed */
        }
      }
      return SQLITE_OK;
    },
    xRead(pFile: number, pDest: number, n: number, offset64: bigint | number): number {
      const f = files.get(pFile);
      if (!f) return SQLITE_IOERR_READ;
      const dest = Number(pDest);
      const heap = wasm.heap8u();
      let got = 0;
      if (f.fd != null) {
        const pos = Number(offset64);
        const ahead = f.ahead;
        try {
          const buffered = (): boolean => ahead !== undefined && pos >= ahead.pos && pos + n <= ahead.pos + ahead.len;
          if (ahead && !buffered() && pos === ahead.next && n <= ahead.buf.length) {
            ahead.len = 0; // (empty should the read below throw)
            ahead.pos = pos;
            ahead.len = readFully(f.fd, ahead.buf, ahead.buf.length, pos);
          }
          if (ahead && buffered()) {
            heap.set(ahead.buf.subarray(pos - ahead.pos, pos - ahead.pos + n), dest);
            got = n;
          } else {
            got = readFully(f.fd, heap, n, pos, dest);
          }
          if (ahead) ahead.next = pos + n;
        } catch {
          return SQLITE_IOERR_READ;
        }
      }
      if (got < n) {
        heap.fill(0, dest + got, dest + n);
        return SQLITE_IOERR_SHORT_READ;
      }
      return SQLITE_OK;
    },
    xWrite(): number {
      return SQLITE_READONLY;
    },
    xTruncate(): number {
      return SQLITE_READONLY;
    },
    xSync(): number {
      return SQLITE_OK;
    },
    xFileSize(pFile: number, pSz64: number): number {
      const f = files.get(pFile);
      if (!f) return SQLITE_IOERR_FSTAT;
      let size = 0;
      if (f.fd != null) {
        try {
          size = fs.fstatSync(f.fd).size;
        } catch {
          return SQLITE_IOERR_FSTAT;
        }
      }
      wasm.poke64(pSz64, BigInt(size));
      return SQLITE_OK;
    },
    xLock(): number {
      return SQLITE_OK;
    },
    xUnlock(): number {
      return SQLITE_OK;
    },
    xCheckReservedLock(_pFile: number, pOut: number): number {
      wasm.poke32(pOut, 0);
      return SQLITE_OK;
    },
    xFileControl(): number {
      return SQLITE_NOTFOUND;
    },
    xSectorSize(): number {
      return SECTOR_SIZE;
    },
    xDeviceCharacteristics(pFile: number): number {
      return files.get(pFile)?.immutable ? SQLITE_IOCAP_IMMUTABLE : 0;
    },
  };
  vfsApi.installVfs({ io: { struct: ioMethods, methods: io } });

  const encoder = new TextEncoder();

  const vfsMethods = {
    xOpen(pVfs: number, zName: number, pFile: number, flags: number, pOutFlags: number): number {
      // Temp files (zName NULL) and anything but the main db, its -wal or an existing -journal are refused.
      if (!zName) return SQLITE_CANTOPEN;
      const name = wasm.cstrToJs(zName);
      if (!name) return SQLITE_CANTOPEN;
      const isWal = (flags & SQLITE_OPEN_WAL) !== 0;
      const isMain = (flags & SQLITE_OPEN_MAIN_DB) !== 0;
      const isJournal = (flags & SQLITE_OPEN_MAIN_JOURNAL) !== 0;
      if (!isWal && !isMain && !isJournal) return SQLITE_CANTOPEN;
      let fd: number | null = null;
      try {
        fd = fs.openSync(name, fs.constants.O_RDONLY);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (!(isWal && code === 'ENOENT')) return SQLITE_CANTOPEN;
      }
      const file = new capi.sqlite3_file(pFile);
      file.$pMethods = ioMethods.pointer;
      file.dispose();
      files.set(pFile, { path: name, fd, immutable: immutablePtrs.has(Number(pVfs)) });
      if (pOutFlags) wasm.poke32(pOutFlags, SQLITE_OPEN_READONLY);
      return SQLITE_OK;
    },
    xDelete(): number {
      return SQLITE_READONLY;
    },
    xAccess(_pVfs: number, zName: number, flags: number, pOut: number): number {
      let ok = 0;
      const name = wasm.cstrToJs(zName);
      if (name && (flags === SQLITE_ACCESS_EXISTS || flags === SQLITE_ACCESS_READ)) {
        try {
          fs.accessSync(name, flags === SQLITE_ACCESS_READ ? fs.constants.R_OK : fs.constants.F_OK);
          ok = 1;
        } catch {
          ok = 0;
        }
      }
      // SQLITE_ACCESS_READWRITE: never (nothing here is writable).
      wasm.poke32(pOut, ok);
      return SQLITE_OK;
    },
    xFullPathname(_pVfs: number, zName: number, nOut: number, pOut: number): number {
      const name = wasm.cstrToJs(zName);
      if (name == null) return SQLITE_CANTOPEN;
      const bytes = encoder.encode(path.resolve(name));
      if (bytes.length + 1 > nOut) return SQLITE_CANTOPEN;
      const heap = wasm.heap8u();
      heap.set(bytes, Number(pOut));
      heap[Number(pOut) + bytes.length] = 0;
      return SQLITE_OK;
    },
  };

  const defaultVfs = new capi.sqlite3_vfs(capi.sqlite3_vfs_find(null));
  const make = (name: string, immutable: boolean): void => {
    const v = new capi.sqlite3_vfs();
    v.$iVersion = 2;
    v.$szOsFile = capi.sqlite3_file.structInfo.sizeof;
    v.$mxPathname = MX_PATHNAME;
    v.$zName = wasm.allocCString(name);
    v.$xRandomness = defaultVfs.$xRandomness;
    v.$xSleep = defaultVfs.$xSleep;
    v.$xCurrentTime = defaultVfs.$xCurrentTime;
    v.$xCurrentTimeInt64 = defaultVfs.$xCurrentTimeInt64;
    v.$xGetLastError = defaultVfs.$xGetLastError;
    if (immutable) immutablePtrs.add(Number(v.pointer));
    vfsApi.installVfs({ vfs: { struct: v, methods: vfsMethods } });
  };
  make(WAL_VFS, false);
  make(IMMUTABLE_VFS, true);
  defaultVfs.dispose();

  const walVfsPtr = capi.sqlite3_vfs_find(WAL_VFS);
  /**
   * Opens `file` through xOpen as a main db with a `bufBytes` buffer in the WASM heap, hands both to `use`, then
   * closes and frees them; an open that fails gives `failed(rc)`.
   */
  const probeFile = <T>(
    file: string,
    bufBytes: number,
    use: (pFile: number, pBuf: number) => T,
    failed: (rc: number) => T,
  ): T => {
    const pFile = wasm.alloc(capi.sqlite3_file.structInfo.sizeof);
    const zName = wasm.allocCString(file);
    const pOut = wasm.alloc(8);
    const pBuf = wasm.alloc(Math.max(1, bufBytes));
    try {
      const orc = vfsMethods.xOpen(walVfsPtr, zName, pFile, SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_READONLY, pOut);
      if (orc !== SQLITE_OK) return failed(orc);
      try {
        return use(pFile, pBuf);
      } finally {
        io.xClose(pFile);
      }
    } finally {
      for (const p of [pFile, zName, pOut, pBuf]) wasm.dealloc(p);
    }
  };
  const readInto = (pFile: number, pBuf: number, offset: bigint, n: number): { rc: number; bytes: Uint8Array } => {
    const rc = io.xRead(pFile, pBuf, n, offset);
    return { rc, bytes: wasm.heap8u().slice(pBuf, pBuf + n) };
  };
  const probeRead = (file: string, offset: bigint, n: number): { rc: number; bytes: Uint8Array } =>
    probeFile(
      file,
      n,
      (pFile, pBuf) => readInto(pFile, pBuf, offset, n),
      (rc) => ({ rc, bytes: new Uint8Array(0) }),
    );
  const probeReadAhead = (
    file: string,
    reads: [number, number][],
  ): { results: { rc: number; bytes: Uint8Array }[]; fileReads: number } =>
    probeFile(
      file,
      Math.max(0, ...reads.map(([, n]) => n)),
      (pFile, pBuf) => {
        files.get(pFile)!.ahead = { buf: new Uint8Array(READ_AHEAD_BYTES), pos: 0, len: 0, next: -1 };
        const before = fileReads;
        const results = reads.map(([offset, n]) => readInto(pFile, pBuf, BigInt(offset), n));
        return { results, fileReads: fileReads - before };
      },
      (rc) => {
        throw new Error(`probeReadAhead: xOpen failed (${rc})`);
      },
    );

  const SQLITE_FCNTL_FILE_POINTER = 7;
  const SQLITE_FCNTL_JOURNAL_POINTER = 28;
  /** The open file SQLite holds for the connection at `dbPointer` under `op` (it answers the file control itself). */
  const openFileOf = (dbPointer: number, op: number): OpenFile | undefined => {
    const pOut = wasm.alloc(8);
    try {
      wasm.poke32(pOut, 0);
      // zDbName NULL = "main".
      if (wasm.exports.sqlite3_file_control(dbPointer, 0, op, pOut) !== SQLITE_OK) return undefined;
      return files.get(wasm.peek32(pOut));
    } finally {
      wasm.dealloc(pOut);
    }
  };
  const fdsOf = (dbPointer: number): { db: number | null | undefined; wal: number | null | undefined } => ({
    db: openFileOf(dbPointer, SQLITE_FCNTL_FILE_POINTER)?.fd,
    wal: openFileOf(dbPointer, SQLITE_FCNTL_JOURNAL_POINTER)?.fd,
  });
  const mainFileOf = (dbPointer: number): OpenFile | undefined => openFileOf(dbPointer, SQLITE_FCNTL_FILE_POINTER);
  const readAhead = (dbPointer: number): void => {
    const f = mainFileOf(dbPointer);
    if (f && f.fd != null) f.ahead ??= { buf: new Uint8Array(READ_AHEAD_BYTES), pos: 0, len: 0, next: -1 };
  };

  installed = {
    probeRead,
    fdsOf,
    readAhead,
    readsAhead: (dbPointer: number) => mainFileOf(dbPointer)?.ahead !== undefined,
    probeReadAhead,
    walName: WAL_VFS,
    immutableName: IMMUTABLE_VFS,
    openFiles: () => files.size,
    openPaths: () => [...files.values()].map((f) => f.path),
  };
  return installed;
}
