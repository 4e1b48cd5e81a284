/**
 * The main-thread side of the engine worker: an AsyncArchive (plus vector indexes) whose every query runs in
 * ONE worker thread, so the extension host's event loop — shared with VS Code's MCP client and every other
 * extension — never runs SQLite or a vector scan.
 *
 * - Requests go to the worker in call order (FIFO through its message port).
 * - An aborted signal rejects the call at once and sets the request's shared cancel flag; the worker's SQLite
 *   progress handler / vector loop sees it and stops the work. The connection stays usable.
 * - A crashed worker rejects what was pending with a clear message; the next call starts a new one.
 * - The worker is unref'd while idle, so a forgotten client never keeps a process alive; `close()` ends it.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AsyncArchive } from '../../archive/types';
import type { VectorFilter, VectorHit, VectorIndex } from '../types';
import type { BuildProgress } from '../vector';
import { CancelSlots } from './cancel-slots';
import {
  ARCHIVE_METHODS,
  NO_SLOT,
  type ArchiveMethod,
  type VectorIndexInfo,
  type VectorOpenOptions,
  type WorkerInit,
  type WorkerRequest,
  type WorkerResponse,
} from './protocol';
import { abortError, fromWireError } from './wire-error';

export interface EngineWorkerOptions {
  /** Archive file or msgbrowse data directory (resolved by the archive layer inside the worker). */
  archivePath: string;
  /** Override the worker entry (a built `.js`, or a `.ts` source run through tsx). */
  workerScript?: string;
  /** Diagnostics: worker start, crash, restart. */
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
}

export interface VectorIndexOptions extends VectorOpenOptions {
  /** Build progress (records consumed so far, of the expected total). */
  onProgress?: (progress: BuildProgress) => void;
  /** Cancels the load/build: the call rejects at once and the worker stops building (no cache file is left). */
  signal?: AbortSignal;
}

export interface EngineClient extends AsyncArchive {
  /**
   * Loads (from cache) or builds the vector index of `model` inside the worker. The returned proxy's `search()`
   * runs in the worker; after a worker restart it reloads the index transparently (from the cache).
   */
  vectorIndex(model: string, opts?: VectorIndexOptions): Promise<VectorIndex>;
  /** Terminates the worker; pending and later calls reject. Idempotent. */
  close(): Promise<void>;
}

interface Pending {
  slot: number;
  /** The caller has already been answered (aborted); only the slot waits for the worker's reply. */
  done: boolean;
  resolve(value: unknown): void;
  reject(error: Error): void;
  onProgress?: (progress: unknown) => void;
  detach(): void;
}

interface WorkerScript {
  file: string;
  eval: boolean;
}

const CLOSE_TIMEOUT_MS = 5000;

/** Production: `engine-worker.js` beside the bundle; dev/tests: the TypeScript entry run through tsx. */
export function resolveWorkerScript(override?: string): WorkerScript {
  const file = override ?? defaultWorkerScript();
  if (!/\.[cm]?ts$/.test(file)) return { file, eval: false };
  // Workers on Node 20 do not apply `--import tsx` hooks to their entry module, so bootstrap through tsx's
  // CommonJS register API (resolved here, from the project's node_modules) and require the TS entry.
  const req = createRequire(__filename);
  const tsxApi = req.resolve('tsx/cjs/api');
  const code = `require(${JSON.stringify(tsxApi)}).register();\nrequire(${JSON.stringify(file)});\n`;
  return { file: code, eval: true };
}

function defaultWorkerScript(): string {
  const built = path.join(__dirname, 'engine-worker.js');
  if (fs.existsSync(built)) return built;
  const source = path.join(__dirname, 'host.ts');
  if (fs.existsSync(source)) return source;
  throw new Error(
    `The search engine worker script is missing: expected ${built} (built by esbuild.js) or ${source} (sources).`,
  );
}

