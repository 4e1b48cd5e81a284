/** Loads the hand-written WASM SIMD kernel (vector-kernel.wat): the .wasm esbuild.js built, or the .wat assembled. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { wasm, type WasmMemory, type WasmModule } from './wasm-api';

/** How every scoring call ends: the meta plane's size, the query's scale and error, where dots and bounds go. */
type ScoreTail = [plane: number, sq: number, fq: number, outDot: number, outU: number];

export interface KernelExports {
  /** out[i] = dot(query, rows + i*stride) for i < n, as i32. */
  dot_rows(query: number, rows: number, n: number, stride: number, out: number): void;
  /** out[i] = dot(query, base + idx[i]*stride) for i < n, as i32. */
  dot_idx(query: number, base: number, idx: number, n: number, stride: number, out: number): void;
  /** For n rows: outDot[i] = dot(q, row i) (i32), outU[i] = dot·sq·scale[i] + err[i] + fq·qnorm[i] (f32). */
  score_rows(q: number, rows: number, n: number, stride: number, meta: number, ...tail: ScoreTail): void;
  /** The same for the rows listed in idx (base = row 0, meta = scale[0]). */
  score_idx(q: number, base: number, idx: number, n: number, stride: number, meta: number, ...tail: ScoreTail): void;
  /** Quantises the zero-padded f32 row at src into int8 codes at dst, scale/err/qnorm at out; 0 for NaN/infinity. */
  quantise_row(src: number, stride: number, dst: number, out: number): number;
}

/** Shared, so the thread that builds an index's rows and the one searching them see the same pages. */
export function kernelMemory(pages: number, maximum = 65536): WasmMemory {
  return new wasm.Memory({ initial: pages, maximum, shared: true });
}

let compiled: Promise<WasmModule> | undefined;

async function loadBytes(): Promise<Uint8Array> {
  // Running from source: always assemble the current .wat so edits take effect without a build. A computed path
  // keeps esbuild from bundling the assembler (and wabt) into shipped code.
  if (fs.existsSync(path.join(__dirname, 'vector-kernel.wat')))
    return (
      require(path.join(__dirname, 'build-kernel.js')) as { assembleKernel(): Promise<Uint8Array> }
    ).assembleKernel();
  // Beside the running bundle (dist/), or the repo's dist/ when run from src/.
  const files = [
    path.join(__dirname, 'vector-kernel.wasm'),
    path.resolve(__dirname, '../../../dist/vector-kernel.wasm'),
  ];
  const file = files.find((f) => fs.existsSync(f));
  if (file) return fs.readFileSync(file);
  throw new Error(
    `the vector kernel is missing: expected ${files[0]} (run \`npm run build\`, which assembles src/search/kernel/vector-kernel.wat)`,
  );
}

export function kernelModule(): Promise<WasmModule> {
  compiled ??= loadBytes().then((bytes) => wasm.compile(bytes));
  compiled.catch(() => {
    compiled = undefined;
  });
  return compiled;
}

export async function instantiateKernel(memory: WasmMemory): Promise<KernelExports> {
  const instance = await wasm.instantiate(await kernelModule(), { env: { memory } });
  return instance.exports as unknown as KernelExports;
}
