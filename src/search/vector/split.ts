/**
 * A build split between threads: each thread streams one rowid range of the model's embeddings and quantises it
 * into one shared kernel memory, sized up front for every row the model had when the build started. The first range
 * fills rows 0, 1, 2… and the second fills rows from the top down (capacity−1, capacity−2…), so neither needs to know
 * how many usable rows the other will find. Every row claims a slot from a counter both threads share, so the two
 * ends can never meet; a range that finds more rows than are left (the archive grew since it was counted) fails with
 * `split_overflow`, and the caller builds again in one thread.
 *
 * At the end the top-down range reverses its rows in place, so they ascend again; `mergeSplitParts` moves them down
 * to just after the first range's rows (only when rows were skipped or missing: orphans, damaged or non-finite
 * vectors) and joins the per-row arrays. The result is the parts a one-thread build of the same rows gives, byte for
 * byte (test/search/split-build.test.ts).
 */
import { kernelMemoryFor, planesAfter, type BuiltRows, type IndexParts, type RowSlots } from './accumulator';
import { VectorIndexError } from './errors';
import { layoutFor, metaLayout } from './layout';
import { strideFor } from './quantize';
import { buffersOf } from './transfer';
import type { WasmMemory } from '../kernel/wasm-api';

/** Where one range's rows go in the shared memory. */
export interface RowPlacement {
  /** Shared (kernelMemory), at least `splitMemoryBytes(layout, capacity)` long; both ranges write into it. */
  memory: WasmMemory;
  /** Rows the memory holds: the model's row count when the build started. */
  capacity: number;
  /** One Int32: slots still free, claimed by both ranges (Atomics). Starts at `capacity`. */
  free: SharedArrayBuffer;
  /** `start`: rows 0, 1, 2…; `end`: rows capacity−1, capacity−2…, reversed in place by the range's finish. */
  from: 'start' | 'end';
}

/** What one range of a split build hands back: its rows' arrays; its int8 rows are in the shared memory. */
export interface SplitPart extends BuiltRows {
  /** Row index in the shared memory of this part's first row (0, or capacity − n for the top-down range). */
  at: number;
}

/**
 * The two placements of a build of `dim`-dimensional rows split in two: one shared memory for `capacity` rows and
 * their per-row planes (a clear error past the 4 GiB wasm32 limit), one counter of free slots.
 */
export function splitPlacements(model: string, dim: number, capacity: number): [RowPlacement, RowPlacement] {
  if (!Number.isSafeInteger(capacity) || capacity < 1 || capacity > 2 ** 31 - 1) throw new RangeError(`splitPlacements: capacity ${capacity}`);
  const layout = layoutFor(strideFor(dim));
  const memory = kernelMemoryFor(metaLayout(layout, capacity).end, model);
  const free = new SharedArrayBuffer(4);
  Atomics.store(new Int32Array(free), 0, capacity);
  return [
    { memory, capacity, free, from: 'start' },
    { memory, capacity, free, from: 'end' },
  ];
}

/** Claims and releases slots of a RowPlacement; `row(k)` is where the range's k-th usable row goes. */
export class SlotClaims implements RowSlots {
  private readonly free: Int32Array;

  constructor(readonly placement: RowPlacement) {
    this.free = new Int32Array(placement.free);
  }

  row(k: number): number {
    return this.placement.from === 'start' ? k : this.placement.capacity - 1 - k;
  }

  /** Takes a slot for the next row, or fails the range when none is left. */
  claim(model: string): void {
    // Compare-and-swap, so a slot given back by the other range at the same moment is never missed.
    for (let left = Atomics.load(this.free, 0); left > 0; ) {
      const seen = Atomics.compareExchange(this.free, 0, left, left - 1);
      if (seen === left) return;
      left = seen;
    }
    throw new VectorIndexError(
      'split_overflow',
      `the embeddings of model ${model} outnumber the ${this.placement.capacity} counted when the build started (the archive changed during the build)`,
    );
  }

  /** Gives back the slot of a row that turned out unusable. */
  release(): void {
    Atomics.add(this.free, 0, 1);
  }
}

/**
 * A range's finished rows as a SplitPart: the top-down range's rows (at capacity−1, capacity−2…) are reversed in
 * place first, so that they ascend from capacity − n like the per-row arrays.
 */
export function settleRows(rows: BuiltRows, placement: RowPlacement): SplitPart {
  if (placement.from === 'start') return { ...rows, at: 0 };
  const at = placement.capacity - rows.n;
  reverseRows(new Int8Array(placement.memory.buffer), rows.layout.matrixOff, rows.layout.stride, at, rows.n);
  return { ...rows, at };
}

/** Reverses the order of rows [from, from + n) of `codes` in place (`stride` bytes each). */
function reverseRows(codes: Int8Array, matrixOff: number, stride: number, from: number, n: number): void {
  const tmp = new Int8Array(stride);
  for (let i = from, j = from + n - 1; i < j; i++, j--) {
    const a = matrixOff + i * stride;
    const b = matrixOff + j * stride;
    tmp.set(codes.subarray(a, a + stride));
    codes.copyWithin(a, b, b + stride);
    codes.set(tmp, b);
  }
}

