/**
 * Quantising stored rows during an index build: the kernel's `quantise_row` (WebAssembly SIMD, f32x4), with the
 * JS `quantiseRow` as the reference (and the default of IndexBuilder when no quantiser is given).
 *
 * The kernel runs in a small instance of its own over a dedicated 2-page memory, not over the index's memory: the
 * float row must be staged zero-padded in kernel memory, and the index's layout keeps no scratch for it. Each row is
 * copied into the scratch area, quantised there, and its codes copied out (memcpy both ways,
 * ~0.1 µs for 768 dims; the kernel takes ~0.25 µs, the JS quantiser ~2.5–3 µs). One call per row: the call costs
 * tens of nanoseconds, and the builder learns at once whether the row is usable.
 *
 * Exactness (derived in full beside quantise_row in vector-kernel.wat): the kernel works in f32x4 on u = v, or
 * for extreme magnitudes on u = v·2^k, an exact power-of-two rescaling, so every intermediate stays in range for any
 * finite input. t = fl32(1/‖u‖) is off by |η| ≲ ½·γ_K + 2⁻²⁴ (γ_K ≈ (stride/16 + 6)·2⁻²⁴ bounds the f32 sum of
 * squares), so x = fl(u·t) is within ρ ≈ η + 2⁻²⁴ of the exact v̂ in norm. The stored err is ‖x − s·c‖ bounded
 * from its f32 sum of squares (inflated by γ_K, and by the rounding of s·cᵢ and of the subtraction) plus ρ; qnorm is
 * s·sqrt(Σcᵢ²) from an exact integer sum. Both are rounded up to f32. For 768 dims err ends ~2·10⁻⁶ above the exact
 * value, ~0.05 % of a typical row's err (a handful more rescored candidates at most). Codes are round-half-even of
 * x/s like the JS ones, but from f32 x: they differ from quantiseRow's by ±1 only where x/s lies within a few f32
 * ulps of a half-integer (exact ties included). s is computed as in quantiseRow, and every |cᵢ| ≤ 127 (proof in
 * the .wat).
 */
import { instantiateKernel, kernelMemory, type KernelExports } from '../kernel/kernel';
import { quantiseRow, strideFor } from './quantize';

/** Quantises one stored row (int8, levels 127) into `codes[at..at+dim)`; the caller zeroes the row's padding. */
export interface RowQuantiser {
  /**
   * Writes the codes and returns true, the row's numbers then readable from `scale`, `err` and `qnorm`; returns
   * false (codes unspecified) when `vec` holds a NaN or an infinity.
   */
  quantise(vec: Float32Array, dim: number, codes: Int8Array, at: number): boolean;
  readonly scale: number;
  readonly err: number;
  readonly qnorm: number;
}

/** The JS reference quantiser behind the RowQuantiser interface. */
export class JsRowQuantiser implements RowQuantiser {
  scale = 0;
  err = 0;
  qnorm = 0;

  quantise(vec: Float32Array, dim: number, codes: Int8Array, at: number): boolean {
    const q = quantiseRow(vec, dim, codes, at);
    if (!q) return false;
    this.scale = q.scale;
    this.err = q.err;
    this.qnorm = q.qnorm;
    return true;
  }
}

/** The largest dimension an index supports (accumulator.ts checks it), hence the largest stride. */
const MAX_STRIDE = 16384;
/** Scratch layout: the f32 row, its int8 codes, the three f32 results. */
const SRC_OFF = 0;
const DST_OFF = SRC_OFF + MAX_STRIDE * 4;
const OUT_OFF = DST_OFF + MAX_STRIDE;
const PAGES = Math.ceil((OUT_OFF + 16) / 65536);

/** The kernel quantiser: one per build (it holds the current dimension's padding state). */
export class KernelRowQuantiser implements RowQuantiser {
  private readonly src: Float32Array;
  private readonly out: Float32Array;
  private codes = new Int8Array(0);
  private dim = 0;
  private stride = 0;

  private constructor(
    private readonly kernel: KernelExports,
    private readonly buffer: ArrayBuffer,
  ) {
    // The dedicated memory never grows, so these views stay valid.
    this.src = new Float32Array(buffer, SRC_OFF, MAX_STRIDE);
    this.out = new Float32Array(buffer, OUT_OFF, 3);
  }

  static async create(): Promise<KernelRowQuantiser> {
    const memory = kernelMemory(PAGES, PAGES);
    return new KernelRowQuantiser(await instantiateKernel(memory), memory.buffer);
  }

  get scale(): number {
    return this.out[0];
  }
  get err(): number {
    return this.out[1];
  }
  get qnorm(): number {
    return this.out[2];
  }

  quantise(vec: Float32Array, dim: number, codes: Int8Array, at: number): boolean {
    if (dim !== this.dim) this.setDim(dim);
    if (vec.length !== dim) throw new RangeError(`quantise: vector of length ${vec.length}, expected ${dim}`);
    this.src.set(vec);
    if (this.kernel.quantise_row(SRC_OFF, this.stride, DST_OFF, OUT_OFF) === 0) return false;
    codes.set(this.codes, at);
    return true;
  }

  /** The kernel reads whole strides: the padding after `dim` must hold zeros (a previous, longer row's values not). */
  private setDim(dim: number): void {
    if (!Number.isInteger(dim) || dim < 1 || dim > MAX_STRIDE)
      throw new RangeError(`quantise: dimension ${dim} is not supported`);
    this.src.fill(0, dim);
    this.dim = dim;
    this.stride = strideFor(dim);
    this.codes = new Int8Array(this.buffer, DST_OFF, dim);
  }
}
