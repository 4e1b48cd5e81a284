/**
 * The engine worker: opens the archive once, answers archive queries and holds vector indexes, all off the
 * extension host's thread. Bundled by esbuild.js to dist/engine-worker.js; run from source through tsx in dev.
 *
 * Requests are answered in arrival order. Synchronous queries run to completion unless their shared cancel flag
 * is set (SQLite's progress handler polls it); vector builds and scans poll the flag through their signal.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openArchive } from '../archive';
import type { Archive } from '../archive/types';
import { compiledEngineModuleNow, useCompiledEngineModule } from '../archive/wasm-engine';
import type { VectorIndex } from '../search/types';
import {
  archiveRows,
  cacheFilePath,
  Int8VectorIndex,
  keepBuildCoverage,
  loadCachedParts,
  vectorCacheKey,
  writeCacheFile,
  type BuildStats,
} from '../search/vector';
import type { HelperScan } from '../search/vector/scan-share';
import { buildInWorker } from './index-build';
import { CancelFlags } from './cancel-slots';
import { pollingSignal, type PollingAbort } from './polling-signal';
import { installInterruptHandler } from './interrupt';
import { keepEventLoopAlive, warmLazyGlobalsSoon } from './thread-start';
import {
  isArchiveMethod,
  NO_SLOT,
  type VectorIndexInfo,
  type WireError,
  type WorkerInit,
  type WorkerRequest,
  type WorkerResponse,
} from './protocol';
import { isAbortError, toWireError } from './wire-error';

if (!parentPort) throw new Error('src/engine/host.ts must run as a worker thread (see startEngineWorker).');
const port = parentPort;
const init = workerData as WorkerInit;
const flags = new CancelFlags(init.cancelFlags);

/** Slot of the request whose synchronous SQLite work is on the stack right now. */
let currentSlot = NO_SLOT;
let archive: Archive | undefined;
let closing = false;
let nextHandle = 1;
const indexes = new Map<number, VectorIndex>();
/** Async requests in progress (vector open/search), so a `cancel` message can abort them. */
const running = new Map<number, PollingAbort>();
/** Their completions, so close() lets a cancelled build clean up (remove its temporary cache file) first. */
const settling = new Set<Promise<void>>();
/** Searches a client thread scans beside, by request id: where its `vector.helped` findings go. */
const helpers = new Map<number, (scan: HelperScan) => void>();
/** Cache files being written after their build, by path (a later open of the same file waits for it). */
const writing = new Map<string, Promise<void>>();
/** How long close() waits for cancelled work to unwind before the thread exits anyway. */
const CLOSE_GRACE_MS = 2000;

function track(work: Promise<void>): void {
  settling.add(work);
  void work.finally(() => settling.delete(work));
}

function send(msg: WorkerResponse): void {
  port.postMessage(msg);
}

/**
 * Whatever the worker prints goes to the client's log, never to the process's stdout: the CLI speaks MCP over
 * stdio, and a stray line there would corrupt the protocol stream.
 */
