// An AsyncArchive (and vector indexes) served by one worker thread, so the extension host's event loop never runs
// SQLite or a vector scan. A crashed worker fails what was pending and the next call starts a new one.
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

interface EngineWorkerOptions {
  /** Archive file or msgbrowse data directory. */
  archivePath: string;
  /** Entries of the engine and index-build workers: a built `.js`, or a `.ts` source run through tsx. */
  workerScript?: string;
  buildScript?: string;
  log?: EngineLog;
  /** Scan unfiltered vector searches on this thread too (scan-share.ts): for the CLI, never the extension host. */
  helpScans?: boolean;
}

interface VectorIndexOptions extends VectorOpenOptions {
  onProgress?: (progress: BuildProgress) => void;
  /** Cancels the load or build (no cache file is left). */
  signal?: AbortSignal;
}

export interface EngineClient extends AsyncArchive {
  readonly schemaVersion: number;
  /** The proxy reloads the index after a worker restart. */
  vectorIndex(model: string, opts?: VectorIndexOptions): Promise<VectorIndex>;
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
  schemaVersion = 0;

  constructor(private readonly opts: EngineWorkerOptions) {
    this.script = resolveWorkerScript(opts.workerScript);
    this.path = opts.archivePath;
  }

  async connection(): Promise<Connection> {
    if (this.closed) throw new Error('The archive engine is closed.');
    if (!this.conn || this.conn.dead) {
      // The worker instantiates the engine this thread compiled instead of compiling it again.
      await compiledEngineModule().catch(() => undefined);
      // Closed meanwhile: start nothing (close() found no worker to stop).
      if (this.closed) throw new Error('The archive engine is closed.');
    }
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

  async call(method: ArchiveMethod, args: unknown[], signal?: AbortSignal, exclude?: Exclusion): Promise<unknown> {
    if (signal?.aborted) throw abortError(signal);
    const conn = await this.connection();
    return conn.request(
      (id, slot) => ({ type: 'call', id, slot, method, args, ...(exclude?.length ? { exclude } : {}) }),
      this.nextId++,
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
    const share = this.opts.helpScans ? { share: true } : {};
    const info = await conn.request<VectorIndexInfo>(
      (id, slot) => ({ type: 'vector.open', id, slot, model, ...source, ...share }),
      this.nextId++,
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

/** Whether an AsyncArchive is worker-backed (then its `vectorIndex` builds vector indexes). */
export function isEngineClient(archive: unknown): archive is EngineClient {
  return typeof archive === 'object' && archive !== null && (archive as Record<symbol, unknown>)[ENGINE] === true;
}

/** Starts the engine worker and opens the archive in it; rejects with the archive's ArchiveError when it cannot. */
export async function startEngineWorker(opts: EngineWorkerOptions): Promise<EngineClient> {
  prewarmEngine();
  const impl = new WorkerEngineClient(opts);
  try {
    await impl.connection();
  } catch (e) {
    await impl.close();
    throw e;
  }
  // Every call of a view carries its exclusion to the worker.
  const view = (exclude: Exclusion | undefined, rest: object): object => {
    const methods = {} as Record<ArchiveMethod, (...args: unknown[]) => Promise<unknown>>;
    for (const method of ARCHIVE_METHODS) {
      methods[method] = (...args: unknown[]) => {
        const { callArgs, signal } = splitSignal(args);
        return impl.call(method, callArgs, signal, exclude);
      };
    }
    return Object.assign(Object.create(null) as object, methods, { path: impl.path }, rest);
  };
  const excluding = (exclude: Exclusion): AsyncArchive => {
    if (!exclude.length) return client as unknown as AsyncArchive;
    const copy = exclude.map((x) => (x.source === undefined ? { name: x.name } : { name: x.name, source: x.source }));
    return view(copy, {
      excluding: (more: Exclusion) => excluding([...copy, ...more]),
      // A view never closes the archive it looks through.
      close: async () => {},
    }) as AsyncArchive;
  };
  const client = view(undefined, {
    schemaVersion: impl.schemaVersion,
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