/** A part's per-row arrays, to move it between threads without a copy (its int8 rows are in shared memory). */
export function splitPartTransfer(part: SplitPart): ArrayBuffer[] {
  return buffersOf([part.rowids, part.ids, part.conv, part.ts, part.sender, part.source, part.scale, part.err, part.qnorm]);
}

function concat<T extends Float64Array | Float32Array | Int32Array>(a: T, b: T): T {
  const out = new (a.constructor as new (n: number) => T)(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** `b`'s interned ids as ids into `names` (extended with the strings it lacks). */
function remap(ids: Int32Array, own: string[], names: string[], index: Map<string, number>): Int32Array {
  const to = own.map((s) => {
    let id = index.get(s);
    if (id === undefined) {
      id = names.length;
      names.push(s);
      index.set(s, id);
    }
    return id;
  });
  return ids.map((x) => (x < 0 ? x : to[x]));
}

/**
 * Rows of the second range left behind past the merged index (rows the count included but the build skipped:
 * orphans, damaged or non-finite vectors) were written, so their pages stay resident for nothing. Above this many
 * bytes, and above a quarter of the index, the merged index moves to a memory of its own size: a copy of the whole
 * index, with both memories resident meanwhile, is worth it only for that much (after a re-import that orphaned
 * many vectors, say), not for a few percent.
 */
export const COMPACT_ABOVE_BYTES = 16 << 20;

/**
 * The index parts of a split build: `first` (rows from the start) and `second` (rows from the end, already
 * reversed), both in `memory`. Moves the second range's rows down after the first's when there is a gap, then
 * writes the per-row planes after them, as IndexBuilder.finish does. When the gap left more written rows behind than
 * `compactAbove` bytes (default: COMPACT_ABOVE_BYTES and a quarter of the index), the index is copied into a new
 * memory of its own size instead.
 */
export function mergeSplitParts(model: string, memory: WasmMemory, first: SplitPart, second: SplitPart, compactAbove?: number): IndexParts {
  const { layout, dim } = first;
  if (second.dim !== dim || second.layout.stride !== layout.stride || first.at !== 0) {
    throw new Error('mergeSplitParts: the two ranges were built with different layouts');
  }
  const n = first.n + second.n;
  const { stride, matrixOff } = layout;
  if (second.at < first.n) throw new Error('mergeSplitParts: the two ranges overlap');
  const meta = metaLayout(layout, n);
  // The second range's rows that end up past the new index's end (the planes cover some of them).
  const leftBehind = Math.max(0, matrixOff + (second.at + second.n) * stride - Math.max(meta.end, matrixOff + second.at * stride));
  if (second.n > 0 && leftBehind > (compactAbove ?? Math.max(COMPACT_ABOVE_BYTES, meta.end / 4))) {
    const own = kernelMemoryFor(meta.end, model);
    const to = new Int8Array(own.buffer);
    const from = new Int8Array(memory.buffer);
    to.set(from.subarray(matrixOff, matrixOff + first.n * stride), matrixOff);
    to.set(from.subarray(matrixOff + second.at * stride, matrixOff + (second.at + second.n) * stride), matrixOff + first.n * stride);
    memory = own;
  } else if (second.at > first.n && second.n > 0) {
    new Int8Array(memory.buffer).copyWithin(matrixOff + first.n * stride, matrixOff + second.at * stride, matrixOff + (second.at + second.n) * stride);
  }
  const views = planesAfter(memory, layout, n, model);
  views.scale.set(first.scale);
  views.scale.set(second.scale, first.n);
  views.err.set(first.err);
  views.err.set(second.err, first.n);
  views.qnorm.set(first.qnorm);
  views.qnorm.set(second.qnorm, first.n);
  const senders = [...first.senders];
  const sources = [...first.sources];
  const senderIndex = new Map(senders.map((s, i) => [s, i]));
  const sourceIndex = new Map(sources.map((s, i) => [s, i]));
  const s1 = first.stats;
  const s2 = second.stats;
  return {
    model,
    dim,
    n,
    layout,
    memory,
    rowids: concat(first.rowids, second.rowids),
    ids: concat(first.ids, second.ids),
    conv: concat(first.conv, second.conv),
    ts: concat(first.ts, second.ts),
    sender: concat(first.sender, remap(second.sender, second.senders, senders, senderIndex)),
    source: concat(first.source, remap(second.source, second.sources, sources, sourceIndex)),
    senders,
    sources,
    ...views,
    stats: {
      indexed: n,
      skippedWrongLength: s1.skippedWrongLength + s2.skippedWrongLength,
      skippedNonFinite: s1.skippedNonFinite + s2.skippedNonFinite,
    },
  };
}
