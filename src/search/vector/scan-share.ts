/**
 * One unfiltered search scanned by two threads: the owner of the index and a helper that would otherwise wait idle
 * (the CLI's main thread). Both take chunks from the search's own counter (its job), so a cancelled search never takes
 * a later one's; the helper, which has other work, takes at most half within HELP_BUDGET_MS and posts its findings.
 */
import type { VectorFilter } from '../types';
import { instantiateKernel, type KernelExports } from '../kernel/kernel';
import type { IndexParts } from './accumulator';
import { Candidates, ChunkScan, noFindings, type ScanFindings } from './candidates';
import { align, type MemoryLayout, type MetaLayout } from './layout';
import { queryLevels, quantiseRow } from './quantize';

/** What a helper needs to score an index's chunks: the index's shared memory and where things are in it. */
export type ScanShare = Pick<IndexParts, 'memory' | 'layout' | 'meta' | 'n' | 'dim'> & {
  /** The helper's own scratch in `memory`: its query codes, dots and upper bounds (the owner's are in `layout`). */
  scratch: { queryOff: number; outOff: number; uOff: number; end: number };
};

/** The helper's share of a job, posted to the owner. */
export interface HelperScan extends ScanFindings {
  /** Chunks the helper took and whose findings it does not report (it failed part-way): the owner scores them. */
  unscanned: number[];
  /** The helper could not say which chunks it took: the owner scans every chunk itself and uses nothing of this. */
  lost?: true;
}

/** Longest the helper scans for one job; the owner scores whatever is left. */
const HELP_BUDGET_MS = 10;

export function chunkCount(layout: MemoryLayout, n: number): number {
  return Math.ceil(n / layout.chunkRows);
}

/** Where a helper's scratch goes: after the index's per-row planes. */
export function helperScratch(layout: MemoryLayout, meta: MetaLayout): ScanShare['scratch'] {
  const queryOff = align(meta.end);
  const outOff = align(queryOff + layout.stride * 2);
  const uOff = align(outOff + layout.chunkRows * 4);
  return { queryOff, outOff, uOff, end: uOff + layout.chunkRows * 4 };
}

/** A job: one Int32 counter, the next chunk to take. */
export function newJob(): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
}

/** Takes the job's next unscored chunk, or -1 when none is left. */
export function claimChunk(job: Int32Array, chunks: number): number {
  const c = Atomics.add(job, 0, 1);
  return c < chunks ? c : -1;
}

/** Leaves nothing of the job to take (the owner scans alone, or has finished). */
export function closeJob(job: Int32Array, chunks: number): void {
  Atomics.store(job, 0, chunks);
}

/** What the owner gets when the helper's answer was lost: no findings, scan everything. */
export function lostScan(): HelperScan {
  return { lost: true, unscanned: [], ...noFindings() };
}

/** Whether a search scans every row: the only kind a helper takes part in (and the owner's "unfiltered"). */
export function isUnfiltered(f: VectorFilter = {}): boolean {
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

export class ScanHelper {
  private readonly chunks: number;

  private constructor(
    private readonly share: ScanShare,
    private readonly kernel: KernelExports,
  ) {
    this.chunks = chunkCount(share.layout, share.n);
  }

  static async create(share: ScanShare): Promise<ScanHelper> {
    return new ScanHelper(share, await instantiateKernel(share.memory));
  }

  /**
   * Scores chunks of `job` until none is left, half are taken, or HELP_BUDGET_MS passed. Never throws: on failure it
   * reports every chunk it took, for the owner to score. A search the owner will reject scores nothing here.
   */
  help(job: SharedArrayBuffer, query: Float32Array, k: number): HelperScan {
    const taken: number[] = [];
    try {
      const { memory, layout, meta, n, dim, scratch } = this.share;
      const validK = Number.isInteger(k) && k >= 1;
      const found = new Candidates(validK ? k : 1);
      const codes = new Int16Array(layout.stride);
      const qq =
        query.length === dim && validK ? quantiseRow(query, dim, codes, 0, queryLevels(layout.stride)) : undefined;
      if (qq && qq.scale !== 0) {
        const scan = new ChunkScan(this.kernel, memory, layout, meta, n, scratch);
        const counter = new Int32Array(job);
        const most = Math.ceil(this.chunks / 2);
        const until = performance.now() + HELP_BUDGET_MS;
        while (taken.length < most && performance.now() < until) {
          const c = claimChunk(counter, this.chunks);
          if (c < 0) break;
          taken.push(c);
          found.scoreChunk(scan, codes, qq.scale, qq.err, c);
        }
      }
      return { unscanned: [], ...found.findings() };
    } catch {
      // Nothing of a failed share is used (a chunk half offered would be scored twice): the owner scores it all.
      return { unscanned: taken, ...noFindings() };
    }
  }
}
