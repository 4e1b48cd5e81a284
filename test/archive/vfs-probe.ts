/**
 * Drives the read-only VFS as SQLite does, through the function pointers it registered, to test its I/O path byte by
 * byte; and the process's open file descriptors, from /proc/self/fd.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Engine, loadEngine } from '../../src/archive/wasm-engine';

export interface ProbeResult {
  rc: number;
  bytes: Uint8Array;
}

interface Struct {
  pointer: number;
  dispose(): void;
  [member: `$${string}`]: number;
}
interface Capi {
  [constant: string]: unknown;
  sqlite3_vfs: new (p: number) => Struct;
  sqlite3_file: (new (p: number) => Struct) & { structInfo: { sizeof: number } };
  sqlite3_io_methods: new (p: number) => Struct;
  sqlite3_vfs_find(name: string): number;
  sqlite3_open_v2(file: string, ppDb: number, flags: number, vfs: string): number;
  sqlite3_close_v2(db: number): number;
  sqlite3_file_control(db: number, name: string, op: number, pArg: number): number;
}
interface Wasm {
  alloc(n: number): number;
  allocCString(s: string): number;
  dealloc(p: number): void;
  heap8u(): Uint8Array;
  peek32(p: number): number;
  functionEntry(p: number): ((...args: (number | bigint)[]) => number) | undefined;
}

const SQLITE_FCNTL_FILE_POINTER = 7;

/** The paths of this process's open file descriptors under `dir`. */
export function openFdsUnder(dir: string): string[] {
  const root = fs.realpathSync(dir) + path.sep;
  const fds = fs.readdirSync('/proc/self/fd');
  return fds
    .map((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return ''; // the fd of the readdir itself, closed by now
      }
    })
    .filter((p) => p.startsWith(root));
}

export async function vfsProbe() {
  return probeOf(await loadEngine());
}

export function probeOf({ sqlite3, vfs }: Engine) {
  const capi = sqlite3.capi as unknown as Capi;
  const wasm = sqlite3.wasm as unknown as Wasm;
  const c = (name: string) => capi[name] as number;
  const fn = (p: number) => wasm.functionEntry(p) ?? assertNever(`no function at ${p}`);
  const pVfs = capi.sqlite3_vfs_find(vfs.walName);
  const vfsStruct = new capi.sqlite3_vfs(pVfs);
  const xOpen = fn(vfsStruct.$xOpen);
  vfsStruct.dispose();
  const ioOf = (pFile: number) => {
    const file = new capi.sqlite3_file(pFile);
    const io = new capi.sqlite3_io_methods(file.$pMethods);
    const methods = { xRead: fn(io.$xRead), xClose: fn(io.$xClose) };
    file.dispose();
    io.dispose();
    return methods;
  };
  /** Reads through the file's xRead into a heap buffer of `pBuf`, as SQLite does a page. */
  const readAt = (pFile: number, pBuf: number, offset: bigint, n: number): ProbeResult => {
    const rc = ioOf(pFile).xRead(pFile, pBuf, n, offset);
    return { rc, bytes: wasm.heap8u().slice(pBuf, pBuf + n) };
  };
  const mainFile = (db: number): number => {
    const pOut = wasm.alloc(8);
    capi.sqlite3_file_control(db, 'main', SQLITE_FCNTL_FILE_POINTER, pOut);
    const pFile = wasm.peek32(pOut);
    wasm.dealloc(pOut);
    return pFile;
  };
  const withBuffer = <T>(n: number, use: (pBuf: number) => T): T => {
    const pBuf = wasm.alloc(Math.max(1, n));
    try {
      return use(pBuf);
    } finally {
      wasm.dealloc(pBuf);
    }
  };

  return {
    /** xOpen `file` as a main db, xRead `n` bytes at `offset`, xClose. */
    read(file: string, offset: bigint, n: number): ProbeResult {
      const pFile = wasm.alloc(capi.sqlite3_file.structInfo.sizeof);
      const zName = wasm.allocCString(file);
      const pOut = wasm.alloc(8);
      try {
        const rc = xOpen(pVfs, zName, pFile, c('SQLITE_OPEN_MAIN_DB') | c('SQLITE_OPEN_READONLY'), pOut);
        if (rc !== 0) return { rc, bytes: new Uint8Array(0) };
        try {
          return withBuffer(n, (pBuf) => readAt(pFile, pBuf, offset, n));
        } finally {
          ioOf(pFile).xClose(pFile);
        }
      } finally {
        for (const p of [pFile, zName, pOut]) wasm.dealloc(p);
      }
    },

    /**
     * Opens `file` as a scanning connection does (read ahead) and reads it read by read through its main file;
     * `fileReads` counts the read calls that reached the file; those past the first `failAfter` fail (EIO).
     */
    readAhead(
      file: string,
      reads: [offset: number, n: number][],
      failAfter = Number.POSITIVE_INFINITY,
    ): { results: ProbeResult[]; fileReads: number } {
      const ppDb = wasm.alloc(8);
      const rc = capi.sqlite3_open_v2(file, ppDb, c('SQLITE_OPEN_READONLY'), vfs.walName);
      const db = wasm.peek32(ppDb);
      wasm.dealloc(ppDb);
      try {
        if (rc !== 0) throw new Error(`readAhead: open failed (${rc})`);
        vfs.readAhead(db);
        const pFile = mainFile(db);
        const fd = vfs.fdsOf(db).db;
        let fileReads = 0;
        const readSync = fs.readSync;
        fs.readSync = ((...args: Parameters<typeof fs.readSync>) => {
          if (args[0] !== fd) return readSync(...args);
          if (++fileReads > failAfter) throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
          return readSync(...args);
        }) as typeof fs.readSync;
        try {
          const biggest = Math.max(0, ...reads.map(([, n]) => n));
          const results = withBuffer(biggest, (pBuf) =>
            reads.map(([offset, n]) => readAt(pFile, pBuf, BigInt(offset), n)),
          );
          return { results, fileReads };
        } finally {
          fs.readSync = readSync;
        }
      } finally {
        capi.sqlite3_close_v2(db);
      }
    },

    /**
     * Whether the open connection `db` reads its main file ahead: of two adjacent reads, the second then comes from
     * the buffer or refills it whole, never as a read of its own size.
     */
    readsAhead(db: number): boolean {
      const pFile = mainFile(db);
      const sizes: number[] = [];
      const readSync = fs.readSync;
      fs.readSync = ((...args: Parameters<typeof fs.readSync>) => {
        sizes.push((args as unknown[])[3] as number);
        return readSync(...args);
      }) as typeof fs.readSync;
      try {
        withBuffer(16, (pBuf) => readAt(pFile, pBuf, 0n, 16));
        sizes.length = 0;
        withBuffer(16, (pBuf) => readAt(pFile, pBuf, 16n, 16));
      } finally {
        fs.readSync = readSync;
      }
      return !sizes.includes(16);
    },
  };
}

function assertNever(message: string): never {
  throw new Error(message);
}
