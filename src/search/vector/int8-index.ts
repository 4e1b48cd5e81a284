/**
 * The exact vector index: int8 rows scored by the WASM SIMD kernel, then exact float64 rescoring of candidates.
 *
 * Exactness: every row r has an approximate cosine a_r with |cos_r − a_r| ≤ b_r (quantize.ts). While scanning,
 * L = the k-th largest lower bound a_r − b_r seen; a row whose upper bound a_r + b_r is below L cannot be in the top k
 * (k rows score at least L), so it is dropped. The survivors are rescored exactly in descending order of upper bound,
 * until the k-th best exact score is strictly greater than the next candidate's upper bound.
 */
import type { VectorFilter, VectorHit, VectorIndex } from '../types';
import type { IndexParts } from './accumulator';
import { VectorIndexError, throwIfAborted, untilAborted, yieldToEventLoop } from './errors';
import { instantiateKernel, type KernelExports } from '../kernel/kernel';
import { exactCosine, queryLevels, quantiseRow } from './quantize';
import type { RowStore } from './row-store';
import { TopHits } from './topk';
import { Candidates, ChunkScan } from './candidates';
import { pagesFor, WASM_PAGE } from './layout';
import { chunkCount, claimChunk, closeJob, helperScratch, isUnfiltered } from './scan-share';
import type { HelperScan, ScanShare } from './scan-share';

/** A search whose scan a helper thread shares (scan-share.ts): the job it made, and what it will post. */
type SharedScan = { job: SharedArrayBuffer; helped: Promise<HelperScan> };

type Query = { vec: Float32Array; codes: Int16Array; scale: number; err: number; norm: number };

/** A row filter resolved to the index's interned ids; undefined: every row. */
type RowTest = ((r: number) => boolean) | undefined;

/** Built in memory (tests), built and cached, or loaded from the cache. */
type IndexOrigin = 'memory' | 'built' | 'cache';

export class Int8VectorIndex implements VectorIndex {
  readonly model: string;
  readonly dim: number;
  readonly size: number;
  /** The last search's rows passing the filter, surviving the scan, rescored, and left out as stale (diagnostics). */
  lastTrace = { scanned: 0, candidates: 0, rescored: 0, stale: 0 };
  /** Longest stretch of synchronous scanning (ms) before the search yields; 0 yields after every chunk. */
  yieldMs = 4;
  private parts: IndexParts | undefined;
  private shareInfo: ScanShare | undefined;
  private readonly senderIds: Map<string, number>;
  private readonly sourceIds: Map<string, number>;

  private constructor(
    parts: IndexParts,
    private readonly kernel: KernelExports,
    private rows: RowStore | undefined,
    private readonly origin: IndexOrigin,
    private readonly cacheFile: string | undefined,
  ) {
    this.parts = parts;
    this.model = parts.model;
    this.dim = parts.dim;
    this.size = parts.n;
    this.senderIds = new Map(parts.senders.map((s, i) => [s, i]));
    this.sourceIds = new Map(parts.sources.map((s, i) => [s, i]));
  }

  static async create(parts: IndexParts, rows: RowStore, origin: IndexOrigin, cacheFile?: string) {
    return new Int8VectorIndex(parts, await instantiateKernel(parts.memory), rows, origin, cacheFile);
  }

  /** With residentBytes (WASM memory in use and metadata) against float32Bytes (the plain float32 matrix). */
  get stats() {
    const p = this.parts;
    // scale/err/qnorm live in WASM memory (counted in meta.end); the rest are JS typed arrays.
    const jsMeta = p ? [p.rowids, p.ids, p.conv, p.ts, p.sender, p.source].reduce((n, a) => n + a.byteLength, 0) : 0;
    return {
      ...(p?.stats ?? { indexed: 0, skippedWrongLength: 0, skippedNonFinite: 0 }),
      origin: this.origin,
      dim: this.dim,
      residentBytes: (p ? p.meta.end : 0) + jsMeta,
      float32Bytes: this.size * this.dim * 4,
      cacheFile: this.cacheFile,
    };
  }

  /** What a helper thread needs to share this index's scans (scan-share.ts). */
  share(): ScanShare {
    if (this.shareInfo) return this.shareInfo;
    const { memory, layout, meta, n, dim } = this.live().parts;
    const scratch = helperScratch(layout, meta);
    const have = memory.buffer.byteLength / WASM_PAGE;
    if (pagesFor(scratch.end) > have) memory.grow(pagesFor(scratch.end) - have);
    this.shareInfo = { memory, layout, meta, n, dim, scratch };
    return this.shareInfo;
  }

