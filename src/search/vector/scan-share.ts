/**
 * One exact search scanned by two threads at once: the thread that owns the index (the engine worker) and a
 * helper that would otherwise sit idle waiting for the answer (the CLI's main thread). Both score chunks of the
 * same shared WebAssembly memory and take the next unscored chunk from one shared counter, so neither waits for the
 * other's half: a helper that starts late, or never, leaves its chunks to the owner. The helper posts what it found
 * (its candidates and lower bounds, candidates.ts) and the owner merges them before rescoring exactly.
 *
 * The scan reads the int8 rows at the speed of one core's memory bandwidth; two threads each scan at that speed
 * (measured: 100k × 768 in 5.7 ms alone, 3.0 ms shared). Only unfiltered searches are shared: a filter's per-row
 * tables live in the owner's JavaScript heap.
 *
 * Jobs: the helper opens a job (a new number in the control block, the counter at 0) before it sends the search,
 * and opens the next only after the owner answered, so a counter always belongs to one search.
 */
import type { VectorFilter } from '../types';
import { instantiateKernel, type KernelExports } from '../kernel/kernel';
import type { WasmMemory } from '../kernel/wasm-api';
import { Candidates, type ScanFindings } from './candidates';
import type { MemoryLayout, MetaLayout } from './layout';
import { queryLevels, quantiseRow } from './quantize';

/** What a helper needs to score an index's chunks: the index's shared memory and where things are in it. */
export interface ScanShare {
  memory: WasmMemory;
  layout: MemoryLayout;
  meta: MetaLayout;
  n: number;
  dim: number;
  /** Int32 control block: [job, next chunk]. */
  control: SharedArrayBuffer;
  /** The helper's own scratch in `memory`: its query codes, dots and upper bounds (the owner's are in `layout`). */
  scratch: { queryOff: number; outOff: number; uOff: number; end: number };
}

/** The helper's share of a job, posted to the owner. */
export interface HelperScan extends ScanFindings {
  job: number;
  /** Chunks the helper took and whose findings it does not report (it failed part-way): the owner scores them. */
  unscanned: number[];
}

const JOB = 0;
const NEXT = 1;
export const CONTROL_BYTES = 2 * Int32Array.BYTES_PER_ELEMENT;

export function chunkCount(layout: MemoryLayout, n: number): number {
  return Math.ceil(n / layout.chunkRows);
}

/** Where a helper's scratch goes: after the index's per-row planes. */
export function helperScratch(layout: MemoryLayout, meta: MetaLayout): ScanShare['scratch'] {
  const align = (x: number) => Math.ceil(x / 64) * 64;
  const queryOff = align(meta.end);
  const outOff = align(queryOff + layout.stride * 2);
  const uOff = align(outOff + layout.chunkRows * 4);
  return { queryOff, outOff, uOff, end: uOff + layout.chunkRows * 4 };
}

/** Takes the next unscored chunk of `job`, or -1 when none is left (or the job is not the current one). */
export function claimChunk(control: Int32Array, job: number, chunks: number): number {
  if (Atomics.load(control, JOB) !== job) return -1;
  const c = Atomics.add(control, NEXT, 1);
  return c < chunks ? c : -1;
}

/** Ends `job` for the helper: it takes no chunk from now on (the owner scans alone, or has finished). */
export function closeJob(control: Int32Array, job: number, chunks: number): void {
  if (Atomics.load(control, JOB) === job) Atomics.store(control, NEXT, chunks);
}

/** Whether a search scans every row (the only kind the helper takes part in). */
export function isUnfiltered(f: VectorFilter | undefined): boolean {
  if (!f) return true;
  return (
    f.conversationId === undefined &&
    f.startUnix === undefined &&
    f.endUnix === undefined &&
    f.sender === undefined &&
    f.source === undefined &&
    !f.excludeConversationIds?.length &&
    f.onlyMessageIds === undefined &&
    !f.skipMessageIds?.length
  );
}

/** The helper thread's side: scores chunks of the shared index for jobs it opens. */
export class ScanHelper {
  private readonly control: Int32Array;
  private readonly chunks: number;

  private constructor(
    private readonly share: ScanShare,
    private readonly kernel: KernelExports,
  ) {
    this.control = new Int32Array(share.control);
    this.chunks = chunkCount(share.layout, share.n);
  }

  static async create(share: ScanShare): Promise<ScanHelper> {
    return new ScanHelper(share, await instantiateKernel(share.memory));
  }

  /** Opens a job: call before sending the search that carries its number. */
  begin(): number {
    Atomics.store(this.control, NEXT, 0);
    return Atomics.add(this.control, JOB, 1) + 1;
  }

  /**
   * Scores chunks of `job` until none is left. Never throws: when anything goes wrong, it reports no findings and
   * every chunk it took, which the owner then scores itself. A search the owner will reject (a NaN, zero or
   * wrong-length query, a k that is not a positive integer) scores nothing here.
   */
  help(job: number, query: Float32Array, k: number): HelperScan {
    const { layout, meta, n, dim, scratch } = this.share;
    const taken: number[] = [];
    try {
      const found = new Candidates(Number.isInteger(k) && k >= 1 ? k : 1);
      const stride = layout.stride;
      const codes = new Int16Array(stride);
      const qq = query.length === dim && Number.isInteger(k) && k >= 1 ? quantiseRow(query, dim, codes, 0, queryLevels(stride)) : undefined;
      if (qq && qq.scale !== 0) {
        const buf = this.share.memory.buffer;
        new Int16Array(buf, scratch.queryOff, stride).set(codes);
        const dots = new Int32Array(buf, scratch.outOff, layout.chunkRows);
        const uppers = new Float32Array(buf, scratch.uOff, layout.chunkRows);
        const bounds = {
          scale: new Float32Array(buf, meta.metaOff, n),
          err: new Float32Array(buf, meta.metaOff + meta.plane, n),
          qnorm: new Float32Array(buf, meta.metaOff + 2 * meta.plane, n),
        };
        for (let c = claimChunk(this.control, job, this.chunks); c >= 0; c = claimChunk(this.control, job, this.chunks)) {
          taken.push(c);
          const start = c * layout.chunkRows;
          const count = Math.min(layout.chunkRows, n - start);
          this.kernel.score_rows(scratch.queryOff, layout.matrixOff + start * stride, count, stride, meta.metaOff + start * 4, meta.plane, qq.scale, qq.err, scratch.outOff, scratch.uOff);
          found.offerChunk(dots, uppers, count, start, undefined, qq.scale, qq.err, bounds);
        }
      }
      return { job, unscanned: [], ...found.findings() };
    } catch {
      // Nothing of a failed share is used (a chunk half offered would be scored twice): the owner scores it all.
      return { job, unscanned: taken, rows: new Int32Array(0), upper: new Float64Array(0), lowers: new Float64Array(0), scanned: 0 };
    }
  }
}
