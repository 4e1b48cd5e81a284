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

/** The slice of the WebAssembly JS API used here, typed locally (neither our lib nor @types/node declares it). */
type WasmModule = object;
type WasmInstance = object;
type WasmImports = Record<string, Record<string, unknown>>;
const wasmApi = (
  globalThis as unknown as {
    WebAssembly: {
      compile(bytes: Uint8Array): Promise<WasmModule>;
      instantiate(m: WasmModule, imports: WasmImports): Promise<WasmInstance>;
    };
  }
).WebAssembly;

type InitModule = (opts: {
  print: (...a: unknown[]) => void;
  printErr: (...a: unknown[]) => void;
  wasmBinary?: Uint8Array;
  instantiateWasm?: (imports: WasmImports, done: (instance: WasmInstance, module: WasmModule) => void) => object;
}) => Promise<Sqlite3Static>;

let engine: Promise<Engine> | undefined;
/** The compiled sqlite3.wasm, shared by this thread's engine and handed to every engine worker it starts. */
let compiling: Promise<WasmModule> | undefined;
let compiled: WasmModule | undefined;

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

/** The compiled sqlite3.wasm (compiled once per thread; a failed compile is retried on the next call). */
export function compiledEngineModule(): Promise<WasmModule> {
  if (compiled) return Promise.resolve(compiled);
  if (!compiling) {
    compiling = fs.promises
      .readFile(wasmPath())
      .then((bytes) => wasmApi.compile(bytes))
      .then(
        (m) => (compiled = m),
        (e: unknown) => {
          compiling = undefined;
          throw e;
        },
      );
  }
  return compiling;
}

/** The compiled module if it is ready now (passed to a starting engine worker so it need not compile it again). */
export function compiledEngineModuleNow(): WasmModule | undefined {
  return compiled;
}

/** Adopts a module compiled by another thread (the engine worker gets its host's). */
export function useCompiledEngineModule(m: WasmModule): void {
  compiled ??= m;
}

/**
 * Start warm: begins compiling the engine in the background (CLI start, extension activation), so the first
 * query pays only for its own pages. A failure is not reported here; the first real load retries and says why.
 */
export function prewarmEngine(): void {
  compiledEngineModule().catch(() => undefined);
}

/** Test hook: whether this thread's engine compile has started / finished, and whether the engine is loaded. */
export function engineWarmth(): { compileStarted: boolean; compiled: boolean; loadStarted: boolean } {
  return {
    compileStarted: compiling !== undefined || compiled !== undefined,
    compiled: compiled !== undefined,
    loadStarted: engine !== undefined,
  };
}

async function load(): Promise<Engine> {
  const wasm = await compiledEngineModule();
  const mod = (await import('@sqlite.org/sqlite-wasm')) as unknown as { default: InitModule };
  const silent = (): void => undefined;
  let fail!: (e: unknown) => void;
  const failed = new Promise<never>((_resolve, reject) => (fail = reject));
  const sqlite3 = await Promise.race([
    mod.default({
      print: silent,
      printErr: silent,
      // Instantiate the module compiled once (here or by the host thread) instead of compiling the bytes again.
      // Emscripten's hook has no error callback: a failed instantiation rejects through `failed`.
      instantiateWasm: (imports, done) => {
        wasmApi.instantiate(wasm, imports).then((instance) => done(instance, wasm), fail);
        return {};
      },
    }),
    failed,
  ]);
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
