/**
 * Plain exact-cosine VectorIndex kept as a reference implementation and test oracle (the runtime builds the
 * search layer's int8 index by default, see vector-builder.ts).
 * It holds the vectors of one model in memory (float32, pre-normalised) and scans them per query.
 */
import type { EmbeddingRecord } from '../../archive/types';
import type { VectorFilter, VectorHit, VectorIndex } from '../../search/types';
import { abortError } from './shared-task';

interface Meta {
  messageId: number;
  conversationId: number;
  tsUnix: number;
  sender?: string;
  source?: string;
}

const YIELD_EVERY = 4096;
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function norm(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
}

export class ExactCosineIndex implements VectorIndex {
  readonly model: string;
  readonly dim: number;
  private readonly vecs: Float32Array;
  /** Stored-vector norms (0 → cosine 0, as msgbrowse). */
  private readonly norms: Float64Array;
  private readonly meta: Meta[];
  private disposed = false;

  private constructor(model: string, dim: number, vecs: Float32Array, norms: Float64Array, meta: Meta[]) {
    this.model = model;
    this.dim = dim;
    this.vecs = vecs;
    this.norms = norms;
    this.meta = meta;
  }

  get size(): number {
    return this.meta.length;
  }

  /** Loads every vector of `model` whose length is `dim`; yields to the event loop while loading. */
  static async build(
    model: string,
    dim: number,
    records: Iterable<EmbeddingRecord>,
    signal?: AbortSignal,
  ): Promise<ExactCosineIndex> {
    const meta: Meta[] = [];
    const chunks: Float32Array[] = [];
    let n = 0;
    for (const r of records) {
      if (r.vec.length !== dim) continue;
      chunks.push(r.vec);
      meta.push({ messageId: r.messageId, conversationId: r.conversationId, tsUnix: r.tsUnix, sender: r.sender, source: r.source });
      if (++n % YIELD_EVERY === 0) {
        await tick();
        if (signal?.aborted) throw abortError('the vector index build was cancelled');
      }
    }
    const vecs = new Float32Array(n * dim);
    const norms = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      vecs.set(chunks[i], i * dim);
      norms[i] = norm(chunks[i]);
    }
    return new ExactCosineIndex(model, dim, vecs, norms, meta);
  }

  private matches(m: Meta, f: VectorFilter | undefined): boolean {
    if (!f) return true;
    if (f.conversationId !== undefined && m.conversationId !== f.conversationId) return false;
    if (f.startUnix !== undefined && m.tsUnix < f.startUnix) return false;
    if (f.endUnix !== undefined && m.tsUnix > f.endUnix) return false;
    if (f.source !== undefined && m.source !== f.source) return false;
    if (f.sender !== undefined && m.sender !== f.sender) return false;
    return true;
  }

  async search(query: Float32Array, k: number, filter?: VectorFilter, signal?: AbortSignal): Promise<VectorHit[]> {
    if (this.disposed) throw new Error('the vector index was disposed (the archive or settings changed); retry');
    if (query.length !== this.dim) {
      throw new Error(
        `the query embedding has ${query.length} dimensions but the archive's "${this.model}" vectors have ${this.dim}; ` +
          'the embedding endpoint serves a different model than the one the archive was embedded with',
      );
    }
    if (k <= 0) return [];
    const qn = norm(query);
    const hits: VectorHit[] = [];
    const dim = this.dim;
    for (let i = 0; i < this.meta.length; i++) {
      if (i % YIELD_EVERY === YIELD_EVERY - 1) {
        await tick();
        if (signal?.aborted) throw abortError('the semantic search was cancelled');
      }
      const m = this.meta[i];
      if (!this.matches(m, filter)) continue;
      let dot = 0;
      const off = i * dim;
      for (let j = 0; j < dim; j++) dot += query[j] * this.vecs[off + j];
      const denom = qn * this.norms[i];
      hits.push({ messageId: m.messageId, score: denom === 0 ? 0 : dot / denom });
    }
    hits.sort((a, b) => b.score - a.score || a.messageId - b.messageId);
    return hits.slice(0, k);
  }

  dispose(): void {
    this.disposed = true;
  }
}
