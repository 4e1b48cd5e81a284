/** Loads sqlite-wasm once per thread with our VFS (ESM-only: the CJS bundle shims `import.meta.url`). */
import fs from 'node:fs';
import path from 'node:path';
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import { installReadonlyVfs, type ReadonlyVfs } from './readonly-vfs';

export interface Engine {
  readonly sqlite3: Sqlite3Static;
  readonly vfs: ReadonlyVfs;
}

/** Typed locally: neither our lib nor @types/node declares the WebAssembly JS API. */
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
/** Shared by this thread's engine and handed to every engine worker it starts. */
let compiling: Promise<WasmModule> | undefined;
let compiled: WasmModule | undefined;

/** Beside the bundle in dist/, else in node_modules. */
function wasmPath(): string {
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

/** Compiled once per thread; a failed compile is retried on the next call. */
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

/** Passed to a starting engine worker so it need not compile it again. */
export function compiledEngineModuleNow(): WasmModule | undefined {
  return compiled;
}

export function useCompiledEngineModule(m: WasmModule): void {
  compiled ??= m;
}

/** Starts the compile in the background; a failure is not reported here: the first real load retries and says why. */
export function prewarmEngine(): void {
  compiledEngineModule().catch(() => undefined);
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
      // Emscripten's hook has no error callback: a failed instantiation rejects through `failed`.
      instantiateWasm: (imports, done) => {
        wasmApi.instantiate(wasm, imports).then((instance) => done(instance, wasm), fail);
        return {};
      },
    }),
    failed,
  ]);
  // It also logs through sqlite3.config (e.g. warnings about OPFS).
  const config = sqlite3.config as unknown as Record<string, unknown>;
  for (const k of ['log', 'warn', 'error', 'debug']) if (k in config) config[k] = silent;
  return { sqlite3, vfs: installReadonlyVfs(sqlite3) };
}

/** A failed load is retried on the next call. */
export function loadEngine(): Promise<Engine> {
  if (!engine) {
    engine = load().catch((e: unknown) => {
      engine = undefined;
      throw e;
    });
  }
  return engine;
}