  dispose(): void {
    this.shareInfo = undefined;
    this.rows?.close();
    this.rows = undefined;
    this.parts = undefined;
  }

  private live(): { parts: IndexParts; rows: RowStore } {
    if (!this.parts || !this.rows)
      throw new VectorIndexError(
        'disposed',
        `the vector index for model ${this.model} was closed (the archive changed or the extension is shutting down); retry the search`,
      );
    return { parts: this.parts, rows: this.rows };
  }

  /** `shared`: a helper thread scans beside this one (unfiltered searches only; a filtered one scans alone). */
  async search(query: Float32Array, k: number, filter?: VectorFilter, signal?: AbortSignal, shared?: SharedScan) {
    throwIfAborted(signal);
    const q = this.quantiseQuery(query, k);
    const test = this.rowTest(filter ?? {});
    // A job the helper may have started on: close it so it takes nothing more (it never scans a filtered search).
    if (test !== undefined && shared)
      closeJob(new Int32Array(shared.job), chunkCount(this.live().parts.layout, this.size));
    if (test === false) {
      this.lastTrace = { scanned: 0, candidates: 0, rescored: 0, stale: 0 };
      return [];
    }
    const found = await this.scan(q, k, test, signal, test ? undefined : shared);
    return this.rescore(q, k, found, signal);
  }

  private quantiseQuery(query: Float32Array, k: number): Query {
    const dim = this.dim;
    if (query.length !== dim)
      throw new VectorIndexError(
        'dimension_mismatch',
        `query has ${query.length} dimensions, the stored vectors of model ${this.model} have ${dim} — the embedding ` +
          'endpoint serves a different model than the one used by `msgbrowse embed`',
      );
    if (!Number.isInteger(k) || k < 1)
      throw new VectorIndexError('invalid_k', `k must be a positive integer, got ${k}`);
    const stride = this.live().parts.layout.stride;
    const codes = new Int16Array(stride);
    const qq = quantiseRow(query, dim, codes, 0, queryLevels(stride));
    if (!qq) throw new VectorIndexError('invalid_query', 'the query vector contains NaN or infinite values');
    if (qq.scale === 0)
      throw new VectorIndexError(
        'zero_query',
        'the query vector has zero length (all components are 0); cosine similarity is undefined',
      );
    let n2 = 0;
    for (let i = 0; i < dim; i++) n2 += query[i] * query[i];
    return { vec: query, codes, scale: qq.scale, err: qq.err, norm: Math.sqrt(n2) };
  }

  /** The filter as a per-row test on typed arrays, or false when no row can match. */
  private rowTest(f: VectorFilter): RowTest | false {
    if (isUnfiltered(f)) return undefined;
    const { parts } = this.live();
    // An interned id for the sender/source filter: -1 = no filter, undefined = no row can match.
    const interned = (kind: 'sender' | 'source', names: readonly string[], ids: Map<string, number>) => {
      const value = f[kind];
      if (value === undefined) return -1;
      if (names.length === 0)
        throw new VectorIndexError(
          'missing_metadata',
          `the vector index of model ${this.model} was built without ${kind}s, so it cannot filter by ${kind}`,
        );
      return ids.get(value);
    };
    const fSender = interned('sender', parts.senders, this.senderIds);
    const fSource = interned('source', parts.sources, this.sourceIds);
    const only = f.onlyMessageIds ? new Set(f.onlyMessageIds) : undefined;
    if (fSender === undefined || fSource === undefined || only?.size === 0) return false;
    const hidden = f.excludeConversationIds?.length ? new Set(f.excludeConversationIds) : undefined;
    const skip = f.skipMessageIds?.length ? new Set(f.skipMessageIds) : undefined;
    const { conv, ts, sender, source, ids } = parts;
    const { conversationId: c, startUnix: start, endUnix: end } = f;
    // One closure of plain comparisons: V8 inlines it into the scan loop.
    return (r) =>
      (c === undefined || conv[r] === c) &&
      (start === undefined || ts[r] >= start) &&
      (end === undefined || ts[r] <= end) &&
      (fSender < 0 || sender[r] === fSender) &&
      (fSource < 0 || source[r] === fSource) &&
      (hidden === undefined || !hidden.has(conv[r])) &&
      (only === undefined || only.has(ids[r])) &&
      (skip === undefined || !skip.has(ids[r]));
  }

