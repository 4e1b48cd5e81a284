/**
 * Accumulates embedding records into an index: int8 rows written straight into the WebAssembly memory the kernel
 * scores, per-row metadata for filtering, per-row quantisation numbers for the exactness bound, and the original
 * float32 rows handed to a RowSink (memory or the cache file).
 */
import type { Archive, EmbeddingRecord, JoinedKeys } from '../../archive/types';
import { arenaBytes, MappedArena } from '../../archive/mapped-arena';
import { VectorIndexError } from './errors';
import { layoutFor, MAX_PAGES, metaLayout, pagesFor, WASM_PAGE, type MemoryLayout, type MetaLayout } from './layout';
import { strideFor } from './quantize';
import { JsRowQuantiser, type RowQuantiser } from './row-quantiser';
import type { RowSink } from './row-store';
import type { WasmMemory } from '../kernel/wasm-api';
import { kernelMemory } from '../kernel/kernel';

export interface BuildStats {
  /** Rows in the index. */
  indexed: number;
  /** Records whose vector length differed from the index dimension (skipped). */
  skippedWrongLength: number;
  /** Records whose vector held NaN or infinity (skipped). */
  skippedNonFinite: number;
}

/**
 * Every record the build read: the model's stored vectors whose message exists (the archive's iterator drops
 * orphans), indexed or skipped. That is the archive's vector coverage of the model (`scopeCounts` for the whole
 * archive), counted for free by the build.
 */
function recordsRead(stats: BuildStats | undefined): number | undefined {
  // (A cache file's header carries them as JSON: anything but counts means "not known".)
  const parts = [stats?.indexed, stats?.skippedWrongLength, stats?.skippedNonFinite];
  return parts.every((x) => Number.isSafeInteger(x) && (x as number) >= 0) ? (parts as number[]).reduce((a, b) => a + b, 0) : undefined;
}

/**
 * Hands the vector coverage a build counted (or a cache file recorded) to the archive it was built from, for its
 * search receipts: kept only while the archive still has `fingerprint` (Archive.primeModelCoverage). Only an
 * optimisation, so it never fails the load or build it follows (a changed file, an interrupt): `log` hears why not.
 */
