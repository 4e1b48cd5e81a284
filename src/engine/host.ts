// The engine worker (dist/engine-worker.js): opens the archive once, answers its queries and holds vector indexes.
// SQLite's progress handler and vector scans poll each request's shared cancel flag.
import { parentPort, workerData } from 'node:worker_threads';
import { openArchive } from '../archive';
import { isArchiveMethod } from '../archive/methods';
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
  type IndexParts,
} from '../search/vector';
import type { HelperScan } from '../search/vector/scan-share';
import { buildInWorker } from './index-build';
import { CancelFlags } from './cancel-slots';
import { pollingSignal, type PollingAbort } from './polling-signal';
import { installInterruptHandler } from './interrupt';
import {
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

/** The slot of the request whose SQLite work is on the stack now. */
let currentSlot = NO_SLOT;
let archive: Archive | undefined;
let closing = false;
let nextHandle = 1;
const indexes = new Map<number, VectorIndex>();
/** Vector opens and searches in progress, for `cancel`. */
const running = new Map<number, PollingAbort>();
/** Their completions: close() lets a cancelled build remove its temporary cache file first. */
const settling = new Set<Promise<void>>();
/** Where a helped search's `vector.helped` findings go. */
const helpers = new Map<number, (scan: HelperScan) => void>();
/** Cache files being written: an open of the same file waits for it. */
const writing = new Map<string, Promise<void>>();
const CLOSE_GRACE_MS = 2000;

function track(work: Promise<void>): void {
  settling.add(work);
  void work.finally(() => settling.delete(work));
}

const send = (msg: WorkerResponse): void => port.postMessage(msg);
const log = (message: string, level: 'info' | 'warn' = 'info'): void => send({ type: 'log', level, message });

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

// What the worker prints goes to the client's log, never stdout: the CLI speaks MCP over stdio.
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

function fail(id: number, slot: number, e: unknown): void {
  // A cancelled request reports the cancellation, not its symptom (an interrupted statement, an AbortError…).
  const cancelled = flags.isSet(slot) || isAbortError(e);
  const error: WireError = cancelled ? { kind: 'abort', message: 'The request was cancelled.' } : toWireError(e);
  send({ type: 'error', id, error });
}

/** Runs archive work with `slot` as the flag SQLite's progress handler polls. */
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
    const message = `Unknown archive method "${String(req.method)}".`;
    return send({ type: 'error', id: req.id, error: { kind: 'error', message } });
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

type VectorOpen = Extract<WorkerRequest, { type: 'vector.open' }>;
type CacheSpot = { cacheDir: string; key: string; name: string; file: string };

function cacheOf(req: VectorOpen, db: Archive, dim?: number, count?: number): CacheSpot | undefined {
  if (!req.cacheDir) return undefined;
  const fingerprint = () => withSlot(req.slot, () => db.summary().fingerprint);
  const key = req.key ?? vectorCacheKey({ path: db.path, model: req.model, dim, count, fingerprint: fingerprint() });
  const name = req.name ?? db.path;
  return { cacheDir: req.cacheDir, key, name, file: cacheFilePath(req.cacheDir, name, req.model) };
}

/** From its cache file, or built in an index-build worker so this thread keeps answering meanwhile. */
async function openVectorIndex(req: VectorOpen, db: Archive, signal: AbortSignal): Promise<VectorIndex> {
  const info = withSlot(req.slot, () => db.embeddingModels().find((m) => m.model === req.model));
  const dim = req.dim ?? info?.dim;
  const total = req.total ?? info?.count;
  const rows = archiveRows(db, req.model);
  // The coverage a build counted spares the first search receipt a count, while the archive is unchanged.
  const primeCoverage = (stats?: BuildStats) => keepBuildCoverage(db, req.model, stats, req.fingerprint, log);
  const cache = cacheOf(req, db, dim, total);
  if (cache) {
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
    ...(wasmModule ? { wasmModule } : {}),
    onProgress: (progress) => send({ type: 'progress', id: req.id, progress }),
    log,
    signal,
  });
  primeCoverage(parts.stats);
  if (!cache) return Int8VectorIndex.create(parts, rows(parts), 'memory');
  saveInBackground(cache, req.model, parts);
  return Int8VectorIndex.create(parts, rows(parts), 'built', cache.file);
}

