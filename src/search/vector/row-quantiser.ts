/**
 * Quantising stored rows during a build: the kernel's SIMD `quantise_row` (its error bounds derived beside it in
 * vector-kernel.wat), over a small memory of its own where each row is staged zero-padded; the JS `quantiseRow` is the
 * reference (codes may differ by ±1 only within a few ulps of a half-integer).
 */
import { instantiateKernel, kernelMemory, type KernelExports } from '../kernel/kernel';
import { strideFor } from './quantize';

/** Quantises one stored row (int8, levels 127) into `codes[at..at+dim)`; the caller zeroes the row's padding. */
export interface RowQuantiser {
  /** False (codes unspecified) when `vec` holds a NaN or an infinity; else the row's numbers are in the fields. */
  quantise(vec: Float32Array, dim: number, codes: Int8Array, at: number): boolean;
  readonly scale: number;
  readonly err: number;
  readonly qnorm: number;
}

/** The largest dimension an index supports (accumulator.ts checks it), hence the largest stride. */
const MAX_STRIDE = 16384;
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
    // The memory never grows, so these views stay valid.
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
