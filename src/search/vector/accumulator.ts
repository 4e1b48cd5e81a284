/**
 * Accumulates embedding records into an index: int8 rows straight into the kernel's memory, per-row metadata for
 * filtering and quantisation numbers for the exactness bound. The float rows are not kept.
 */
import type { Archive, EmbeddingRecord } from '../../archive/types';
import { VectorIndexError } from './errors';
import { layoutFor, MAX_PAGES, metaLayout, pagesFor, WASM_PAGE, type MemoryLayout, type MetaLayout } from './layout';
import { strideFor } from './quantize';
import type { RowQuantiser } from './row-quantiser';
import type { WasmMemory } from '../kernel/wasm-api';
import { kernelMemory } from '../kernel/kernel';

/** Rows indexed, and records skipped for a wrong length or a NaN / infinity. */
export interface BuildStats {
  indexed: number;
  skippedWrongLength: number;
  skippedNonFinite: number;
}

/** Primes the archive's vector coverage of `model` from a build's counts while `fingerprint` holds; never throws. */
export function keepBuildCoverage(
  archive: Pick<Archive, 'primeModelCoverage'>,
  model: string,
  stats: BuildStats | undefined,
  fingerprint: string | undefined,
  log: (message: string) => void,
): void {
  const counts = [stats?.indexed, stats?.skippedWrongLength, stats?.skippedNonFinite];
  // A cache header is untrusted JSON.
  if (fingerprint === undefined || !counts.every((x) => Number.isSafeInteger(x) && (x as number) >= 0)) return;
  const read = (counts as number[]).reduce((x, y) => x + y, 0);
  try {
    archive.primeModelCoverage(model, read, fingerprint);
  } catch (e) {
    log(`vector coverage of ${model} not kept: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Everything a built (or loaded) index consists of, besides the float32 rows. */
export interface IndexParts extends RowBounds {
  model: string;
  dim: number;
  n: number;
  layout: MemoryLayout;
  memory: WasmMemory;
  /** Where the scale/err/qnorm planes sit in `memory`. */
  meta: MetaLayout;
  /** The archive's embedding rowid of each row, where rescoring reads its float vector back. */
  rowids: Float64Array;
  ids: Float64Array;
  conv: Int32Array;
  ts: Float64Array;
  /** Interned per row (an index into `senders` / `sources`), -1 when unknown. */
  sender: Int32Array;
  source: Int32Array;
  senders: string[];
  sources: string[];
  stats: BuildStats;
}

/** Makes sure `memory` holds `bytes`; a clear error past the 4 GiB wasm32 limit. */
function ensureMemory(memory: WasmMemory, bytes: number, model: string): void {
  const have = memory.buffer.byteLength / WASM_PAGE;
  const need = pagesFor(bytes);
  if (need <= have) return;
  if (need > MAX_PAGES)
    throw new VectorIndexError(
      'too_large',
      `the vector index for model ${model} needs ${(bytes / 2 ** 30).toFixed(2)} GiB, more than the 4 GiB a WebAssembly memory can hold`,
    );
  memory.grow(Math.min(MAX_PAGES, Math.max(need, Math.ceil(have * 1.5))) - have);
}

/** The per-row quantisation numbers: views of the three planes in WebAssembly memory (the kernel reads them too). */
export interface RowBounds {
  scale: Float32Array;
  err: Float32Array;
  qnorm: Float32Array;
}

export function metaViews(memory: WasmMemory, meta: MetaLayout, n: number): RowBounds {
  return {
    scale: new Float32Array(memory.buffer, meta.metaOff, n),
    err: new Float32Array(memory.buffer, meta.metaOff + meta.plane, n),
    qnorm: new Float32Array(memory.buffer, meta.metaOff + 2 * meta.plane, n),
  };
}

/** `a`, or a copy at least twice as long when it holds fewer than `need` values. */
export function grow<T extends Float64Array | Float32Array | Int32Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  next.set(a);
  return next;
}

interface BuilderOptions {
  model: string;
  /** Default: the first record's length. */
  dim?: number;
  expected?: number;
  quantiser: RowQuantiser;
}

export class IndexBuilder {
  private dim: number | undefined;
  private layout: MemoryLayout | undefined;
  private memory: WasmMemory | undefined;
  private codes: Int8Array | undefined;
  private n = 0;
  private cap: number;
  private ids = new Float64Array(0);
  private rowids = new Float64Array(0);
  private conv = new Int32Array(0);
  private ts = new Float64Array(0);
  private sender = new Int32Array(0);
  private source = new Int32Array(0);
  private scale = new Float32Array(0);
  private err = new Float32Array(0);
  private qnorm = new Float32Array(0);
  private readonly senderIds = new Map<string, number>();
  private readonly sourceIds = new Map<string, number>();
  private skippedWrongLength = 0;
  private skippedNonFinite = 0;

  constructor(private readonly opts: BuilderOptions) {
    this.cap = Math.max(1024, opts.expected ?? 0);
    if (opts.dim !== undefined) this.start(opts.dim);
  }

  private start(dim: number): void {
    if (!Number.isInteger(dim) || dim < 1 || dim > 16384)
      throw new VectorIndexError('invalid_dimension', `embedding dimension ${dim} is not supported (1 to 16384)`);
    this.dim = dim;
    this.layout = layoutFor(strideFor(dim));
    // Shared (kernelMemory): a build in another thread posts it to the searching thread as is.
    this.memory = kernelMemory(Math.min(MAX_PAGES, pagesFor(metaLayout(this.layout, this.cap).end)));
    this.codes = new Int8Array(this.memory.buffer);
  }

  private ensureRow(): void {
    const layout = this.layout!;
    const memory = this.memory!;
    const need = layout.matrixOff + (this.n + 1) * layout.stride;
    if (need > memory.buffer.byteLength) {
      ensureMemory(memory, need, this.opts.model);
      this.codes = new Int8Array(memory.buffer);
    }
    if (this.n >= this.ids.length) {
      const need2 = Math.max(this.n + 1, this.cap);
      this.ids = grow(this.ids, need2);
      this.rowids = grow(this.rowids, need2);
      this.conv = grow(this.conv, need2);
      this.ts = grow(this.ts, need2);
      this.sender = grow(this.sender, need2);
      this.source = grow(this.source, need2);
      this.scale = grow(this.scale, need2);
      this.err = grow(this.err, need2);
      this.qnorm = grow(this.qnorm, need2);
    }
  }

  private intern(map: Map<string, number>, value: string | undefined): number {
    if (value === undefined) return -1;
    let id = map.get(value);
    if (id === undefined) map.set(value, (id = map.size));
    return id;
  }

  add(rec: EmbeddingRecord): void {
    const vec = rec.vec;
    if (this.dim === undefined && vec.length > 0) this.start(vec.length);
    if (vec.length !== this.dim) {
      this.skippedWrongLength++;
      return;
    }
    this.ensureRow();
    const layout = this.layout!;
    const q = this.opts.quantiser;
    const at = layout.matrixOff + this.n * layout.stride;
    if (!q.quantise(vec, this.dim!, this.codes!, at)) {
      // Codes written so far are overwritten by the next row; zero them so padding invariants hold regardless.
      this.codes!.fill(0, at, at + layout.stride);
      this.skippedNonFinite++;
      return;
    }
    const i = this.n;
    this.ids[i] = rec.messageId;
    this.rowids[i] = rec.rowid;
    this.conv[i] = rec.conversationId;
    this.ts[i] = rec.tsUnix;
    this.sender[i] = this.intern(this.senderIds, rec.sender);
    this.source[i] = this.intern(this.sourceIds, rec.source);
    this.scale[i] = q.scale;
    this.err[i] = q.err;
    this.qnorm[i] = q.qnorm;
    this.n++;
  }

  /** Undefined when no record had a usable length (the caller reports it). */
  finish(): IndexParts | undefined {
    if (this.dim === undefined) return undefined;
    const n = this.n;
    const memory = this.memory!;
    const meta = metaLayout(this.layout!, n);
    ensureMemory(memory, meta.end, this.opts.model);
    const planes = metaViews(memory, meta, n);
    planes.scale.set(this.scale.subarray(0, n));
    planes.err.set(this.err.subarray(0, n));
    planes.qnorm.set(this.qnorm.subarray(0, n));
    this.scale = this.err = this.qnorm = new Float32Array(0);
    return {
      model: this.opts.model,
      dim: this.dim,
      n,
      layout: this.layout!,
      memory,
      meta,
      ...planes,
      rowids: this.rowids.slice(0, n),
      ids: this.ids.slice(0, n),
      conv: this.conv.slice(0, n),
      ts: this.ts.slice(0, n),
      sender: this.sender.slice(0, n),
      source: this.source.slice(0, n),
      senders: [...this.senderIds.keys()],
      sources: [...this.sourceIds.keys()],
      stats: { indexed: n, skippedWrongLength: this.skippedWrongLength, skippedNonFinite: this.skippedNonFinite },
    };
  }
}
