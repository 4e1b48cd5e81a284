/** A read-only SQLite VFS over node:fs for sqlite-wasm: it never creates, writes, truncates, deletes or locks files. */
import fs from 'node:fs';
import path from 'node:path';
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm';

/** With `PRAGMA locking_mode=EXCLUSIVE` right after open, SQLite keeps the wal-index in heap and reads `-wal`. */
const WAL_VFS = 'msgbrowse-ro';
/** SQLITE_IOCAP_IMMUTABLE: no locks, `-wal` ignored (checkpointed data only). */
const IMMUTABLE_VFS = 'msgbrowse-ro-immutable';

const SECTOR_SIZE = 4096;
/** The read-ahead buffer of a scanning connection's main database (larger was slower). */
const READ_AHEAD_BYTES = 64 << 10;
const MX_PATHNAME = 1024;
const SQLITE_FCNTL_FILE_POINTER = 7;
const SQLITE_FCNTL_JOURNAL_POINTER = 28;

interface OpenFile {
  /** null: a `-wal` that does not exist, read as an empty file. */
  fd: number | null;
  immutable: boolean;
  /** `buf[0, len)` holds the file's bytes from `pos`; a read starting at `next` continues a sequential scan. */
  ahead?: { buf: Uint8Array; pos: number; len: number; next: number };
}

