/**
 * What this thread has done with the WASM engine, watched from outside (from import on): started its compile (read
 * sqlite3.wasm), compiled it (how often), and loaded an engine (instantiated the compiled module).
 */
import fs from 'node:fs';
import path from 'node:path';
import { compiledEngineModuleNow } from '../../src/archive/wasm-engine';

interface WasmApi {
  compile(...args: unknown[]): Promise<object>;
  instantiate(module: object, ...rest: unknown[]): Promise<object>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let compileStarted = false;
let compiles = 0;
const instantiated: object[] = [];

const readFile = fs.promises.readFile as (...args: unknown[]) => Promise<unknown>;
(fs.promises as { readFile: unknown }).readFile = (file: unknown, ...rest: unknown[]) => {
  if (typeof file === 'string' && path.basename(file) === 'sqlite3.wasm') compileStarted = true;
  return readFile(file, ...rest);
};
const { compile, instantiate } = wasmApi;
wasmApi.compile = (...args) => {
  compiles++;
  return compile.apply(wasmApi, args);
};
wasmApi.instantiate = (module, ...rest) => {
  instantiated.push(module);
  return instantiate.call(wasmApi, module, ...rest);
};

export function engineWarmth(): { compileStarted: boolean; compiled: boolean; compiles: number; loaded: boolean } {
  const module = compiledEngineModuleNow();
  return {
    compileStarted,
    compiled: module !== undefined,
    compiles,
    loaded: module !== undefined && instantiated.includes(module),
  };
}
