/**
 * Runs a vector index build in worker threads of its own (build-host.ts) and brings the parts back: the engine
 * worker's thread only relays progress; the rows arrive in the shared memory the build wrote them into.
 *
 * A large build is split in two rowid ranges, one thread each, writing into one shared memory (search/vector/
 * split.ts): the scan, the join to messages and the quantisation of each half run side by side, so on two cores a
 * first semantic call waits for about half of them. Each thread also builds its own hash → message map (one scan
 * of `messages`), and the upper range's thread merges the two parts, so this thread still only relays. Should the
 * archive grow during a split build, so that its rows no longer fit, the build runs again in one thread, which
 * sizes its memory as rows arrive.
 */
import * as os from 'node:os';
import { Worker } from 'node:worker_threads';
import { isVectorIndexError, splitPartTransfer, splitPlacements, unpackParts, type BuildProgress, type IndexParts, type RowPlacement } from '../search/vector';
import type { BuildMergeMessage, BuildWorkerInit, BuildWorkerMessage } from './protocol';
import { abortError, fromWireError } from './wire-error';
import { resolveWorkerScript } from './worker-script';

export interface BuildRequest extends Omit<BuildWorkerInit, 'cancelFlag' | 'range'> {
  /**
   * The lowest and highest rowid of the model's embeddings a build reads (Archive.embeddingSpan), asked only for a
   * build that would be split: with `total` and `dim`, what it needs to split the rows between threads.
   */
  span?: () => { first: number; last: number } | undefined;
  /** Threads to build with (1 or 2). Default: 2 for a large build on a machine with two cores or more, else 1. */
  threads?: number;
  onProgress?: (progress: BuildProgress) => void;
  log?: (message: string) => void;
  signal?: AbortSignal;
}

/** How long a cancelled build may take to unwind (remove its temporary file) before its thread is terminated. */
const CANCEL_GRACE_MS = 2000;

/**
 * Below this many vectors a build stays in one thread. Each thread starts (~60 ms with its engine) and scans all of
 * `messages` for its own hash → message map, and two threads keep 12-17 MB more resident afterwards: at 100k × 768
 * that cost what the second thread saved (A/B on two vCPUs: builds of 610-673 ms against 614-649 ms), at 1M × 768
 * the split build takes 4.1-4.6 s instead of 5.3-6.3 s (bench/analysis.md).
 */
const SPLIT_MIN_ROWS = 200_000;

/** The threads a build uses by default; MSGBROWSE_TEST_SPLIT_MIN_ROWS lets tests split small archives. */
function defaultThreads(total: number | undefined): number {
  const min = Number(process.env.MSGBROWSE_TEST_SPLIT_MIN_ROWS ?? SPLIT_MIN_ROWS);
  return (total ?? 0) >= min && os.availableParallelism() >= 2 ? 2 : 1;
}

export async function buildInWorker(req: BuildRequest): Promise<IndexParts> {
  if (req.signal?.aborted) throw abortError(req.signal);
  const { total, dim } = req;
  const threads = req.threads ?? defaultThreads(total);
  const span = threads >= 2 && total !== undefined && total >= 2 && dim !== undefined ? req.span?.() : undefined;
  if (span && span.last > span.first && total !== undefined && dim !== undefined) {
    try {
      const parts = await buildSplit(req, total, dim, span.first, span.last);
      if (parts) return parts;
    } catch (e) {
      // Rows beyond the count (the archive grew): one thread sizes its memory as rows arrive.
      if (!(isVectorIndexError(e) && e.code === 'split_overflow')) throw e;
      req.log?.(`vector index for model ${req.model}: ${e.message}; building again in one thread`);
    }
  }
  const built = await runBuildThread(req, {}, req.onProgress).answer;
  if (built.type !== 'built') throw new Error('The index-build worker answered a whole build with a range.');
  return unpackParts(built.parts);
}

/**
 * Two threads, each one half of the model's rowid span (first, last], into one shared memory sized for `total` rows.
 * The lower half's part goes to the upper half's thread, which merges the two and answers with the whole index:
 * moving rows and joining arrays never runs on this thread, which answers tool calls.
 */
