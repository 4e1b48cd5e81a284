/**
 * The index-build worker: one short-lived thread per vector index build (two for a large one, each streaming one
 * rowid range into the same shared memory: index-build.ts), started by the engine worker. It opens
 * the archive on its own connection, streams the model's embeddings into int8 rows in a shared kernel memory and
 * hands the parts back without a copy (the engine worker writes the cache file afterwards, with async I/O). The engine
 * worker keeps answering tool calls meanwhile: a build never shares the thread, the connection or the SQLite page
 * cache that answers them. Bundled by esbuild.js to dist/index-build-worker.js.
 *
 * It prepares what does not depend on its job first (its engine, the archive, the hash → message map every build of
 * the archive joins through), then builds the job its `start` message brings. A thread started ahead of a build (the
 * engine worker's standby, index-build.ts) has usually done that part when the build is asked for. A split build's
 * upper range makes no map: the lower range sends it its own (in shared memory) before it scans.
 *
 * Cancellation: the engine worker sets the shared flag; SQLite's progress handler and the build's signal poll it.
 */
// First: the V8 flags the process keeps, which this worker's start has just reset (worker-flags.ts).
import './worker-flags';
import { parentPort, workerData } from 'node:worker_threads';
import { openArchive } from '../archive';
import type { Archive, JoinedKeys, SharedEmbeddingJoin, UnjoinedEmbeddings } from '../archive/types';
import { useCompiledEngineModule } from '../archive/wasm-engine';
import { checkedParts, consumeRange, consumeRecords, mergeSplitParts, packParts, splitPartTransfer, type BuildProgress, type IndexParts, type SplitPart } from '../search/vector';
import { installInterruptHandler } from './interrupt';
import { buildsAtLowPriority, CONTROL, currentThreadId, lowerPriority } from './thread-priority';
import { pollingSignal } from './polling-signal';
import type { BuildJob, BuildThreadMessage, BuildWorkerInit, BuildWorkerMessage } from './protocol';
import { toWireError } from './wire-error';

if (!parentPort) throw new Error('src/engine/build-host.ts must run as a worker thread (see buildInWorker).');
const port = parentPort;
const init = workerData as BuildWorkerInit;
const flag = new Int32Array(init.cancelFlag);
const cancelled = () => Atomics.load(flag, CONTROL.cancel) !== 0;
// So that whoever claims this thread for a large build can lower its priority at once (thread-priority.ts).
const tid = currentThreadId();
Atomics.store(flag, CONTROL.tid, tid);

function send(msg: BuildWorkerMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(msg, transfer);
}


/**
 * Tests prove that a build never holds the thread answering tool calls by blocking this thread outright for
 * MSGBROWSE_TEST_BUILD_STALL_MS before the build finishes (never set outside the test suite).
 */
