// A VectorIndex whose data lives in the engine worker; it reloads itself after a worker restart. When the worker
// shares the index (`helpScans`), this thread scans one unfiltered search at a time beside it (scan-share.ts).
import type { VectorFilter, VectorHit, VectorIndex } from '../search/types';
import { untilAborted } from '../search/vector/errors';
import { isUnfiltered, lostScan, newJob, ScanHelper, type HelperScan } from '../search/vector/scan-share';
import type { Connection } from './worker-connection';
import type { VectorIndexInfo, VectorOpenOptions } from './protocol';
import { abortError } from './wire-error';

export interface VectorOpener {
  openVector(
    model: string,
    source: VectorOpenOptions,
    signal?: AbortSignal,
  ): Promise<{ info: VectorIndexInfo; conn: Connection }>;
  nextRequestId(): number;
}

export class VectorIndexProxy implements VectorIndex {
  readonly dim: number;
  readonly size: number;
  private handle: number;
  private disposed = false;
  private reopening: Promise<void> | undefined;
  /** This thread's side of shared scans (undefined: the worker scans alone). */
  private helper: Promise<ScanHelper | undefined> | undefined;
  /** One shared search at a time: concurrent ones must not add up to a long stall of this thread. */
  private sharing = false;

  constructor(
    private readonly client: VectorOpener,
    readonly model: string,
    private readonly source: VectorOpenOptions,
    info: VectorIndexInfo,
    private conn: Connection,
  ) {
    this.dim = info.dim;
    this.size = info.size;
    this.handle = info.handle;
    this.helper = helperFor(info);
  }

  async search(query: Float32Array, k: number, filter?: VectorFilter, signal?: AbortSignal): Promise<VectorHit[]> {
    if (this.disposed) throw new Error(`The vector index of model "${this.model}" was disposed.`);
    if (signal?.aborted) throw abortError(signal);
    if (this.conn.dead) {
      this.helper = undefined; // let the dead worker's index memory go
      await this.reopen(signal);
    }
    const conn = this.conn;
    const handle = this.handle;
    const q = new Float32Array(query);
    const helper = this.helper && !this.sharing && isUnfiltered(filter) ? await this.helper : undefined;
    if (signal?.aborted) throw abortError(signal);
    // The state may have moved on while the helper was made: share only what is still current.
    const job = helper && !this.sharing && conn === this.conn && !conn.dead && !this.disposed ? newJob() : undefined;
    const id = this.client.nextRequestId();
    const answer = conn.request<VectorHit[]>(
      (rid, slot) => ({ type: 'vector.search', id: rid, slot, handle, query: q, k, filter, ...(job ? { job } : {}) }),
      id,
      signal,
    );
    if (!helper || !job) return answer;
    this.sharing = true;
    try {
      let scan: HelperScan | undefined;
      try {
        scan = helper.help(job, q, k);
      } finally {
        conn.post({ type: 'vector.helped', id, scan: scan ?? lostScan() }); // the worker waits for it
      }
      return await answer;
    } finally {
      this.sharing = false;
    }
  }

  /** The worker restarted: load the index again (from the cache the first build wrote). */
  private async reopen(signal?: AbortSignal): Promise<void> {
    this.reopening ??= this.client
      .openVector(this.model, this.source)
      .then(({ info, conn }) => {
        this.handle = info.handle;
        this.conn = conn;
        this.helper = helperFor(info);
      })
      .finally(() => (this.reopening = undefined));
    await untilAborted(this.reopening, signal, abortError);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.helper = undefined; // it holds the index's memory
    if (!this.conn.dead) this.conn.post({ type: 'vector.dispose', id: 0, handle: this.handle });
  }
}

/** This thread's helper for an index the worker shares; none when it does not, or the kernel cannot load here. */
function helperFor(info: VectorIndexInfo): Promise<ScanHelper | undefined> | undefined {
  return info.share ? ScanHelper.create(info.share).catch(() => undefined) : undefined;
}