export function keepBuildCoverage(
  archive: Pick<Archive, 'primeModelCoverage'>,
  model: string,
  stats: BuildStats | undefined,
  fingerprint: string | undefined,
  log: (message: string) => void,
): void {
  const count = recordsRead(stats);
  if (fingerprint === undefined || count === undefined) return;
  try {
    archive.primeModelCoverage(model, count, fingerprint);
  } catch (e) {
    log(`vector coverage of ${model} not kept: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Everything a built (or loaded) index consists of, besides the float32 rows. */
export interface IndexParts {
  model: string;
  dim: number;
  n: number;
  layout: MemoryLayout;
  memory: WasmMemory;
  /** Where the scale/err/qnorm planes sit in `memory` (the arrays below are views of them). */
  meta: MetaLayout;
  /** Where each row's float vector is read back from for exact rescoring (the archive's embedding rowid). */
  rowids: Float64Array;
  ids: Float64Array;
  conv: Int32Array;
  ts: Float64Array;
  /** Interned sender per row (index into `senders`), -1 when unknown. */
  sender: Int32Array;
  /** Interned source per row (index into `sources`), -1 when unknown. */
  source: Int32Array;
  senders: string[];
  sources: string[];
  /** Views into `memory` (the kernel reads them too). */
  scale: Float32Array;
  err: Float32Array;
  qnorm: Float32Array;
  stats: BuildStats;
}

/** Makes sure `memory` holds `bytes`; a clear error past the 4 GiB wasm32 limit. */
export function ensureMemory(memory: WasmMemory, bytes: number, model: string): void {
  const have = memory.buffer.byteLength / WASM_PAGE;
  const need = pagesFor(bytes);
  if (need <= have) return;
  if (need > MAX_PAGES) {
    throw new VectorIndexError(
      'too_large',
      `the vector index for model ${model} needs ${(bytes / 2 ** 30).toFixed(2)} GiB, more than the 4 GiB a WebAssembly memory can hold`,
    );
  }
  memory.grow(Math.min(MAX_PAGES, Math.max(need, Math.ceil(have * 1.5))) - have);
}

/** A new shared kernel memory of at least `bytes` (a clear error past the 4 GiB wasm32 limit). */
export function kernelMemoryFor(bytes: number, model: string): WasmMemory {
  const memory = kernelMemory(1);
  ensureMemory(memory, bytes, model);
  return memory;
}

/** Where the per-row planes of `n` rows go in `memory` (grown to hold them), and views of them to fill. */
export function planesAfter(memory: WasmMemory, layout: MemoryLayout, n: number, model: string): { meta: MetaLayout; scale: Float32Array; err: Float32Array; qnorm: Float32Array } {
  const meta = metaLayout(layout, n);
  ensureMemory(memory, meta.end, model);
  return { meta, ...metaViews(memory, meta, n) };
}

/** Views of the three per-row planes in WebAssembly memory. */
export function metaViews(memory: WasmMemory, meta: MetaLayout, n: number): { scale: Float32Array; err: Float32Array; qnorm: Float32Array } {
  return {
    scale: new Float32Array(memory.buffer, meta.metaOff, n),
    err: new Float32Array(memory.buffer, meta.metaOff + meta.plane, n),
    qnorm: new Float32Array(memory.buffer, meta.metaOff + 2 * meta.plane, n),
  };
}

type Typed = Float64Array | Float32Array | Int32Array;

function grow<T extends Typed>(a: T, need: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  next.set(a);
  return next;
}

export interface BuilderOptions {
  model: string;
  /** Expected dimension; when absent the first record's length is used. */
  dim?: number;
  /** Expected number of rows (pre-sizes buffers). */
  expected?: number;
  /** Creates the sink for the original float rows once the dimension is known; absent: they are not kept. */
  sink?: (dim: number) => RowSink;
  /**
   * Quantises each row (default: the JS reference quantiser). consumeRecords passes the kernel's, which is several
   * times faster but needs an async instantiation (see row-quantiser.ts).
   */
  quantiser?: RowQuantiser;
  /**
   * One range of a build split between threads (split.ts): rows go into this shared memory, pre-sized for every
   * row, at the slots `slots` hands out; the memory never grows. Absent: a memory of the builder's own, grown as
   * rows arrive, rows at 0, 1, 2….
   */
  placement?: { memory: WasmMemory; slots: RowSlots };
  /**
   * A build in one thread: the memory {@link wholeBuildMemory} made for it ahead of the build (so that another thread
   * can commit its pages meanwhile, prefault.ts). Used when it holds the expected rows, else the builder makes its own.
   */
  memory?: WasmMemory;
}

/** Throws the builder's error for a dimension an index cannot have. */
function checkDimension(dim: number): void {
  if (!Number.isInteger(dim) || dim < 1 || dim > 16384) {
    throw new VectorIndexError('invalid_dimension', `embedding dimension ${dim} is not supported (1 to 16384)`);
  }
}

/** The bytes a builder's own memory starts with for `expected` rows of `dim` (its rows, then their planes). */
function wholeBuildBytes(dim: number, expected: number | undefined): number {
  return metaLayout(layoutFor(strideFor(dim)), Math.max(1024, expected ?? 0)).end;
}

/**
 * The memory a one-thread build of `expected` rows of `dim` starts with, made before the build (BuilderOptions.memory),
 * and the byte range its rows and planes will be written to.
 */
export function wholeBuildMemory(dim: number, expected: number): { memory: WasmMemory; bytes: number } {
  checkDimension(dim);
  const bytes = wholeBuildBytes(dim, expected);
  if (pagesFor(bytes) > MAX_PAGES) {
    throw new VectorIndexError('too_large', `${expected} vectors of dimension ${dim} need ${(bytes / 2 ** 30).toFixed(1)} GiB, past the 4 GiB a memory can hold`);
  }
  return { memory: kernelMemory(pagesFor(bytes)), bytes };
}

/** Where a split build's range puts its rows (split.ts's SlotClaims). */
export interface RowSlots {
  /** The row index of the range's k-th usable row. */
  row(k: number): number;
  /** Takes a slot for the next row; throws when the shared memory has none left. */
  claim(model: string): void;
  /** Gives back the slot of a row that turned out unusable. */
  release(): void;
}

/** A builder's rows and per-row arrays without the planes written into memory (a split build's range). */
export interface BuiltRows extends Omit<IndexParts, 'model' | 'memory' | 'meta' | 'scale' | 'err' | 'qnorm'> {
  scale: Float32Array;
  err: Float32Array;
  qnorm: Float32Array;
}

export class IndexBuilder {
  private dim: number | undefined;
  private layout: MemoryLayout | undefined;
  private memory: WasmMemory | undefined;
  private codes: Int8Array | undefined;
  private sink: RowSink | undefined;
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
  /** Each row's `joinKey`, for the rows of a stream joined later (its message columns come with {@link join}). */
  private keys = new Int32Array(0);
  /** Such a stream's skipped rows, counted by {@link join} (an orphan is not a skipped row, as in a joined stream). */
  private readonly skippedKeys: { wrongLength: number[]; nonFinite: number[] } = { wrongLength: [], nonFinite: [] };
  private readonly senderIds = new Map<string, number>();
  private readonly sourceIds = new Map<string, number>();
  private skippedWrongLength = 0;
  private skippedNonFinite = 0;
  private readonly quantiser: RowQuantiser;

  constructor(private readonly opts: BuilderOptions) {
    this.quantiser = opts.quantiser ?? new JsRowQuantiser();
    this.cap = Math.max(1024, opts.expected ?? 0);
    if (opts.dim !== undefined) this.start(opts.dim);
  }

  get count(): number {
    return this.n;
  }

  private start(dim: number): void {
    checkDimension(dim);
    this.dim = dim;
    this.layout = layoutFor(strideFor(dim));
    const placement = this.opts.placement;
    if (placement) {
      // Sized by whoever split the build (split.ts): the claims keep every row inside it.
      this.memory = placement.memory;
    } else {
      const bytes = wholeBuildBytes(dim, this.cap);
      const given = this.opts.memory;
      // Shared (kernelMemory): a build in another thread posts it to the searching thread as is.
      this.memory = given && given.buffer.byteLength >= bytes ? given : kernelMemory(Math.min(MAX_PAGES, pagesFor(bytes)));
    }
    this.codes = new Int8Array(this.memory.buffer);
    this.sink = this.opts.sink?.(dim);
  }

  private ensureRow(): void {
    const layout = this.layout!;
    const memory = this.memory!;
    const need = layout.matrixOff + (this.n + 1) * layout.stride;
    if (!this.opts.placement && need > memory.buffer.byteLength) {
      ensureMemory(memory, need, this.opts.model);
      this.codes = new Int8Array(memory.buffer);
    }
    if (this.n === 0 && this.ids.length === 0) this.allocRows(this.cap);
    else if (this.n >= this.ids.length) {
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
      this.keys = grow(this.keys, need2);
    }
  }

  /**
   * The per-row arrays' first allocation, for `k` rows (the expected count): one buffer malloc maps by itself rather than
   * ten arrays from the thread's arena (mapped-arena.ts: what a build thread would leave resident). finish() returns copies of them.
   */
  private allocRows(k: number): void {
    const rows = [
      [Float64Array, k],
      [Float64Array, k],
      [Float64Array, k],
      [Int32Array, k],
      [Int32Array, k],
      [Int32Array, k],
      [Float32Array, k],
      [Float32Array, k],
      [Float32Array, k],
      [Int32Array, k],
    ] as const;
    [this.ids, this.rowids, this.ts, this.conv, this.sender, this.source, this.scale, this.err, this.qnorm, this.keys] = new MappedArena(arenaBytes(rows)).arrays(rows);
  }

  private intern(map: Map<string, number>, value: string | undefined): number {
    if (value === undefined) return -1;
    let id = map.get(value);
    if (id === undefined) {
      id = map.size;
      map.set(value, id);
    }
    return id;
  }

  add(rec: EmbeddingRecord): void {
    const vec = rec.vec;
    if (this.dim === undefined) {
      if (vec.length === 0) {
        this.skip(rec, 'wrongLength');
        return;
      }
      this.start(vec.length);
    }
    if (vec.length !== this.dim) {
      this.skip(rec, 'wrongLength');
      return;
    }
    this.ensureRow();
    const layout = this.layout!;
    const q = this.quantiser;
    const slots = this.opts.placement?.slots;
    slots?.claim(this.opts.model);
    const at = this.rowOffset(this.n);
    if (!q.quantise(vec, this.dim!, this.codes!, at)) {
      // Codes written so far are overwritten by the next row; zero them so padding invariants hold regardless.
      this.codes!.fill(0, at, at + layout.stride);
      slots?.release();
      this.skip(rec, 'nonFinite');
      return;
    }
    const i = this.n;
    this.ids[i] = rec.messageId;
    this.rowids[i] = rec.rowid;
    this.conv[i] = rec.conversationId;
    this.ts[i] = rec.tsUnix;
    if (rec.joinKey === undefined) {
      this.sender[i] = this.intern(this.senderIds, rec.sender);
      this.source[i] = this.intern(this.sourceIds, rec.source);
    } else this.keys[i] = rec.joinKey;
    this.scale[i] = q.scale;
    this.err[i] = q.err;
    this.qnorm[i] = q.qnorm;
    this.sink?.append(vec);
    this.n++;
  }

  /** Where the builder's k-th row goes in memory (a split range's slot, else row k). */
  private rowOffset(k: number): number {
    const slots = this.opts.placement?.slots;
    return this.layout!.matrixOff + (slots ? slots.row(k) : k) * this.layout!.stride;
  }

  private skip(rec: EmbeddingRecord, why: 'wrongLength' | 'nonFinite'): void {
    if (rec.joinKey !== undefined) this.skippedKeys[why].push(rec.joinKey);
    else if (why === 'wrongLength') this.skippedWrongLength++;
    else this.skippedNonFinite++;
  }

  /**
   * The records of a stream joined later (UnjoinedEmbeddings), once it has ended: each row takes its message's
   * columns, rows without a message (orphans) are removed (the rows after them move up, a split range's slots of
   * them are given back), and skipped rows count only when they have a message. Afterwards the rows are those the
   * joined stream would have built, in the same order.
   */
  join(joined: JoinedKeys): void {
    // The rows a sink kept would no longer line up with the index's (no stream joined later has one).
    if (this.sink) throw new Error('IndexBuilder.join: a builder whose float rows go to a sink cannot be joined later');
    const counted = (keys: number[]) => keys.filter((k) => joined.messageOf(k) !== undefined).length;
    this.skippedWrongLength += counted(this.skippedKeys.wrongLength);
    this.skippedNonFinite += counted(this.skippedKeys.nonFinite);
    this.skippedKeys.wrongLength = [];
    this.skippedKeys.nonFinite = [];
    if (this.dim === undefined) return;
    const layout = this.layout!;
    const slots = this.opts.placement?.slots;
    const codes = this.codes!;
    let w = 0;
    for (let r = 0; r < this.n; r++) {
      const m = joined.messageOf(this.keys[r]);
      if (!m) continue;
      if (w !== r) {
        // w < r: row w was read already (kept or dropped), so nothing unread is overwritten.
        codes.copyWithin(this.rowOffset(w), this.rowOffset(r), this.rowOffset(r) + layout.stride);
        this.rowids[w] = this.rowids[r];
        this.scale[w] = this.scale[r];
        this.err[w] = this.err[r];
        this.qnorm[w] = this.qnorm[r];
      }
      this.ids[w] = m.messageId;
      this.conv[w] = m.conversationId;
      this.ts[w] = m.tsUnix;
      this.sender[w] = this.intern(this.senderIds, m.sender);
      this.source[w] = this.intern(this.sourceIds, m.source);
      w++;
    }
    // The dropped rows' codes are zeroed (as a skipped row's are), all of them before a split range gives their
    // slots back: the other range, still claiming, may write into a slot as soon as it is free.
    for (let r = w; r < this.n; r++) codes.fill(0, this.rowOffset(r), this.rowOffset(r) + layout.stride);
    for (let r = w; r < this.n; r++) slots?.release();
    this.n = w;
  }

  /**
   * A split build's range (`placement`): its per-row arrays, its int8 rows left where the slots put them; undefined
   * when no record had a usable length.
   */
  finishRows(): BuiltRows | undefined {
    if (this.dim === undefined) return undefined;
    const n = this.n;
    return { ...this.rowArrays(this.dim), scale: this.scale.slice(0, n), err: this.err.slice(0, n), qnorm: this.qnorm.slice(0, n) };
  }

  /** What both finishes return of the rows built: the per-row arrays cut to length, the interned names, the counts. */
  private rowArrays(dim: number): Omit<BuiltRows, 'scale' | 'err' | 'qnorm'> {
    const n = this.n;
    return {
      dim,
      n,
      layout: this.layout!,
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

  /** The finished parts; `undefined` dim (no usable record at all) is reported as an error by the caller. */
  finish(): IndexParts | undefined {
    if (this.opts.placement) throw new Error('IndexBuilder: a split build range finishes with finishRows()');
    if (this.dim === undefined) return undefined;
    const n = this.n;
    const memory = this.memory!;
    const planes = planesAfter(memory, this.layout!, n, this.opts.model);
    planes.scale.set(this.scale.subarray(0, n));
    planes.err.set(this.err.subarray(0, n));
    planes.qnorm.set(this.qnorm.subarray(0, n));
    this.scale = this.err = this.qnorm = new Float32Array(0);
    return { ...this.rowArrays(this.dim), model: this.opts.model, memory, ...planes };
  }
}
