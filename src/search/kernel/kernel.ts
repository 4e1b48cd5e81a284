/**
 * Loads the hand-written WASM SIMD kernel (vector-kernel.wat): shipped builds the `vector-kernel.wasm` esbuild.js
 * assembled beside the bundle; dev and tests assemble the .wat beside this file on the fly (`wabt`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { wasm, type WasmMemory, type WasmModule } from './wasm-api';

export interface KernelExports {
  /** out[i] = dot(query, rows + i*stride) for i < n, as i32. */
  dot_rows(query: number, rows: number, n: number, stride: number, out: number): void;
  /** out[i] = dot(query, base + idx[i]*stride) for i < n, as i32. */
  dot_idx(query: number, base: number, idx: number, n: number, stride: number, out: number): void;
  /** For n rows: outDot[i] = dot(query, row i) (i32), outU[i] = dot·sq·scale[i] + err[i] + fq·qnorm[i] (f32). */
  score_rows(
    query: number,
    rows: number,
    n: number,
    stride: number,
    meta: number,
    plane: number,
    sq: number,
    fq: number,
    outDot: number,
    outU: number,
  ): void;
  /** The same for the rows listed in idx (base = row 0, meta = scale[0]). */
  score_idx(
    query: number,
    base: number,
    idx: number,
    n: number,
    stride: number,
    meta: number,
    plane: number,
    sq: number,
    fq: number,
    outDot: number,
    outU: number,
  ): void;
  /** Quantises the zero-padded f32 row at src into int8 codes at dst, scale/err/qnorm at out; 0 for NaN/infinity. */
  quantise_row(src: number, stride: number, dst: number, out: number): number;
}

/**
 * A memory the kernel can run on: shared, so the thread that builds an index's rows and the one that searches them
 * see the same pages. `maximum` reserves address space only.
 */
export function kernelMemory(pages: number, maximum = 65536): WasmMemory {
  return new wasm.Memory({ initial: pages, maximum, shared: true });
}

let compiled: Promise<WasmModule> | undefined;

/** Where a prebuilt kernel may sit: beside the running bundle (dist/), or the repo's dist/ when run from src/. */
function prebuiltCandidates(): string[] {
  return [path.join(__dirname, 'vector-kernel.wasm'), path.resolve(__dirname, '../../../dist/vector-kernel.wasm')];
}

async function assembleFromSource(watDir: string): Promise<Uint8Array> {
  // A computed path keeps esbuild from bundling the assembler (and wabt) into shipped code.
  const builder = require(path.join(watDir, 'build-kernel.js')) as { assembleKernel(): Promise<Uint8Array> };
  return builder.assembleKernel();
}

async function loadBytes(): Promise<Uint8Array> {
  // Running from source: always assemble the current .wat so edits take effect without a build.
  if (fs.existsSync(path.join(__dirname, 'vector-kernel.wat'))) return assembleFromSource(__dirname);
  for (const file of prebuiltCandidates()) {
    if (fs.existsSync(file)) return fs.readFileSync(file);
  }
  throw new Error(
    `the vector kernel is missing: expected ${prebuiltCandidates()[0]} (run \`npm run build\`, which assembles src/search/kernel/vector-kernel.wat)`,
  );
}

/** The compiled kernel module (compiled once per process). */
export function kernelModule(): Promise<WasmModule> {
  compiled ??= loadBytes().then((bytes) => wasm.compile(bytes));
  compiled.catch(() => {
    compiled = undefined;
  });
  return compiled;
}

/** Instantiates the kernel over `memory` (the caller owns the memory and its layout). */
export async function instantiateKernel(memory: WasmMemory): Promise<KernelExports> {
  const instance = await wasm.instantiate(await kernelModule(), { env: { memory } });
  return instance.exports as unknown as KernelExports;
}