export interface ReadonlyVfs {
  readonly walName: string;
  readonly immutableName: string;
  /** null: a `-wal` that did not exist when SQLite opened it; undefined: not opened through this VFS. */
  fdsOf(dbPointer: number): { db: number | null | undefined; wal: number | null | undefined };
  /** Reads the main database ahead until it closes: for a connection that scans (queries read scattered pages). */
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
type VfsApi = { installVfs(o: unknown): unknown };
type Files = Map<number, OpenFile>;
type VfsMethods = ReturnType<typeof vfsMethodsFor>;

/** Reads `n` bytes at `pos` into `into[at…]`, fewer only at the end of the file; returns the bytes read. */
function readFully(fd: number, into: Uint8Array, n: number, pos: number, at = 0): number {
  let got = 0;
  while (got < n) {
    const r = fs.readSync(fd, into, at + got, n - got, pos + got);
    if (r <= 0) break;
    got += r;
  }
  return got;
}

/** A read that continues the one before it, outside the buffer, refills the buffer; any other reads just its bytes. */
function readAt(f: OpenFile & { fd: number }, heap: Uint8Array, dest: number, n: number, pos: number): number {
  const ahead = f.ahead;
  if (!ahead) return readFully(f.fd, heap, n, pos, dest);
  const buffered = (): boolean => pos >= ahead.pos && pos + n <= ahead.pos + ahead.len;
  if (!buffered() && pos === ahead.next && n <= ahead.buf.length) {
    ahead.len = 0; // empty should the read below throw
    ahead.pos = pos;
    ahead.len = readFully(f.fd, ahead.buf, ahead.buf.length, pos);
  }
  let got: number;
  if (buffered()) {
    heap.set(ahead.buf.subarray(pos - ahead.pos, pos - ahead.pos + n), dest);
    got = n;
  } else {
    got = readFully(f.fd, heap, n, pos, dest);
  }
  ahead.next = pos + n;
  return got;
}

function ioMethodsFor(capi: Capi, wasm: Wasm, files: Files) {
  const { SQLITE_OK, SQLITE_READONLY, SQLITE_IOERR_READ, SQLITE_IOERR_SHORT_READ, SQLITE_IOERR_FSTAT } = capi;
  return {
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
        try {
          got = readAt(f as OpenFile & { fd: number }, heap, dest, n, Number(offset64));
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
    xWrite: (): number => SQLITE_READONLY,
    xTruncate: (): number => SQLITE_READONLY,
    xSync: (): number => SQLITE_OK,
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
    xLock: (): number => SQLITE_OK,
    xUnlock: (): number => SQLITE_OK,
    xCheckReservedLock(_pFile: number, pOut: number): number {
      wasm.poke32(pOut, 0);
      return SQLITE_OK;
    },
    xFileControl: (): number => capi.SQLITE_NOTFOUND,
    xSectorSize: (): number => SECTOR_SIZE,
    xDeviceCharacteristics: (pFile: number): number => (files.get(pFile)?.immutable ? capi.SQLITE_IOCAP_IMMUTABLE : 0),
  };
}

function vfsMethodsFor(capi: Capi, wasm: Wasm, files: Files, immutablePtrs: Set<number>, ioMethods: Struct) {
  const { SQLITE_OK, SQLITE_CANTOPEN, SQLITE_ACCESS_EXISTS, SQLITE_ACCESS_READ } = capi;
  const encoder = new TextEncoder();
  return {
    xOpen(pVfs: number, zName: number, pFile: number, flags: number, pOutFlags: number): number {
      // Temp files (zName NULL) and anything but the main db, its -wal or an existing -journal are refused.
      if (!zName) return SQLITE_CANTOPEN;
      const name = wasm.cstrToJs(zName);
      if (!name) return SQLITE_CANTOPEN;
      const isWal = (flags & capi.SQLITE_OPEN_WAL) !== 0;
      if (!isWal && (flags & (capi.SQLITE_OPEN_MAIN_DB | capi.SQLITE_OPEN_MAIN_JOURNAL)) === 0) return SQLITE_CANTOPEN;
      let fd: number | null = null;
      try {
        fd = fs.openSync(name, fs.constants.O_RDONLY);
      } catch (e) {
        if (!(isWal && (e as NodeJS.ErrnoException).code === 'ENOENT')) return SQLITE_CANTOPEN;
      }
      const file = new capi.sqlite3_file(pFile);
      file.$pMethods = ioMethods.pointer;
      file.dispose();
      files.set(pFile, { fd, immutable: immutablePtrs.has(Number(pVfs)) });
      if (pOutFlags) wasm.poke32(pOutFlags, capi.SQLITE_OPEN_READONLY);
      return SQLITE_OK;
    },
    xDelete: (): number => capi.SQLITE_READONLY,
    xAccess(_pVfs: number, zName: number, flags: number, pOut: number): number {
      let ok = 0;
      const name = wasm.cstrToJs(zName);
      // SQLITE_ACCESS_READWRITE: never.
      if (name && (flags === SQLITE_ACCESS_EXISTS || flags === SQLITE_ACCESS_READ)) {
        try {
          fs.accessSync(name, flags === SQLITE_ACCESS_READ ? fs.constants.R_OK : fs.constants.F_OK);
          ok = 1;
        } catch {
          ok = 0;
        }
      }
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
}

/** Registers WAL_VFS and IMMUTABLE_VFS: the same methods, borrowing time and randomness from the default VFS. */
function registerVfs(capi: Capi, wasm: Wasm, vfsApi: VfsApi, methods: VfsMethods, immutablePtrs: Set<number>): void {
  const defaultVfs = new capi.sqlite3_vfs(capi.sqlite3_vfs_find(null));
  for (const [name, immutable] of [
    [WAL_VFS, false],
    [IMMUTABLE_VFS, true],
  ] as const) {
    const v = new capi.sqlite3_vfs();
    v.$iVersion = 2;
    v.$szOsFile = capi.sqlite3_file.structInfo.sizeof;
    v.$mxPathname = MX_PATHNAME;
    v.$zName = wasm.allocCString(name);
    for (const k of ['$xRandomness', '$xSleep', '$xCurrentTime', '$xCurrentTimeInt64', '$xGetLastError'] as const)
      v[k] = defaultVfs[k];
    if (immutable) immutablePtrs.add(Number(v.pointer));
    vfsApi.installVfs({ vfs: { struct: v, methods } });
  }
  defaultVfs.dispose();
}

/** The open file SQLite holds for the connection at `dbPointer` under `op` (it answers the file control itself). */
function openFileOf(wasm: Wasm, files: Files, dbPointer: number, op: number): OpenFile | undefined {
  const pOut = wasm.alloc(8);
  try {
    wasm.poke32(pOut, 0);
    // zDbName NULL = "main".
    if (wasm.exports.sqlite3_file_control(dbPointer, 0, op, pOut) !== 0) return undefined;
    return files.get(wasm.peek32(pOut));
  } finally {
    wasm.dealloc(pOut);
  }
}

let installed: ReadonlyVfs | undefined;

export function installReadonlyVfs(sqlite3: Sqlite3Static): ReadonlyVfs {
  if (installed) return installed;
  const capi = sqlite3.capi as unknown as Capi;
  const wasm = sqlite3.wasm as unknown as Wasm;
  const vfsApi = (sqlite3 as unknown as { vfs: VfsApi }).vfs;
  const files: Files = new Map();
  const immutablePtrs = new Set<number>();

  const ioMethods = new capi.sqlite3_io_methods();
  ioMethods.$iVersion = 1;
  vfsApi.installVfs({ io: { struct: ioMethods, methods: ioMethodsFor(capi, wasm, files) } });
  registerVfs(capi, wasm, vfsApi, vfsMethodsFor(capi, wasm, files, immutablePtrs, ioMethods), immutablePtrs);

  const mainFileOf = (db: number) => openFileOf(wasm, files, db, SQLITE_FCNTL_FILE_POINTER);
  installed = {
    fdsOf: (db) => ({
      db: mainFileOf(db)?.fd,
      wal: openFileOf(wasm, files, db, SQLITE_FCNTL_JOURNAL_POINTER)?.fd,
    }),
    readAhead: (db) => {
      const f = mainFileOf(db);
      if (f && f.fd != null) f.ahead ??= { buf: new Uint8Array(READ_AHEAD_BYTES), pos: 0, len: 0, next: -1 };
    },
    walName: WAL_VFS,
    immutableName: IMMUTABLE_VFS,
  };
  return installed;
}