/** Written with async I/O while the index already answers. */
function saveInBackground(cache: CacheSpot, model: string, parts: IndexParts): void {
  const { file } = cache;
  const written = writeCacheFile({ ...cache, model }, parts)
    .then(
      () => log(`vector cache ${file}: written (${parts.n} vectors of model ${model})`),
      (e: unknown) =>
        log(
          `vector index for model ${model}: it works for this session but was not saved, so the next start builds it again: ${errorText(e)}`,
          'warn',
        ),
    )
    .finally(() => {
      if (writing.get(file) === written) writing.delete(file);
    });
  writing.set(file, written);
  track(written);
}

/** Answers an async request, cancellable by its flag or a `cancel` message, with what `work` gives or throws. */
async function answer(req: { id: number; slot: number }, work: (signal: AbortSignal) => Promise<unknown>) {
  const abort = pollingSignal(() => flags.isSet(req.slot));
  running.set(req.id, abort);
  try {
    send({ type: 'result', id: req.id, value: await work(abort.signal) });
  } catch (e) {
    fail(req.id, req.slot, e);
  } finally {
    running.delete(req.id);
  }
}

async function vectorOpen(req: VectorOpen, db: Archive, signal: AbortSignal): Promise<VectorIndexInfo> {
  signal.throwIfAborted();
  const index = await openVectorIndex(req, db, signal);
  if (signal.aborted || closing) {
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
      const why = errorText(e);
      log(`vector index for model ${index.model}: scans are not shared with the client thread: ${why}`, 'warn');
    }
  }
  return info;
}

async function vectorSearch(req: Extract<WorkerRequest, { type: 'vector.search' }>, signal: AbortSignal) {
  const index = indexes.get(req.handle);
  if (!index) throw new Error('This vector index is no longer loaded in the engine worker (it was disposed).');
  if (req.job === undefined || !(index instanceof Int8VectorIndex))
    return index.search(req.query, req.k, req.filter, signal);
  // A helped search's findings arrive as `vector.helped`: listened for before anything here awaits, or one handled
  // meanwhile would be dropped and the search never end.
  const helped = new Promise<HelperScan>((resolve) => helpers.set(req.id, resolve));
  try {
    return await index.search(req.query, req.k, req.filter, signal, { job: req.job, helped });
  } finally {
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
  const quietly = (close: () => void) => {
    try {
      close();
    } catch {
      /* closing anyway */
    }
  };
  for (const index of indexes.values()) quietly(() => index.dispose());
  quietly(() => archive?.close());
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
      return track(answer(req, (signal) => vectorOpen(req, db, signal)));
    case 'vector.search':
      return track(answer(req, (signal) => vectorSearch(req, signal)));
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
  // Referenced from the start, the port keeps the event loop alive while the engine loads: a loop that runs dry makes
  // Node wait for every background task (V8 optimising sqlite3.wasm) before the first call is answered.
  port.ref();
  try {
    if (init.wasmModule) useCompiledEngineModule(init.wasmModule);
    await installInterruptHandler(() => flags.isSet(currentSlot));
    const opened = await openArchive(init.archivePath);
    archive = opened;
    port.on('message', onMessage);
    send({ type: 'ready', path: opened.path, schemaVersion: opened.schemaVersion });
    // `performance` is a lazy global in workers: load it before the first search reads the clock.
    setImmediate(() => void performance.now());
  } catch (e) {
    send({ type: 'open-failed', error: toWireError(e) });
    port.close();
  }
}

void main();
