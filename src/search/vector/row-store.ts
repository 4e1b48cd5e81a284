/** Where rescoring reads the float rows: memory (records that exist nowhere else), or the archive by rowid. */
import { VectorIndexError } from './errors';

export interface RowStore {
  /** Bytes this store keeps resident in the JS heap. */
  readonly residentBytes: number;
  /** Copies rows `rows[i]` into `out[i*dim .. (i+1)*dim)`. */
  readRows(rows: ArrayLike<number>, count: number, out: Float32Array): void;
  close(): void;
}

/** Receives rows in order while an index is being built. */
export interface RowSink {
  append(vec: Float32Array): void;
}

export class MemoryRows implements RowStore, RowSink {
  private data: Float32Array;
  private count = 0;

  constructor(
    private readonly dim: number,
    expected = 1024,
  ) {
    this.data = new Float32Array(Math.max(1, expected) * dim);
  }

  get residentBytes(): number {
    return this.data.byteLength;
  }

  append(vec: Float32Array): void {
    const need = (this.count + 1) * this.dim;
    if (need > this.data.length) {
      const next = new Float32Array(Math.max(need, this.data.length * 2));
      next.set(this.data.subarray(0, this.count * this.dim));
      this.data = next;
    }
    this.data.set(vec.subarray(0, this.dim), this.count * this.dim);
    this.count++;
  }

  /** Drops unused capacity once the build is done. */
  trim(): void {
    if (this.data.length !== this.count * this.dim) this.data = this.data.slice(0, this.count * this.dim);
  }

  readRows(rows: ArrayLike<number>, count: number, out: Float32Array): void {
    const d = this.dim;
    for (let i = 0; i < count; i++) out.set(this.data.subarray(rows[i] * d, rows[i] * d + d), i * d);
  }

  close(): void {
    this.data = new Float32Array(0);
  }
}

/**
 * Reads rows back by the key the build recorded (`IndexParts.rowids`). `read` fills `out` (row i at `i * dim`) for
 * the keys it still has; a missing row stays NaN, and the index checks every row read back against its int8 row.
 */
export class KeyedRows implements RowStore {
  readonly residentBytes = 0;
  private keys: Float64Array | undefined;
  private scratch = new Float64Array(0);

  constructor(
    keys: Float64Array,
    private readonly dim: number,
    private readonly read: (keys: Float64Array, out: Float32Array) => number,
  ) {
    this.keys = keys;
  }

  readRows(rows: ArrayLike<number>, count: number, out: Float32Array): void {
    const keys = this.keys;
    if (!keys) throw new VectorIndexError('disposed', 'the vector index was disposed');
    if (this.scratch.length < count) this.scratch = new Float64Array(Math.max(count, 64));
    const want = this.scratch.subarray(0, count);
    for (let i = 0; i < count; i++) want[i] = keys[rows[i]];
    out.fill(Number.NaN, 0, count * this.dim);
    this.read(want, out);
  }

  close(): void {
    this.keys = undefined;
  }
}

/** What {@link archiveRows} needs from an archive (the archive layer's `embeddingVectors`). */
export interface VectorSource {
  embeddingVectors(model: string, dim: number, rowids: ArrayLike<number>, out: Float32Array): number;
}

/** Rows of an index built from `source`'s embeddings of `model`, read back by rowid for exact rescoring. */
export function archiveRows(
  source: VectorSource,
  model: string,
): (parts: { rowids: Float64Array; dim: number }) => RowStore {
  return (parts) =>
    new KeyedRows(parts.rowids, parts.dim, (keys, out) => source.embeddingVectors(model, parts.dim, keys, out));
}
