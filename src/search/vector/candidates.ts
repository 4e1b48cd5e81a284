/**
 * The candidates of one exact search while it scans (int8-index.ts): every row whose upper bound may still reach the
 * top k, and the k largest lower bounds seen, whose smallest is the pruning threshold L.
 *
 * A scan shared by two threads (scan-share.ts) keeps one per thread. Each thread's L is the k-th largest lower bound
 * of the rows IT scored, never above that of all rows, so what it drops is dropped safely; merging the other thread's
 * lower bounds and candidates gives the candidates a single scan would keep.
 */
import type { KernelExports } from '../kernel/kernel';
import type { WasmMemory } from '../kernel/wasm-api';
import { grow, metaViews } from './accumulator';
import type { MemoryLayout, MetaLayout } from './layout';
import { KLargest } from './topk';

/** Absolute slack added to every bound, covering float rounding in the approximate and exact scores. */
const EPS = 1e-7;
/** Margin for the kernel's f32 upper bounds: a handful of roundings of terms ≤ ~1.1, each ≤ 2⁻²⁴ relative. */
const F32_SLACK = 1e-5;

/** What one thread's share of a scan found, in a form that crosses threads (structured clone). */
export interface ScanFindings {
  /** Candidate rows and their float64 upper bounds. */
  rows: Int32Array;
  upper: Float64Array;
  /** The k largest lower bounds among the rows scored (fewer when fewer rows were scored). */
  lowers: Float64Array;
  scanned: number;
}

/** The findings of a share that scored nothing, or whose findings are not to be used. */
export function noFindings(): ScanFindings {
  return { rows: new Int32Array(0), upper: new Float64Array(0), lowers: new Float64Array(0), scanned: 0 };
}

/**
 * One thread's view of an index's chunks and of its own buffers (`at`). Owner and helper both make theirs with this
 * constructor, so the scan loop sees one object shape and stays optimised (objects of two shapes deoptimised it).
 */
export class ChunkScan {
  readonly stride: number;
  readonly chunkRows: number;
  readonly matrixOff: number;
  readonly metaOff: number;
  readonly plane: number;
  readonly queryOff: number;
  readonly outOff: number;
  readonly uOff: number;
  readonly idxOff: number;
  readonly scale: Float32Array;
  readonly err: Float32Array;
  readonly qnorm: Float32Array;
  readonly query: Int16Array;
  readonly dots: Int32Array;
  readonly uppers: Float32Array;
  readonly idx: Int32Array | undefined;

  constructor(
    readonly kernel: KernelExports,
    memory: WasmMemory,
    layout: MemoryLayout,
    meta: MetaLayout,
    readonly n: number,
    at: Pick<MemoryLayout, 'queryOff' | 'outOff' | 'uOff'> & { idxOff?: number },
  ) {
    const buf = memory.buffer;
    this.stride = layout.stride;
    this.chunkRows = layout.chunkRows;
    this.matrixOff = layout.matrixOff;
    this.metaOff = meta.metaOff;
    this.plane = meta.plane;
    this.queryOff = at.queryOff;
    this.outOff = at.outOff;
    this.uOff = at.uOff;
    this.idxOff = at.idxOff ?? -1;
    ({ scale: this.scale, err: this.err, qnorm: this.qnorm } = metaViews(memory, meta, n));
    this.query = new Int16Array(buf, at.queryOff, layout.stride);
    this.dots = new Int32Array(buf, at.outOff, layout.chunkRows);
    this.uppers = new Float32Array(buf, at.uOff, layout.chunkRows);
    this.idx = at.idxOff === undefined ? undefined : new Int32Array(buf, at.idxOff, layout.chunkRows);
  }
}

export class Candidates {
  private readonly lower: KLargest;
  /** The k-th largest lower bound so far (−∞ until k rows were scored). */
  L = -Infinity;
  rows: Int32Array;
  upper: Float64Array;
  n = 0;
  scanned = 0;