function captureOutput(): void {
  const forward =
    (level: 'info' | 'warn') =>
    (chunk: unknown, ...rest: unknown[]): boolean => {
      const text = (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8')).trimEnd();
      try {
        if (text) send({ type: 'log', level, message: `worker output: ${text}` });
      } catch {
        // The port is closing: drop the line rather than fail the writer.
      }
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    };
  process.stdout.write = forward('info') as typeof process.stdout.write;
  process.stderr.write = forward('warn') as typeof process.stderr.write;
}
captureOutput();

const ABORTED: WireError = { kind: 'abort', message: 'The request was cancelled.' };

function fail(id: number, slot: number, e: unknown): void {
  // Whatever a cancelled request failed with (SQLITE_INTERRUPT wrapped by the archive layer, an AbortError…),
  // the client asked for it: report the cancellation, not the symptom.
  const error = flags.isSet(slot) || isAbortError(e) ? ABORTED : toWireError(e);
  send({ type: 'error', id, error });
}

/** Runs synchronous archive work with `slot` as the flag SQLite's progress handler polls. */
function withSlot<T>(slot: number, fn: () => T): T {
  const outer = currentSlot;
  currentSlot = slot;
  try {
    return fn();
  } finally {
    currentSlot = outer;
  }
}

function handleCall(req: Extract<WorkerRequest, { type: 'call' }>, db: Archive): void {
  if (flags.isSet(req.slot)) return fail(req.id, req.slot, undefined);
  if (!isArchiveMethod(req.method)) {
    send({
      type: 'error',
      id: req.id,
      error: { kind: 'error', message: `Unknown archive method "${String(req.method)}".` },
    });
    return;
  }
  try {
    const target = req.exclude?.length ? db.excluding(req.exclude) : db;
    const method = target[req.method] as (...args: unknown[]) => unknown;
    const value = withSlot(req.slot, () => method.apply(target, req.args));
    send({ type: 'result', id: req.id, value });
  } catch (e) {
    fail(req.id, req.slot, e);
  }
}

/**
 * Loads the index from its cache file, or builds it in an index-build worker of its own: this thread keeps
 * answering tool calls meanwhile (a build never queues them). Exact rescoring reads candidates' vectors back
 * from this worker's archive connection by rowid, so only int8 rows stay resident.
 */
async function openVectorIndex(
  req: Extract<WorkerRequest, { type: 'vector.open' }>,
  db: Archive,
  signal: AbortSignal,
): Promise<VectorIndex> {
  const info = withSlot(req.slot, () => db.embeddingModels().find((m) => m.model === req.model));
  const dim = req.dim ?? info?.dim;
  const total = req.total ?? info?.count;
  const rows = archiveRows(db, req.model);
  const log = (message: string) => send({ type: 'log', level: 'info', message });
  // The build counted the model's vector coverage (a cache file recorded its build's count): the first search
  // receipt need not count it again, while the archive is still the one `req.key` was made from.
  const primeCoverage = (stats: BuildStats | undefined): void =>
    keepBuildCoverage(db, req.model, stats, req.fingerprint, (message) =>
      send({ type: 'log', level: 'info', message }),
    );
  let cache: { cacheDir: string; key: string; name: string; file: string } | undefined;
  if (req.cacheDir) {
    const key =
      req.key ??
      vectorCacheKey({
        path: db.path,
        model: req.model,
        dim,
        count: total,
        fingerprint: withSlot(req.slot, () => db.summary().fingerprint),
      });
    const name = req.name ?? db.path;
    cache = { cacheDir: req.cacheDir, key, name, file: cacheFilePath(req.cacheDir, name, req.model) };
    // A build that just finished may still be writing this file: read it once it is complete.
    await writing.get(cache.file);
    const cached = await loadCachedParts({ ...cache, model: req.model, dim, log });
    signal.throwIfAborted();
    if (cached) {
      primeCoverage(cached.stats);
      return Int8VectorIndex.create(cached, rows(cached), 'cache', cache.file);
    }
  }
  const wasmModule = compiledEngineModuleNow();
  const parts = await buildInWorker({
    archivePath: db.path,
    model: req.model,
    dim,
    total,
    ...(init.buildScript ? { script: init.buildScript } : {}),
    // This thread's compiled engine (handed over at start, or compiled here when the host's was not ready yet):
    // the build thread instantiates it instead of compiling sqlite3.wasm again, 75-85 ms on a first semantic call.
    ...(wasmModule ? { wasmModule } : {}),
    onProgress: (progress) => send({ type: 'progress', id: req.id, progress }),
    log,
    signal,
  });
  primeCoverage(parts.stats);
  if (!cache) return Int8VectorIndex.create(parts, rows(parts), 'memory');
  // The index answers now; the cache file is written meanwhile with async I/O (off this thread's event loop).
  const file = cache.file;
  const written = writeCacheFile({ ...cache, model: req.model }, parts)
    .then(
      () => log(`vector cache ${file}: written (${parts.n} vectors of model ${req.model})`),
      (e: unknown) =>
        send({
          type: 'log',
          level: 'warn',
          message: `vector index for model ${req.model}: it works for this session but was not saved, so the next start builds it again: ${e instanceof Error ? e.message : String(e)}`,
        }),
    )
    .finally(() => {
      if (writing.get(file) === written) writing.delete(file);
    });
  writing.set(file, written);
  track(written);
  return Int8VectorIndex.create(parts, rows(parts), 'built', file);
}

async function handleVectorOpen(req: Extract<WorkerRequest, { type: 'vector.open' }>, db: Archive): Promise<void> {
  const abort = pollingSignal(() => flags.isSet(req.slot));
  running.set(req.id, abort);
  try {
    abort.signal.throwIfAborted();
    const index = await openVectorIndex(req, db, abort.signal);
    if (abort.signal.aborted || closing) {
      index.dispose();
      throw new DOMException('The request was cancelled.', 'AbortError');
    }
    const handle = nextHandle++;
    indexes.set(handle, index);
    const info: VectorIndexInfo = { handle, model: index.model, dim: index.dim, size: index.size };
    if (req.share && index instanceof Int8VectorIndex) {
      try {
        info.share = index.share();
      } catch (e) {
        // Only a speed-up: the index answers unshared.
        send({
          type: 'log',
          level: 'warn',
          message: `vector index for model ${index.model}: scans are not shared with the client thread: ${e instanceof Error ? e.message : String(e)}`,
        });
      }
    }
    send({ type: 'result', id: req.id, value: info });
  } catch (e) {
    fail(req.id, req.slot, e);
  } finally {
    running.delete(req.id);
  }
}

async function handleVectorSearch(req: Extract<WorkerRequest, { type: 'vector.search' }>): Promise<void> {
  const index = indexes.get(req.handle);
  if (!index) {
    send({
      type: 'error',
      id: req.id,
      error: {
        kind: 'error',
        message: 'This vector index is no longer loaded in the engine worker (it was disposed).',
      },
    });
    return;
  }
  const abort = pollingSignal(() => flags.isSet(req.slot));
  running.set(req.id, abort);
  // A search the client scans beside: its findings arrive as `vector.helped`, after this request. Listened for
  // before anything here awaits, or a `vector.helped` handled meanwhile would be dropped and the search never end.
  const helped = req.job !== undefined ? new Promise<HelperScan>((resolve) => helpers.set(req.id, resolve)) : undefined;
  try {
    const shared = req.job !== undefined && helped ? { job: req.job, helped } : undefined;
    const hits =
      shared && index instanceof Int8VectorIndex
        ? await index.search(req.query, req.k, req.filter, abort.signal, shared)
        : await index.search(req.query, req.k, req.filter, abort.signal);
    send({ type: 'result', id: req.id, value: hits });
  } catch (e) {
    fail(req.id, req.slot, e);
  } finally {
    running.delete(req.id);
    helpers.delete(req.id);
  }
}

async function shutdown(): Promise<void> {
  closing = true;
  for (const a of running.values()) a.abort();
  if (settling.size) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...settling]),
      new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS))),
    ]);
    clearTimeout(timer);
  }
  for (const index of indexes.values()) {
    try {
      index.dispose();
    } catch {
      /* closing anyway */
    }
  }
  indexes.clear();
  try {
    archive?.close();
  } catch {
    /* closing anyway */
  }
  archive = undefined;
  port.close();
  process.exit(0);
}

function onMessage(req: WorkerRequest): void {
  const db = archive;
  if (!db || closing) return;
  switch (req.type) {
    case 'call':
      return handleCall(req, db);
    case 'vector.open':
      return track(handleVectorOpen(req, db));
    case 'vector.search':
      return track(handleVectorSearch(req));
    case 'vector.helped':
      helpers.get(req.id)?.(req.scan);
      return;
    case 'vector.dispose': {
      const index = indexes.get(req.handle);
      indexes.delete(req.handle);
      index?.dispose();
      return;
    }
    case 'cancel':
      running.get(req.id)?.abort();
      return;
    case 'close':
      void shutdown();
      return;
  }
}

async function main(): Promise<void> {
  keepEventLoopAlive(port);
  try {
    if (init.wasmModule) useCompiledEngineModule(init.wasmModule);
    await installInterruptHandler(() => flags.isSet(currentSlot));
    const opened = await openArchive(init.archivePath);
    archive = opened;
    port.on('message', onMessage);
    send({ type: 'ready', path: opened.path, schemaVersion: opened.schemaVersion });
    warmLazyGlobalsSoon();
  } catch (e) {
    send({ type: 'open-failed', error: toWireError(e) });
    port.close();
  }
}

void main();
