/** A VectorIndex whose data lives in the engine worker; it reloads itself after a worker restart. */
import type { VectorFilter, VectorHit, VectorIndex } from '../search/types';
import type { Connection } from './worker-connection';
import type { VectorIndexInfo, VectorOpenOptions } from './protocol';
import { abortError } from './wire-error';

/** What the proxy needs from the client: (re)open an index in the current worker, and request ids. */
export interface VectorOpener {
  openVector(model: string, source: VectorOpenOptions, signal?: AbortSignal): Promise<{ info: VectorIndexInfo; conn: Connection }>;
  nextRequestId(): number;
}

export class VectorIndexProxy implements VectorIndex {
  readonly model: string;
  readonly dim: number;
  readonly size: number;
  private handle: number;
  private conn: Connection;
  private disposed = false;
  private reopening: Promise<void> | undefined;

  constructor(
    private readonly client: VectorOpener,
    model: string,
    private readonly source: VectorOpenOptions,
    info: VectorIndexInfo,
    conn: Connection,
  ) {
    this.model = model;
    this.dim = info.dim;
    this.size = info.size;
    this.handle = info.handle;
    this.conn = conn;
  }

  async search(query: Float32Array, k: number, filter?: VectorFilter, signal?: AbortSignal): Promise<VectorHit[]> {
    if (this.disposed) throw new Error(`The vector index of model "${this.model}" was disposed.`);
    if (signal?.aborted) throw abortError(signal);
    if (this.conn.dead) await this.reopen(signal);
    const { conn, handle } = this;
    const q = new Float32Array(query);
    return conn.request<VectorHit[]>((id, slot) => ({ type: 'vector.search', id, slot, handle, query: q, k, filter }), this.client.nextRequestId(), signal);
  }

  /** The worker restarted: load the index again (from the cache the first build wrote). */
  private async reopen(signal?: AbortSignal): Promise<void> {
    this.reopening ??= this.client
      .openVector(this.model, this.source)
      .then(({ info, conn }) => {
        this.handle = info.handle;
        this.conn = conn;
      })
      .finally(() => {
        this.reopening = undefined;
      });
    const pending = this.reopening;
    if (!signal) return pending;
    await Promise.race([
      pending,
      new Promise<never>((_, reject) => {
        if (signal.aborted) reject(abortError(signal));
        signal.addEventListener('abort', () => reject(abortError(signal)), { once: true });
      }),
    ]);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (!this.conn.dead) this.conn.post({ type: 'vector.dispose', id: 0, handle: this.handle });
  }
}
