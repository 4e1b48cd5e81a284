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
import type { AsyncArchive, Exclusion } from '../archive/types';
import { compiledEngineModule, prewarmEngine } from '../archive/wasm-engine';
import type { VectorIndex } from '../search/types';
import type { BuildProgress } from '../search/vector';
import { CancelSlots } from './cancel-slots';
import { Connection } from './worker-connection';
import {
  ARCHIVE_METHODS,
  type ArchiveMethod,
  type EngineLog,
  type VectorIndexInfo,
  type VectorOpenOptions,
} from './protocol';
import { VectorIndexProxy, type VectorOpener } from './vector-proxy';
import { abortError } from './wire-error';
import { resolveWorkerScript, type WorkerScript } from './worker-script';

export { resolveWorkerScript };

export interface EngineWorkerOptions {
  /** Archive file or msgbrowse data directory (resolved by the archive layer inside the worker). */
  archivePath: string;
  /** Override the worker entry (a built `.js`, or a `.ts` source run through tsx). */
  workerScript?: string;
  /** Override the index-build worker's entry (tests wrap it). */
  buildScript?: string;
  /** Diagnostics: worker crash and restart, cache decisions, anything the worker prints. */
  log?: EngineLog;
  /**
   * Scan unfiltered vector searches on the calling thread too, beside the worker (search/vector/scan-share.ts):
   * for a thread that only waits meanwhile (the CLI's). Never in the extension host, whose thread others share.
   */
  helpScans?: boolean;
}

export interface VectorIndexOptions extends VectorOpenOptions {
  /** Build progress (records consumed so far, of the expected total). */
  onProgress?: (progress: BuildProgress) => void;
  /** Cancels the load/build: the call rejects at once and the worker stops building (no cache file is left). */
  signal?: AbortSignal;
}

export interface EngineClient extends AsyncArchive {
  /** `PRAGMA user_version` when the worker last opened the archive. */
  readonly schemaVersion: number;
  /**
   * Loads (from cache) or builds the vector index of `model` inside the worker. The returned proxy's `search()`
   * runs in the worker; after a worker restart it reloads the index transparently (from the cache).
   */
  vectorIndex(model: string, opts?: VectorIndexOptions): Promise<VectorIndex>;
  /** Terminates the worker; pending and later calls reject. Idempotent. */
  close(): Promise<void>;
}

class WorkerEngineClient implements VectorOpener {
  private conn: Connection | undefined;
  private generation = 0;
  private nextId = 1;
  private closed = false;
  private readonly slots = new CancelSlots();
  private readonly script: WorkerScript;
  path: string;
  /** `PRAGMA user_version` at the last open (0 until then). */
  schemaVersion = 0;

  constructor(private readonly opts: EngineWorkerOptions) {
    this.script = resolveWorkerScript(opts.workerScript);
    this.path = opts.archivePath;
  }

  /** The live connection, starting (or restarting) the worker when needed; rejects if the archive cannot open. */
  async connection(): Promise<Connection> {
    if (this.closed) throw new Error('The archive engine is closed.');
    let conn = this.conn;
    if (!conn || conn.dead) {
      // The engine this thread is compiling (prewarmEngine) is handed to the worker, which then instantiates it
      // instead of compiling sqlite3.wasm a second time beside it. A failed compile leaves the worker to try itself.
      await compiledEngineModule().catch(() => undefined);
      // Closed meanwhile: start nothing (close() found no worker to stop).
      if (this.closed) throw new Error('The archive engine is closed.');
      conn = this.conn;
    }
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
        this.opts.buildScript,
      );
      this.conn = conn;
      conn.holdWhileStarting();
      conn.ready.catch(() => {
        // A worker that could not open the archive exits by itself; start afresh on the next call.
        if (this.conn === conn) this.conn = undefined;
      });
    }
    ({ path: this.path, schemaVersion: this.schemaVersion } = await conn.ready);
    if (this.closed) throw new Error('The archive engine is closed.');
    return conn;
  }

  get currentGeneration(): number {
    return this.conn && !this.conn.dead ? this.conn.generation : -1;
  }

  async call(method: ArchiveMethod, args: unknown[], signal?: AbortSignal, exclude?: Exclusion): Promise<unknown> {
    if (signal?.aborted) throw abortError(signal);
    const conn = await this.connection();
    const id = this.nextId++;
    return conn.request(
      (rid, slot) => ({ type: 'call', id: rid, slot, method, args, ...(exclude?.length ? { exclude } : {}) }),
      id,
      signal,
    );
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
      (rid, slot) => ({
        type: 'vector.open',
        id: rid,
        slot,
        model,
        ...source,
        ...(this.opts.helpScans ? { share: true } : {}),
      }),
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
  // Compile the engine in this thread too (once): a worker started later (a restart, another archive) instantiates it.
  prewarmEngine();
  const impl = new WorkerEngineClient(opts);
  try {
    await impl.connection();
  } catch (e) {
    await impl.close();
    throw e;
  }
  const methodsFor = (exclude?: Exclusion) => {
    const methods = {} as Record<ArchiveMethod, (...args: unknown[]) => Promise<unknown>>;
    for (const method of ARCHIVE_METHODS) {
      methods[method] = (...args: unknown[]) => {
        const { callArgs, signal } = splitSignal(args);
        return impl.call(method, callArgs, signal, exclude);
      };
    }
    return methods;
  };
  // A view whose every call carries the exclusion to the worker (answered there in the call's one snapshot).
  const excluding = (exclude: Exclusion): AsyncArchive => {
    if (!exclude.length) return client as unknown as AsyncArchive;
    const copy = exclude.map((x) => (x.source === undefined ? { name: x.name } : { name: x.name, source: x.source }));
    return Object.assign(Object.create(null) as object, methodsFor(copy), {
      get path(): string {
        return impl.path;
      },
      excluding: (more: Exclusion) => excluding([...copy, ...more]),
      // A view never closes the archive it looks through.
      close: async () => {},
    }) as unknown as AsyncArchive;
  };
  const client = Object.assign(Object.create(null) as object, methodsFor(), {
    get path(): string {
      return impl.path;
    },
    get schemaVersion(): number {
      return impl.schemaVersion;
    },
    excluding,
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
