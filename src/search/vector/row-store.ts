/** Where rescoring reads the float rows back: the archive, by the key the build recorded. */
import { VectorIndexError } from './errors';

export interface RowStore {
  /** Copies rows `rows[i]` into `out[i*dim .. (i+1)*dim)`. */
  readRows(rows: ArrayLike<number>, count: number, out: Float32Array): void;
  close(): void;
}

/** Rows read back by key (`IndexParts.rowids`); a missing row stays NaN, and the index checks each read row. */
export class KeyedRows implements RowStore {
  private scratch = new Float64Array(0);

  constructor(
    private keys: Float64Array | undefined,
    private readonly dim: number,
    private readonly read: (keys: Float64Array, out: Float32Array) => unknown,
  ) {}

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

/** Rows of an index built from `source`'s embeddings of `model` (the archive's `embeddingVectors`), by rowid. */
export function archiveRows(
  source: { embeddingVectors(model: string, dim: number, rowids: ArrayLike<number>, out: Float32Array): number },
  model: string,
): (parts: { rowids: Float64Array; dim: number }) => RowStore {
  return (parts) =>
    new KeyedRows(parts.rowids, parts.dim, (keys, out) => source.embeddingVectors(model, parts.dim, keys, out));
}