function stallForTests(): void {
  const ms = Number(process.env.MSGBROWSE_TEST_BUILD_STALL_MS ?? 0);
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The job, then (a split build's upper range) the lower range's join to messages and its part to merge: listened
 * for from the start, so none is missed while the thread prepares.
 */
let gotJob: (job: BuildJob) => void = () => undefined;
let gotLowerJoin: (join: SharedEmbeddingJoin | null) => void = () => undefined;
let gotLowerPart: (part: SplitPart) => void = () => undefined;
const job = new Promise<BuildJob>((resolve) => (gotJob = resolve));
const lowerJoin = new Promise<SharedEmbeddingJoin | null>((resolve) => (gotLowerJoin = resolve));
const lowerPart = new Promise<SplitPart>((resolve) => (gotLowerPart = resolve));
port.on('message', (msg: BuildThreadMessage) => {
  if (msg.type === 'start') gotJob(msg.job);
  else if (msg.type === 'join') gotLowerJoin(msg.join);
  else gotLowerPart(msg.part);
});

/**
 * `work`, or an AbortError once the build is cancelled. The cancel flag is shared memory nobody announces, so
 * while this thread has nothing else to do it looks at the flag every 10 ms (the engine worker terminates a build
 * thread that has not ended 2 s after a cancel: a waiting upper range ends well before).
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    let poll: NodeJS.Timeout | undefined;
    const end = () => {
      clearInterval(poll);
      signal.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      end();
      reject(signal.reason instanceof Error ? signal.reason : new DOMException('The request was cancelled.', 'AbortError'));
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    // Reading `aborted` is what makes the polling signal look at the flag.
    poll = setInterval(() => void signal.aborted, 10);
    work.then(
      (v) => {
        end();
        resolve(v);
      },
      (e: unknown) => {
        end();
        reject(e);
      },
    );
  });
}

/**
 * The archive on this thread's connection, and its join to messages built while no job is known yet. Failures are
 * kept for the job (a standby that could not open the archive reports it when a build is asked of it); a join that
 * failed is left to the build, which scans `messages` itself.
 */
async function prepare(): Promise<Archive> {
  if (init.wasmModule) useCompiledEngineModule(init.wasmModule);
  else send({ type: 'log', message: 'index build: no compiled engine was handed over; compiling sqlite3.wasm in the build thread' });
  await installInterruptHandler(cancelled);
  // This connection only scans (messages, then the model's embeddings): read ahead, 16 pages per read call.
  const archive = await openArchive(init.archivePath, { readAhead: true });
  // A split build's upper range is handed the lower range's join: no scan of `messages` here.
  if (init.receivesJoin) return archive;
  try {
    archive.prepareEmbeddingJoin();
  } catch (e) {
    if (cancelled()) throw e;
    send({ type: 'log', message: `index build: the embeddings' join to messages was not prepared ahead (${e instanceof Error ? e.message : String(e)}); the build scans for it` });
  }
  return archive;
}

/**
 * A split build's lower range, before it scans: its join to messages (the one its preparation made) for the upper
 * range, or null when it has none to give (the upper range then scans `messages` itself).
 */
function sendJoin(archive: Archive): void {
  let join: SharedEmbeddingJoin | null = null;
  try {
    join = archive.shareEmbeddingJoin();
  } catch (e) {
    if (cancelled()) throw e;
    send({ type: 'log', message: `index build: the join to messages could not be handed to the other range (${e instanceof Error ? e.message : String(e)}); it scans for its own` });
  }
  send({ type: 'join', join });
}

/**
 * A split build's upper range, its rows read: waits for the lower range's join and joins them through it (a join
 * of its own when the archive changed since the lower range made that one, or it had none to give).
 */
async function joinLater(records: UnjoinedEmbeddings, signal: AbortSignal): Promise<JoinedKeys> {
  const join = await untilAborted(lowerJoin, signal).catch((e: unknown) => {
    send({ type: 'log', message: "index build: cancelled while the upper range waited for the lower range's join" });
    throw e;
  });
  const joined = records.join(join);
  if (joined.through === 'own') {
    const why = join ? 'the archive changed since the lower range made its join' : 'the lower range had none to give';
    send({ type: 'log', message: `index build: the upper range scans messages for its own join (${why})` });
  }
  return joined;
}

async function main(): Promise<void> {
  const abort = pollingSignal(cancelled);
  const prepared = prepare();
  // Settled either way before it is awaited below.
  prepared.catch(() => undefined);
  try {
    // Nobody cancels a thread before its job is sent (a standby nobody claims is terminated): no need to poll here.
    const theJob = await job;
    const { model, dim, total, range, memory } = theJob;
    // Whoever sent the job did the same already, if it could.
    if (buildsAtLowPriority(theJob)) lowerPriority(tid);
    const opts = { model, dim, total, signal: abort.signal, onProgress: (progress: BuildProgress) => send({ type: 'progress', progress }), log: (message: string) => send({ type: 'log', message }) };
    const archive = await prepared;
    let whole: IndexParts | undefined;
    let part: SplitPart | undefined;
    try {
      if (range?.join === 'send') sendJoin(archive);
      if (!range) {
        whole = await consumeRecords(archive.embeddings(model, { shareVectors: true }), { ...opts, ...(memory ? { memory } : {}) });
        if (memory) {
          send({
            type: 'log',
            message:
              whole.memory === memory
                ? `index build: the rows of model ${model} went into the memory made ahead`
                : `index build: the memory made ahead held too few rows for model ${model}; the build made its own`,
          });
        }
      } else {
        if (dim === undefined) throw new Error('A split index build needs the dimension its shared memory was sized for.');
        const stream = { shareVectors: true, after: range.after, upTo: range.upTo };
        if (range.join === 'receive') {
          // Scans while the lower range makes the join, then joins its rows through it.
          const records = archive.embeddingsJoinedLater(model, { ...stream, expected: total ?? 0 });
          part = await consumeRange(records, { ...opts, dim }, range.placement, () => joinLater(records, abort.signal));
        } else part = await consumeRange(archive.embeddings(model, stream), { ...opts, dim }, range.placement);
      }
    } finally {
      archive.close();
    }
    if (part && range?.merges) {
      // Up to half the index's rows may move: here, not on the thread that answers tool calls.
      const lower = await untilAborted(lowerPart, abort.signal).catch((e: unknown) => {
        send({ type: 'log', message: 'index build: cancelled while the upper range waited for the lower one' });
        throw e;
      });
      // Tests set the bytes left behind above which the merged index moves to a memory of its own (default: 16 MiB
      // and a quarter of the index; never set outside the suite).
      const compactAbove = process.env.MSGBROWSE_TEST_SPLIT_COMPACT_BYTES;
      whole = checkedParts(mergeSplitParts(model, range.placement.memory, lower, part, compactAbove === undefined ? undefined : Number(compactAbove)), opts);
      if (whole.memory !== range.placement.memory) {
        const counted = range.placement.capacity;
        send({ type: 'log', message: `index build: ${counted - whole.n} of ${counted} counted rows were skipped; the index moved to a memory of its own size (${(whole.meta.end / 2 ** 20).toFixed(0)} MiB)` });
      }
    }
    stallForTests();
    abort.signal.throwIfAborted();
    if (whole) {
      const { packed, transfer } = packParts(whole);
      send({ type: 'built', parts: packed }, transfer);
    } else if (part) send({ type: 'range', part }, splitPartTransfer(part));
  } catch (e) {
    send({ type: 'failed', error: cancelled() ? { kind: 'abort', message: 'The request was cancelled.' } : toWireError(e) });
  } finally {
    port.close();
  }
}

void main();
