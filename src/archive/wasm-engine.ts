/**
 * Loads the official SQLite WebAssembly build (@sqlite.org/sqlite-wasm, FTS5 built in) once per
 * process and registers our read-only VFS on it.
 *
 * The package is ESM-only: under tsx the dynamic import stays an import; in the esbuild CJS bundle
 * it is inlined and `import.meta.url` is shimmed (scripts/build/import-meta-url-shim.js). The
 * `.wasm` is passed as `wasmBinary` so Emscripten never tries to fetch or locate it itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Database, Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import { installReadonlyVfs, type ReadonlyVfs } from './readonly-vfs';

export type { Database, Sqlite3Static };

export interface Engine {
  readonly sqlite3: Sqlite3Static;
  readonly vfs: ReadonlyVfs;
}

type InitModule = (opts: {
  print: (...a: unknown[]) => void;
  printErr: (...a: unknown[]) => void;
  wasmBinary?: Uint8Array;
}) => Promise<Sqlite3Static>;

let engine: Promise<Engine> | undefined;

/** Where the sqlite3.wasm lives: beside the bundle in dist/, else in node_modules. */
export function wasmPath(): string {
  const beside = path.join(__dirname, 'sqlite3.wasm');
  if (fs.existsSync(beside)) return beside;
  // Not a literal, so bundlers leave it alone (the bundle never reaches this line: dist/ has the file).
  const spec = ['@sqlite.org', 'sqlite-wasm', 'sqlite3.wasm'].join('/');
  try {
    return require.resolve(spec);
  } catch {
    throw new Error(`sqlite3.wasm is missing: not at ${beside} and no ${spec} package`);
  }
}

async function load(): Promise<Engine> {
  const wasmBinary = fs.readFileSync(wasmPath());
  const mod = (await import('@sqlite.org/sqlite-wasm')) as unknown as { default: InitModule };
  const silent = (): void => undefined;
  const sqlite3 = await mod.default({ print: silent, printErr: silent, wasmBinary });
  // The library logs through sqlite3.config too (e.g. warnings about OPFS); keep it quiet.
  const config = sqlite3.config as unknown as Record<string, unknown>;
  for (const k of ['log', 'warn', 'error', 'debug']) if (k in config) config[k] = silent;
  return { sqlite3, vfs: installReadonlyVfs(sqlite3) };
}

/** The process-wide engine (loaded on first call; a failed load is retried on the next call). */
export function loadEngine(): Promise<Engine> {
  if (!engine) {
    engine = load().catch((e: unknown) => {
      engine = undefined;
      throw e;
    });
  }
  return engine;
}