  constructor(k: number) {
    this.lower = new KLargest(k);
    this.rows = new Int32Array(Math.max(4096, 4 * k));
    this.upper = new Float64Array(this.rows.length);
  }

  /**
   * Scores chunk `c` (its rows passing `test`, if any) with the kernel and keeps the rows that may reach the top k. The
   * query is written for every chunk: concurrent searches share the owner's buffers between yields.
   */
  scoreChunk(s: ChunkScan, codes: Int16Array, sq: number, fq: number, c: number, test?: (r: number) => boolean): void {
    const { kernel, stride, scale, err, qnorm } = s;
    const start = c * s.chunkRows;
    const count = Math.min(s.chunkRows, s.n - start);
    let m = count;
    let idx: Int32Array | undefined;
    if (test) {
      idx = s.idx;
      if (!idx) throw new Error('a filtered scan needs a ChunkScan with an idx buffer');
      m = 0;
      for (let r = start; r < start + count; r++) if (test(r)) idx[m++] = r;
      if (m === 0) return;
    }
    s.query.set(codes);
    if (idx)
      kernel.score_idx(s.queryOff, s.matrixOff, s.idxOff, m, stride, s.metaOff, s.plane, sq, fq, s.outOff, s.uOff);
    else
      kernel.score_rows(
        s.queryOff,
        s.matrixOff + start * stride,
        m,
        stride,
        s.metaOff + start * 4,
        s.plane,
        sq,
        fq,
        s.outOff,
        s.uOff,
      );
    const { dots, uppers } = s;
    let L = this.L;
    // The kernel's f32 upper bound is only a pre-filter (F32_SLACK covers its rounding); survivors get their
    // bounds recomputed in float64 from the exact integer dot.
    let cut = L - F32_SLACK;
    for (let i = 0; i < m; i++) {
      if (uppers[i] < cut) continue;
      const r = idx ? idx[i] : start + i;
      const a = dots[i] * sq * scale[r];
      const e = err[r] + fq * qnorm[r] + EPS;
      const u = a + e;
      if (u < L) continue;
      this.add(r, u);
      const l = a - e;
      if (l > L) {
        L = this.L = this.lower.push(l);
        cut = L - F32_SLACK;
      }
    }
    this.scanned += m;
  }

  /** Takes in another thread's findings for the same search (its rows are disjoint from ours). */
  merge(other: ScanFindings): void {
    for (let i = 0; i < other.lowers.length; i++) this.L = this.lower.push(other.lowers[i]);
    const L = this.L;
    for (let i = 0; i < other.rows.length; i++) if (other.upper[i] >= L) this.add(other.rows[i], other.upper[i]);
    this.scanned += other.scanned;
  }

  /** Pruned copies, to post to another thread. */
  findings(): ScanFindings {
    this.prune();
    return {
      rows: this.rows.slice(0, this.n),
      upper: this.upper.slice(0, this.n),
      lowers: this.lower.values(),
      scanned: this.scanned,
    };
  }

  /** Drops every candidate whose upper bound is below L (keeps the order of the rest). */
  prune(): void {
    const L = this.L;
    let w = 0;
    for (let i = 0; i < this.n; i++) {
      if (this.upper[i] >= L) {
        this.rows[w] = this.rows[i];
        this.upper[w] = this.upper[i];
        w++;
      }
    }
    this.n = w;
    if (this.n * 2 > this.rows.length) {
      this.rows = grow(this.rows, this.rows.length + 1);
      this.upper = grow(this.upper, this.upper.length + 1);
    }
  }

  /** Appends a candidate (full arrays are pruned first, and grow when pruning frees less than half). */
  private add(r: number, u: number): void {
    if (this.n === this.rows.length) this.prune();
    this.rows[this.n] = r;
    this.upper[this.n] = u;
    this.n++;
  }
}