class Connection {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  readonly ready: Promise<string>;
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
    private readonly log?: EngineWorkerOptions['log'],
  ) {
    const init: WorkerInit = { archivePath, cancelFlags: slots.buffer };
    this.worker = new Worker(script.file, {
      eval: script.eval,
      workerData: init,
      execArgv: script.eval ? [] : undefined,
    });
    this.ready = new Promise<string>((resolve, reject) => {
      this.worker.on('message', (msg: WorkerResponse) => {
        if (msg.type === 'ready') {
          this.started = true;
          resolve(msg.path);
        } else if (msg.type === 'open-failed') reject(fromWireError(msg.error));
        else this.onMessage(msg);
      });
      this.worker.on('error', (e: Error) => {
        // An uncaught exception in the worker; 'exit' follows.
        this.crashReason = e.message || e.name;
      });
      this.worker.on('messageerror', (e: Error) => {
        this.crashReason = `a message could not be decoded: ${e.message}`;
      });
      this.worker.on('exit', (code) => {
        this.dead = true;
        const why = this.crashReason ? this.crashReason : `exit code ${code}`;
        const message = `The search engine worker stopped unexpectedly (${why}); the request was not completed. The next request restarts it.`;
        reject(new Error(message));
        this.failAll(message);
        this.onDeath(this, message, this.started);
      });
    });
    this.ready.catch(() => undefined);
  }

  private onMessage(msg: WorkerResponse): void {
    if (msg.type === 'log') {
      this.log?.(msg.level, msg.message);
      return;
    }
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
        // Throws synchronously when the arguments cannot be cloned (functions, proxies, class instances with
        // private state…): answer the caller instead of waiting for a reply that will never come.
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

  /** Fire-and-forget message (cancel, dispose). */
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

  /** Keep the process alive while the worker starts (opening the archive). */
  holdWhileStarting(): void {
    this.ref();
    this.ready.then(
      () => this.unref(),
      () => this.unref(),
    );
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

class WorkerEngineClient {
  private conn: Connection | undefined;
  private generation = 0;
  private nextId = 1;
  private closed = false;
  private readonly slots = new CancelSlots();
  private readonly script: WorkerScript;
  path: string;

  constructor(private readonly opts: EngineWorkerOptions) {
    this.script = resolveWorkerScript(opts.workerScript);
    this.path = opts.archivePath;
  }

  /** The live connection, starting (or restarting) the worker when needed; rejects if the archive cannot open. */
  async connection(): Promise<Connection> {
    if (this.closed) throw new Error('The archive engine is closed.');
    let conn = this.conn;
    if (!conn || conn.dead) {
      const generation = ++this.generation;
      if (generation > 1) this.opts.log?.('warn', `Restarting the search engine worker (start #${generation}).`);
      conn = new Connection(
        generation,
        this.script,
        this.opts.archivePath,
        this.slots,
        (dead, message, crashed) => {
          if (this.conn === dead) this.conn = undefined;
          if (crashed && !this.closed) this.opts.log?.('error', message);
        },
        this.opts.log,
      );
      this.conn = conn;
      conn.holdWhileStarting();
      conn.ready.catch(() => {
        // A worker that could not open the archive exits by itself; start afresh on the next call.
        if (this.conn === conn) this.conn = undefined;
      });
    }
    this.path = await conn.ready;
    if (this.closed) throw new Error('The archive engine is closed.');
    return conn;
  }

  get currentGeneration(): number {
    return this.conn && !this.conn.dead ? this.conn.generation : -1;
  }

  async call(method: ArchiveMethod, args: unknown[], signal?: AbortSignal): Promise<unknown> {
    if (signal?.aborted) throw abortError(signal);
    const conn = await this.connection();
    const id = this.nextId++;
    return conn.request((rid, slot) => ({ type: 'call', id: rid, slot, method, args }), id, signal);
  }

  async openVector(
    model: string,
    source: VectorOpenOptions,
    signal?: AbortSignal,
    onProgress?: (progress: BuildProgress) => void,
  ): Promise<{ info: VectorIndexInfo; conn: Connection }> {
    if (signal?.aborted) throw abortError(signal);
    const conn = await this.connection();
    const id = this.nextId++;
    const info = await conn.request<VectorIndexInfo>(
      (rid, slot) => ({ type: 'vector.open', id: rid, slot, model, ...source }),
      id,
      signal,
      onProgress as ((p: unknown) => void) | undefined,
    );
    return { info, conn };
  }

  async vectorIndex(model: string, opts: VectorIndexOptions = {}): Promise<VectorIndex> {
    const { onProgress, signal, ...rest } = opts;
    const source: VectorOpenOptions = {};
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) (source as Record<string, unknown>)[k] = v;
    const { info, conn } = await this.openVector(model, source, signal, onProgress);
    return new VectorIndexProxy(this, model, source, info, conn);
  }

  nextRequestId(): number {
    return this.nextId++;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const conn = this.conn;
    this.conn = undefined;
    if (!conn) return;
    conn.failAll('The archive engine was closed before the request completed.');
    await conn.close();
  }
}

/** A VectorIndex whose data lives in the worker. */
class VectorIndexProxy implements VectorIndex {
  readonly model: string;
  readonly dim: number;
  readonly size: number;
  private handle: number;
  private conn: Connection;
  private disposed = false;
  private reopening: Promise<void> | undefined;

  constructor(
    private readonly client: WorkerEngineClient,
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
    const conn = this.conn;
    const handle = this.handle;
    const q = new Float32Array(query);
    return conn.request<VectorHit[]>(
      (id, slot) => ({ type: 'vector.search', id, slot, handle, query: q, k, filter }),
      this.client.nextRequestId(),
      signal,
    );
  }

  /** The worker restarted: load the index again (from the cache the first build wrote). */
  private async reopen(signal?: AbortSignal): Promise<void> {
    if (!this.reopening) {
      this.reopening = this.client
        .openVector(this.model, this.source)
        .then(({ info, conn }) => {
          this.handle = info.handle;
          this.conn = conn;
        })
        .finally(() => {
          this.reopening = undefined;
        });
    }
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

const ENGINE = Symbol.for('msgbrowse.engineClient');

/** Whether an AsyncArchive is worker-backed (then vector indexes must be built with its `vectorIndex`). */
export function isEngineClient(archive: unknown): archive is EngineClient {
  return typeof archive === 'object' && archive !== null && (archive as Record<symbol, unknown>)[ENGINE] === true;
}

/**
 * Starts the engine worker and opens the archive in it. Rejects with the archive layer's ArchiveError (same
 * code and message) when the archive cannot be opened.
 */
export async function startEngineWorker(opts: EngineWorkerOptions): Promise<EngineClient> {
  const impl = new WorkerEngineClient(opts);
  try {
    await impl.connection();
  } catch (e) {
    await impl.close();
    throw e;
  }
  const methods = {} as Record<ArchiveMethod, (...args: unknown[]) => Promise<unknown>>;
  for (const method of ARCHIVE_METHODS) {
    methods[method] = (...args: unknown[]) => {
      const { callArgs, signal } = splitSignal(args);
      return impl.call(method, callArgs, signal);
    };
  }
  const client = Object.assign(Object.create(null) as object, methods, {
    get path(): string {
      return impl.path;
    },
    vectorIndex: (model: string, o?: VectorIndexOptions) => impl.vectorIndex(model, o),
    close: () => impl.close(),
    [ENGINE]: true,
  });
  return client as unknown as EngineClient;
}

/** A trailing AbortSignal (possibly `undefined` in its slot) is the call's signal, never sent to the worker. */
function splitSignal(args: unknown[]): { callArgs: unknown[]; signal?: AbortSignal } {
  const callArgs = [...args];
  let signal: AbortSignal | undefined;
  if (callArgs[callArgs.length - 1] instanceof AbortSignal) signal = callArgs.pop() as AbortSignal;
  while (callArgs.length > 0 && callArgs[callArgs.length - 1] === undefined) callArgs.pop();
  return { callArgs, signal };
}

export { NO_SLOT };