  /** Scores the rows a chunk at a time, keeping the candidates; with `shared`, the helper's findings merged. */
  private async scan(q: Query, k: number, test: RowTest, signal: AbortSignal | undefined, shared?: SharedScan) {
    let found = new Candidates(k);
    const { parts } = this.live();
    const chunks = chunkCount(parts.layout, this.size);
    const view = new ChunkScan(this.kernel, parts.memory, parts.layout, parts.meta, parts.n, parts.layout);
    const scoreChunk = (c: number) => {
      this.live(); // throws once the index was closed
      found.scoreChunk(view, q.codes, q.scale, q.err, c, test);
    };
    const job = shared ? new Int32Array(shared.job) : undefined;
    let sequential = 0;
    const next = (): number => (job ? claimChunk(job, chunks) : sequential < chunks ? sequential++ : -1);
    let lastYield = performance.now();
    for (let c = next(), first = true; c >= 0; c = next(), first = false) {
      if (!first && performance.now() - lastYield >= this.yieldMs) {
        await yieldToEventLoop();
        throwIfAborted(signal);
        lastYield = performance.now();
      }
      scoreChunk(c);
    }
    if (shared) {
      const helped = await untilAborted(shared.helped, signal);
      this.live();
      if (!helped.lost) {
        for (const c of helped.unscanned) scoreChunk(c);
        found.merge(helped);
      } else {
        // Which chunks the helper took is unknown: scan everything here, and use nothing of its answer.
        found = new Candidates(k);
        for (let c = 0; c < chunks; c++) scoreChunk(c);
      }
    }
    found.prune();
    return found;
  }

  /** Exact cosine of the candidates, in descending order of upper bound, until none left can enter the top k. */
  private async rescore(q: Query, k: number, found: Candidates, signal: AbortSignal | undefined): Promise<VectorHit[]> {
    const dim = this.dim;
    const { n: nc, rows: candRows, upper: candUpper } = found;
    const order = new Uint32Array(nc);
    for (let i = 0; i < nc; i++) order[i] = i;
    order.sort((x, y) => candUpper[y] - candUpper[x]);
    const top = new TopHits(k);
    let pos = 0;
    // The stop test runs per batch and k rows and a few more usually suffice: small batches, doubling past 256 rows.
    const step = Math.max(8, Math.ceil(k / 4));
    let batch = Math.max(24, k);
    let rescored = 0;
    let stale = 0;
    let rowBuf = new Float32Array(0);
    let batchRows = new Int32Array(0);
    while (pos < nc) {
      if (top.full && top.kth > candUpper[order[pos]]) break;
      const { rows, parts: p } = this.live();
      const end = Math.min(nc, pos + batch);
      const cnt = end - pos;
      if (batchRows.length < cnt) batchRows = new Int32Array(cnt);
      for (let i = 0; i < cnt; i++) batchRows[i] = candRows[order[pos + i]];
      const sorted = batchRows.subarray(0, cnt).sort();
      if (rowBuf.length < cnt * dim) rowBuf = new Float32Array(cnt * dim);
      rows.readRows(sorted, cnt, rowBuf);
      for (let i = 0; i < cnt; i++) {
        const vec = rowBuf.subarray(i * dim, i * dim + dim);
        // A row re-embedded, deleted or whose rowid was reused no longer matches its int8 row: left out until a rebuild.
        if (!this.rowMatches(p, sorted[i], vec)) {
          stale++;
          continue;
        }
        top.offer({ messageId: p.ids[sorted[i]], score: exactCosine(q.vec, q.norm, vec, dim) });
      }
      rescored += cnt;
      pos = end;
      batch = rescored >= 256 ? Math.min(batch * 2, 8192) : step;
      if (pos < nc && rescored >= 65536) {
        await yieldToEventLoop();
        throwIfAborted(signal);
      }
    }
    // A search cancelled while it ran never resolves with results, even when it finished without yielding.
    throwIfAborted(signal);
    this.lastTrace = { scanned: found.scanned, candidates: nc, rescored, stale };
    return top.items;
  }

  /**
   * Whether `vec` is (still) the vector row `r` was quantised from, in the sense the exactness bound needs:
   * ‖v̂ − s·c‖ ≤ err for the stored codes c, scale s and err (a zero vector: scale 0). A missing row reads as NaN.
   */
  private rowMatches(p: IndexParts, r: number, vec: Float32Array): boolean {
    const dim = this.dim;
    let n2 = 0;
    for (let j = 0; j < dim; j++) n2 += vec[j] * vec[j];
    if (!Number.isFinite(n2)) return false;
    const s = p.scale[r];
    if (n2 === 0) return s === 0;
    const codes = new Int8Array(p.memory.buffer, p.layout.matrixOff + r * p.layout.stride, dim);
    const inv = 1 / Math.sqrt(n2);
    let e2 = 0;
    for (let j = 0; j < dim; j++) {
      const e = vec[j] * inv - s * codes[j];
      e2 += e * e;
    }
    return Math.sqrt(e2) <= p.err[r];
  }
}
