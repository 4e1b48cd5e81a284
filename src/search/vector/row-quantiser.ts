/**
 * Quantising stored rows during a build: the kernel's SIMD `quantise_row`, with the JS `quantiseRow` as reference.
 * The kernel runs over a small memory of its own, where each row is staged zero-padded, quantised, and copied out.
 *
 * Exactness (derived in full beside quantise_row in vector-kernel.wat): the kernel works in f32 on v, rescaled by an
 * exact power of two for extreme magnitudes, so no intermediate overflows. The stored err bounds ‖x − s·c‖ from its f32
 * sum of squares, inflated by that sum's rounding bound and by the error of x = fl(v·fl(1/‖v‖)) against v̂; qnorm is
 * s·sqrt(Σcᵢ²) from an exact integer sum; both are rounded up to f32. Codes may differ from quantiseRow's by ±1 only
 * where x/s lies within a few ulps of a half-integer; every |cᵢ| ≤ 127.
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
