/**
 * Loads the hand-written WASM SIMD scoring kernel (vector-kernel.wat).
 *
 * Shipped builds load `vector-kernel.wasm` that esbuild.js assembled beside the bundle. In dev and tests (running
 * from src/, where the .wat sits beside this file) the text is assembled on the fly with the `wabt` dev dependency.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { wasm, type WasmMemory, type WasmModule } from './wasm-api';

export interface KernelExports {
  /** out[i] = dot(query, rows + i*stride) for i < n, as i32. */
  dot_rows(query: number, rows: number, n: number, stride: number, out: number): void;
  /** out[i] = dot(query, base + idx[i]*stride) for i < n, as i32. */
  dot_idx(query: number, base: number, idx: number, n: number, stride: number, out: number): void;
  /**
   * For n contiguous rows: outDot[i] = dot(query, row i) (i32) and outU[i] (f32) =
   * dot·sq·scale[i] + err[i] + fq·qnorm[i], with scale/err/qnorm planes at meta, meta+plane, meta+2·plane.
   */
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
  /**
   * Quantises the f32 row at src (zero padded to `stride`) into int8 codes at dst and writes f32 scale, err and
   * qnorm at out (err and qnorm rigorous upper bounds, see the .wat); returns 0 when the row holds a NaN or an
   * infinity (nothing written), else 1.
   */
  quantise_row(src: number, stride: number, dst: number, out: number): number;
}

/**
 * A memory the kernel can run on. The kernel imports a SHARED memory, so one index's rows can be written by the
 * thread that builds them and searched by another without a copy (a shared WebAssembly.Memory is posted between
 * workers, its pages stay where they are). `maximum` reserves address space only.
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
  const builderPath = path.join(watDir, 'build-kernel.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const builder = require(builderPath) as { assembleKernel(): Promise<Uint8Array> };
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
