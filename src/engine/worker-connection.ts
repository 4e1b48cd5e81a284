/** One running engine worker: requests out, answers, progress and logs back; a dead worker fails what is pending. */
import type { Worker } from 'node:worker_threads';
import { compiledEngineModuleNow } from '../archive/wasm-engine';
import type { CancelSlots } from './cancel-slots';
import type { EngineLog, WorkerInit, WorkerRequest, WorkerResponse } from './protocol';
import { abortError, fromWireError } from './wire-error';
import { startWorker, type WorkerScript } from './worker-script';

interface Pending {
  slot: number;
  /** The caller was already answered (aborted); only the slot waits for the worker's reply. */
  done: boolean;
  resolve(value: unknown): void;
  reject(error: Error): void;
  onProgress?: (progress: unknown) => void;
  detach(): void;
}

const CLOSE_TIMEOUT_MS = 5000;

// Small: V8's default young-generation semi-spaces, once grown, stay resident for the server's life (bench/).
const YOUNG_GENERATION_MB = 2;

export class Connection {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  /** The archive's resolved path and `user_version`, once the worker opened it. */
  readonly ready: Promise<{ path: string; schemaVersion: number }>;
  /** Set once the worker is gone (crash or close); later requests need a new connection. */
  dead = false;
  private crashReason = '';
  private started = false;
  private refs = 0;

  constructor(
    readonly generation: number,
    script: WorkerScript,
    archivePath: string,
    private readonly slots: CancelSlots,
    /** `crashed`: it had started and then died (not a failed open, not a close). */
    private readonly onDeath: (conn: Connection, message: string, crashed: boolean) => void,
    private readonly log?: EngineLog,
    buildScript?: string,
  ) {
    const wasmModule = compiledEngineModuleNow();
    const init: WorkerInit = {
      archivePath,
      cancelFlags: slots.buffer,
      ...(wasmModule ? { wasmModule } : {}),
      ...(buildScript ? { buildScript } : {}),
    };
    this.worker = startWorker(script, init, { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (msg: WorkerResponse) => {
        if (msg.type === 'ready') {
          this.started = true;
          resolve({ path: msg.path, schemaVersion: msg.schemaVersion });
        } else if (msg.type === 'open-failed') reject(fromWireError(msg.error));
        else this.onMessage(msg);
      });
      // An uncaught exception in the worker; 'exit' follows.
      this.worker.on('error', (e: Error) => (this.crashReason = e.message || e.name));
      this.worker.on('messageerror', (e: Error) => (this.crashReason = `a message could not be decoded: ${e.message}`));
      this.worker.on('exit', (code) => {
        this.dead = true;
        const why = this.crashReason || `exit code ${code}`;
        const message = `The search engine worker stopped unexpectedly (${why}); the request was not completed. The next request restarts it.`;
        reject(new Error(message));
        this.failAll(message);
        this.onDeath(this, message, this.started);
      });
    });
    this.ready.catch(() => undefined);
  }

  private onMessage(msg: WorkerResponse): void {
    if (msg.type === 'log') return this.log?.(msg.level, msg.message);
    if (msg.type === 'progress') {
      const p = this.pending.get(msg.id);
      if (p && !p.done) p.onProgress?.(msg.progress);
      return;
    }
    if (msg.type !== 'result' && msg.type !== 'error') return;
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    this.slots.release(p.slot);
    p.detach();
    this.unref();
    if (p.done) return;
    p.done = true;
    if (msg.type === 'result') p.resolve(msg.value);
    else p.reject(fromWireError(msg.error));
  }

  /** Sends one request; the promise settles with the worker's answer, or at once when `signal` aborts. */
  request<T>(
    build: (id: number, slot: number) => WorkerRequest,
    id: number,
    signal?: AbortSignal,
    onProgress?: (progress: unknown) => void,
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (this.dead) return Promise.reject(new Error('The search engine worker has stopped.'));
    const slot = this.slots.take();
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        if (p.done) return;
        p.done = true;
        this.slots.cancel(slot);
        this.post({ type: 'cancel', id });
        reject(abortError(signal));
      };
      const p: Pending = {
        slot,
        done: false,
        resolve: resolve as (v: unknown) => void,
        reject,
        onProgress,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      try {
        // Throws when the arguments cannot be cloned: answer the caller instead of waiting for a reply forever.
        this.worker.postMessage(build(id, slot));
      } catch (e) {
        this.slots.release(slot);
        reject(new Error(`Could not send the request to the search engine worker: ${(e as Error).message}`));
        return;
      }
      this.pending.set(id, p);
      this.ref();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A message without an answer (cancel, dispose). */
  post(msg: WorkerRequest): void {
    if (this.dead) return;
    try {
      this.worker.postMessage(msg);
    } catch {
      // The port closed under us: the 'exit' handler reports it.
    }
  }

  failAll(message: string): void {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      this.slots.release(p.slot);
      p.detach();
      if (!p.done) {
        p.done = true;
        p.reject(new Error(message));
      }
    }
    this.refs = 0;
  }

  private ref(): void {
    if (this.refs++ === 0) this.worker.ref();
  }

  private unref(): void {
    if (this.refs > 0 && --this.refs === 0) this.worker.unref();
  }

  /** Keeps the process alive while the worker opens the archive. */
  holdWhileStarting(): void {
    this.ref();
    const unref = () => this.unref();
    this.ready.then(unref, unref);
  }

  async close(): Promise<void> {
    if (this.dead) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.post({ type: 'close', id: 0 });
    const timer = setTimeout(() => void this.worker.terminate(), CLOSE_TIMEOUT_MS);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