async function buildSplit(req: BuildRequest, total: number, dim: number, first: number, last: number): Promise<IndexParts | undefined> {
  let low: RowPlacement;
  let high: RowPlacement;
  try {
    [low, high] = splitPlacements(req.model, dim, total);
  } catch (e) {
    // A memory for every counted row past the 4 GiB wasm32 limit (where the usable rows may fit), or none to be had.
    req.log?.(`vector index for model ${req.model}: not split between two threads (${e instanceof Error ? e.message : String(e)}); building in one thread`);
    return undefined;
  }
  const mid = first + Math.floor((last - first) / 2);
  req.log?.(`vector index for model ${req.model}: building ${total} vectors in two threads (rowids up to ${mid}, and after)`);
  const done = [0, 0];
  const progress = (i: number) => (p: BuildProgress) => {
    done[i] = p.done;
    req.onProgress?.({ done: done[0] + done[1], total });
  };
  // The caller's cancellation, or the end of the other range (the build fails, or runs again in one thread).
  const stop = new AbortController();
  const outer = req.signal;
  const onOuter = () => stop.abort(outer?.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  try {
    const signal = stop.signal;
    const half = Math.ceil(total / 2);
    const lower = runBuildThread({ ...req, total: half, signal }, { range: { upTo: mid, placement: low } }, progress(0));
    const upper = runBuildThread({ ...req, total: total - half, signal }, { range: { after: mid, placement: high, merges: true } }, progress(1));
    const handed = lower.answer
      .then((msg) => {
        if (msg.type !== 'range') throw new Error('The index-build worker answered a range with a whole build.');
        upper.post({ type: 'merge', part: msg.part }, splitPartTransfer(msg.part));
      })
      .catch((e: unknown) => {
        // Without the lower part the upper range would wait for it forever.
        stop.abort();
        throw e;
      });
    // The upper range's own error waits for the lower range's answer, whose error a one-thread build would meet
    // first; its rows not fitting ends the lower range at once (the build runs again in one thread).
    const merged = upper.answer.catch((e: unknown) => {
      if (isVectorIndexError(e) && e.code === 'split_overflow') stop.abort();
      throw e;
    });
    const settled = await Promise.allSettled([handed, merged]);
    if (outer?.aborted) throw abortError(outer);
    const [lowErr, highErr] = settled.map((r) => (r.status === 'rejected' ? (r.reason as unknown) : undefined));
    const overflow = [lowErr, highErr].find((e) => isVectorIndexError(e) && e.code === 'split_overflow');
    if (overflow) throw overflow;
    // A range stopped because the other one failed answers with an AbortError of no interest.
    const aborted = (e: unknown) => e instanceof Error && e.name === 'AbortError';
    if (lowErr !== undefined && !aborted(lowErr)) throw lowErr;
    if (highErr !== undefined) throw highErr;
    if (lowErr !== undefined) throw lowErr;
    const built = (settled[1] as PromiseFulfilledResult<Finished>).value;
    if (built.type !== 'built') throw new Error('The upper range of a split build answered without the merged index.');
    return unpackParts(built.parts);
  } finally {
    outer?.removeEventListener('abort', onOuter);
  }
}

type Finished = Extract<BuildWorkerMessage, { type: 'built' | 'range' }>;

interface BuildThread {
  answer: Promise<Finished>;
  post(msg: BuildMergeMessage, transfer: ArrayBuffer[]): void;
}

/** One index-build thread, from start to its answer; `extra` makes it a range of a split build. */
function runBuildThread(req: BuildRequest, extra: Pick<BuildWorkerInit, 'range'>, onProgress: ((p: BuildProgress) => void) | undefined): BuildThread {
  const { onProgress: _p, log, signal, span: _s, threads: _t, ...rest } = req;
  if (signal?.aborted) return { answer: Promise.reject(abortError(signal)), post: () => undefined };
  const cancelFlag = new SharedArrayBuffer(4);
  const flag = new Int32Array(cancelFlag);
  const init: BuildWorkerInit = { ...rest, ...extra, cancelFlag };
  const script = resolveWorkerScript(undefined, 'build');
  const worker = new Worker(script.file, { eval: script.eval, workerData: init, execArgv: script.eval ? [] : undefined });
  let settled = false;
  const answer = new Promise<Finished>((resolve, reject) => {
    let reason = '';
    let killTimer: NodeJS.Timeout | undefined;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = (): void => {
      Atomics.store(flag, 0, 1);
      killTimer = setTimeout(() => void worker.terminate(), CANCEL_GRACE_MS);
      finish(() => reject(abortError(signal)));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (msg: BuildWorkerMessage) => {
      if (msg.type === 'progress') onProgress?.(msg.progress);
      else if (msg.type === 'log') log?.(msg.message);
      else if (msg.type === 'failed') finish(() => reject(fromWireError(msg.error)));
      else finish(() => resolve(msg));
    });
    worker.on('error', (e: Error) => {
      reason = e.message || e.name;
    });
    worker.on('exit', (code) => {
      clearTimeout(killTimer);
      finish(() => reject(new Error(`The index-build worker stopped unexpectedly (${reason || `exit code ${code}`}); the next search starts the build again.`)));
    });
  });
  return {
    answer,
    post: (msg, transfer) => {
      // A thread that already ended (it failed, or was cancelled) needs nothing more.
      if (!settled) worker.postMessage(msg, transfer);
    },
  };
}
