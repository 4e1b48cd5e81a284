/**
 * Runs a vector index build in worker threads of its own (build-host.ts) and brings the parts back: the engine
 * worker's thread only relays progress; the rows arrive in the shared memory the build wrote them into.
 *
 * A large build is split in two rowid ranges, one thread each, writing into one shared memory (search/vector/
 * split.ts): the two ranges' scans and quantisation run side by side, so on two cores a first semantic call waits
 * for about half of them. The hash → message map (one scan of `messages`) is made once,
 * by the lower range's thread, which hands it to the upper range's thread in shared memory before it scans (relayed
 * here as a `join` message), and the upper range's thread merges the two parts, so this thread still only relays.
 * Should the archive grow during a split build, so that its rows no longer fit, the build runs again in one thread,
 * which sizes its memory as rows arrive.
 */
import * as os from 'node:os';
import { Worker } from 'node:worker_threads';
import { isVectorIndexError, prefault, splitPartTransfer, splitPlacements, unpackParts, wholeBuildMemory, type BuildProgress, type IndexParts, type RowPlacement } from '../search/vector';
import type { WasmMemory } from '../search/kernel/wasm-api';
import type { SharedEmbeddingJoin } from '../archive/types';
import type { BuildJob, BuildThreadMessage, BuildWorkerInit, BuildWorkerMessage } from './protocol';
import { abortError, fromWireError } from './wire-error';
import { buildsAtLowPriority, CONTROL, lowerPriority } from './thread-priority';
import { keepFlagsAcross, keptV8Flags } from './v8-flags';
import { resolveWorkerScript } from './worker-script';

export interface BuildRequest extends Omit<BuildJob, 'range'> {
  archivePath: string;
  /** The compiled sqlite3.wasm the build thread instantiates (else it compiles its own). */
  wasmModule?: object;
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
 * Below this many vectors a build stays in one thread. At 100k × 768 a split (the join made once, the upper range
 * scanning meanwhile) answered a first call about 7% sooner (1807 against 1937 ms median, 6 servers each), and the
 * server's memory afterwards was no better (204-215 against 203-215 MB), with the 200 MB line in between; at
 * 1M × 768 the split build is the faster by seconds (bench/analysis.md).
 */
const SPLIT_MIN_ROWS = 200_000;

/**
 * The lower range's share of a split build's rowid span. Its thread makes the join to messages first (one scan of
 * `messages`) while the upper range's thread already scans its embeddings (joined once the join is handed over):
 * with these shares both end at about the same time (bench/analysis.md).
 */
const LOWER_SHARE = 0.4;

/** The threads a build uses by default; MSGBROWSE_TEST_SPLIT_MIN_ROWS lets tests split small archives. */
function defaultThreads(total: number | undefined): number {
  return (total ?? 0) >= splitMinRows() && os.availableParallelism() >= 2 ? 2 : 1;
}

function splitMinRows(): number {
  return Number(process.env.MSGBROWSE_TEST_SPLIT_MIN_ROWS ?? SPLIT_MIN_ROWS);
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
  // A build in one thread needs no upper range's thread (the engine worker may have started one ahead).
  discardBuildThread('upper');
  // Where a core is left idle, its memory is made here and this thread commits its pages while the build thread
  // reads (prefault.ts), so the build thread no longer faults on each page it writes. A build that would be split (it
  // fell back to one thread) or a one-core machine leaves none: the pages would be committed on the build's core.
  const idleCore = os.availableParallelism() >= 2 && (total ?? 0) < splitMinRows();
  const ahead = dim !== undefined && total !== undefined && total >= prefaultMinRows() && idleCore ? madeAhead(req.model, dim, total, req.log) : undefined;
  const thread = runBuildThread(req, ahead ? { memory: ahead.memory } : {}, req.onProgress);
  let done = false;
  const touched = ahead ? prefault(ahead.memory, 0, ahead.bytes, () => done || req.signal?.aborted === true) : undefined;
  try {
    const built = await thread.answer;
    if (built.type !== 'built') throw new Error('The index-build worker answered a whole build with a range.');
    return unpackParts(built.parts);
  } finally {
    done = true;
    if (touched) {
      const { pages, complete } = await touched;
      req.log?.(`vector index for model ${req.model}: ${pages} pages of its memory committed ahead of the build${complete ? '' : ' (stopped when the build ended)'}`);
    }
  }
}

/**
 * Below this many vectors a one-thread build makes its own memory: the faults a prefault would take off the build
 * thread cost it under about 35 ms (bench/analysis.md: 3.5 µs per 768-d row).
 */
const PREFAULT_MIN_ROWS = 10_000;

/** The rows from which a one-thread build's memory is made and committed ahead; MSGBROWSE_TEST_PREFAULT_MIN_ROWS lets tests use small archives. */
function prefaultMinRows(): number {
  return Number(process.env.MSGBROWSE_TEST_PREFAULT_MIN_ROWS ?? PREFAULT_MIN_ROWS);
}

/** The memory for a one-thread build, or undefined when none can be made here (the build thread then makes its own). */
function madeAhead(model: string, dim: number, total: number, log?: (message: string) => void): { memory: WasmMemory; bytes: number } | undefined {
  try {
    return wholeBuildMemory(dim, total);
  } catch (e) {
    log?.(`vector index for model ${model}: no memory made ahead of the build (${e instanceof Error ? e.message : String(e)}); the build thread makes its own`);
    return undefined;
  }
}

/**
 * Two threads, each one range of the model's rowid span (first, last] (the lower one LOWER_SHARE of it), into one
 * shared memory sized for `total` rows. The lower range's part goes to the upper range's thread, which merges the
 * two and answers with the whole index:
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
  const mid = first + Math.floor((last - first) * LOWER_SHARE);
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
    const lowerCount = Math.ceil(total * LOWER_SHARE);
    // The lower range's thread (the one started ahead, if any, whose join is made already) hands its join to
    // the upper range's before it scans: `messages` is scanned once, and the upper range only waits for it.
    let upper: BuildThread | undefined;
    const lower = runBuildThread({ ...req, total: lowerCount, signal }, { range: { upTo: mid, placement: low, join: 'send' } }, progress(0), (join) =>
      upper?.post({ type: 'join', join }, []),
    );
    upper = runBuildThread({ ...req, total: total - lowerCount, signal }, { range: { after: mid, placement: high, merges: true, join: 'receive' } }, progress(1));
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
  post(msg: BuildThreadMessage, transfer: ArrayBuffer[]): void;
}

/**
 * How long a build thread started ahead of a build (prepareBuildThread) waits for it before it ends: a first
 * semantic call comes right after a server starts, or the thread is not needed (the index came from its cache).
 */
const STANDBY_IDLE_MS = 30_000;

/**
 * What a thread started ahead of a build prepares: `whole` its engine, the archive and its join to messages (a
 * build in one thread, or a split build's lower range); `upper` only its engine and the archive (a split build's
 * upper range, handed the lower range's join).
 */
export type StandbyRole = 'whole' | 'upper';

/** An index-build thread from its start: its worker, its cancel flag, what it said before anyone listened. */
class StartedThread {
  readonly flag: Int32Array;
  readonly worker: Worker;
  /** Why the worker failed, for the message of its exit. */
  reason = '';
  exited = false;
  private early: BuildWorkerMessage[] = [];
  private handler: ((msg: BuildWorkerMessage) => void) | undefined;

  constructor(readonly archivePath: string, wasmModule: object | undefined, role: StandbyRole = 'whole') {
    const cancelFlag = new SharedArrayBuffer(4 * CONTROL.words);
    this.flag = new Int32Array(cancelFlag);
    const flags = keptV8Flags();
    const init: BuildWorkerInit = {
      archivePath,
      cancelFlag,
      ...(wasmModule ? { wasmModule } : {}),
      ...(flags.length ? { keepV8Flags: [...flags] } : {}),
      ...(role === 'upper' ? { receivesJoin: true } : {}),
    };
    const script = resolveWorkerScript(undefined, 'build');
    this.worker = new Worker(script.file, { eval: script.eval, workerData: init, execArgv: script.eval ? [] : undefined });
    keepFlagsAcross(this.worker);
    this.worker.on('message', (msg: BuildWorkerMessage) => (this.handler ? this.handler(msg) : this.early.push(msg)));
    this.worker.on('error', (e: Error) => {
      this.reason = e.message || e.name;
    });
    this.worker.once('exit', () => {
      this.exited = true;
    });
  }

  /** Hands every message, those sent before this call first, to `handler`. */
  listen(handler: (msg: BuildWorkerMessage) => void): void {
    this.handler = handler;
    const early = this.early;
    this.early = [];
    for (const msg of early) handler(msg);
  }
}

/** The threads started ahead of a build (at most one per role and engine worker), until a build takes them or they end. */
const standby: Partial<Record<StandbyRole, { thread: StartedThread; timer: NodeJS.Timeout }>> = {};

/**
 * Starts an index-build thread for `archivePath` before any build is asked for: it loads its engine, opens the
 * archive and builds the join of embeddings to messages (every build of the archive needs it, whatever the model)
 * meanwhile, so the next build of that archive starts with that part done. The engine worker calls it beside its
 * own start when a build is expected (the CLI prewarms the index, and no cache file holds it).
 *
 * `upper`: the thread of a split build's upper range, which prepares no join (it is handed the lower range's). The
 * engine worker starts it beside the `whole` one; a build that is not split ends it.
 *
 * Not the build's path otherwise: a build that finds no such thread starts one, as before. The thread ends when
 * nobody took it within STANDBY_IDLE_MS, or at discardBuildThread(), and it never keeps the process alive. Should
 * the archive's files change before the build, its connection reopens and the join is scanned again (the per-open
 * memo, archive.ts), so a thread started early never builds from an older archive.
 */
export function prepareBuildThread(archivePath: string, wasmModule?: object, idleMs = STANDBY_IDLE_MS, role: StandbyRole = 'whole'): void {
  discardBuildThread(role);
  const thread = new StartedThread(archivePath, wasmModule, role);
  thread.worker.unref();
  const timer = setTimeout(() => {
    if (standby[role]?.thread === thread) discardBuildThread(role);
  }, idleMs);
  timer.unref();
  standby[role] = { thread, timer };
}

/** Ends the threads prepareBuildThread started (of `role`, else all) that no build took (the index was loaded instead, or shutdown). */
export function discardBuildThread(role?: StandbyRole): void {
  for (const r of role ? [role] : (['whole', 'upper'] as const)) {
    const s = standby[r];
    delete standby[r];
    if (!s) continue;
    clearTimeout(s.timer);
    void s.thread.worker.terminate();
  }
}

/** Whether a thread started ahead (of `role`, default `whole`) is waiting (tests). */
export function hasStandbyBuildThread(role: StandbyRole = 'whole'): boolean {
  const s = standby[role];
  return s !== undefined && !s.thread.exited;
}

/** The waiting thread of `role` for `archivePath`, if it is alive; a thread for another path is ended. */
function takeStandby(archivePath: string, role: StandbyRole): StartedThread | undefined {
  const s = standby[role];
  if (!s) return undefined;
  if (s.thread.exited || s.thread.archivePath !== archivePath) {
    discardBuildThread(role);
    return undefined;
  }
  delete standby[role];
  clearTimeout(s.timer);
  s.thread.worker.ref();
  return s.thread;
}

/** One index-build thread (one started ahead, or a new one), from its job to its answer; `extra` makes it a range of a split build. */
function runBuildThread(
  req: BuildRequest,
  extra: Pick<BuildJob, 'range' | 'memory'>,
  onProgress: ((p: BuildProgress) => void) | undefined,
  /** A split build's lower range: its join to messages, for the upper range. */
  onJoin?: (join: SharedEmbeddingJoin | null) => void,
): BuildThread {
  const { onProgress: _p, log, signal, span: _s, threads: _t, archivePath, wasmModule, ...rest } = req;
  if (signal?.aborted) return { answer: Promise.reject(abortError(signal)), post: () => undefined };
  const role: StandbyRole = extra.range?.join === 'receive' ? 'upper' : 'whole';
  const ahead = takeStandby(archivePath, role);
  if (ahead) {
    log?.(
      role === 'upper'
        ? `vector index for model ${req.model}: the upper range builds in the thread started ahead of it (engine and archive prepared)`
        : `vector index for model ${req.model}: building in the thread started ahead of the build (engine, archive and join to messages prepared)`,
    );
  }
  const thread = ahead ?? new StartedThread(archivePath, wasmModule, role);
  const { worker, flag } = thread;
  let settled = false;
  const answer = new Promise<Finished>((resolve, reject) => {
    let killTimer: NodeJS.Timeout | undefined;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = (): void => {
      Atomics.store(flag, CONTROL.cancel, 1);
      killTimer = setTimeout(() => void worker.terminate(), CANCEL_GRACE_MS);
      finish(() => reject(abortError(signal)));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    thread.listen((msg) => {
      if (msg.type === 'progress') onProgress?.(msg.progress);
      else if (msg.type === 'log') log?.(msg.message);
      else if (msg.type === 'join') onJoin?.(msg.join);
      else if (msg.type === 'failed') finish(() => reject(fromWireError(msg.error)));
      else finish(() => resolve(msg));
    });
    worker.once('exit', (code) => {
      clearTimeout(killTimer);
      finish(() => reject(new Error(`The index-build worker stopped unexpectedly (${thread.reason || `exit code ${code}`}); the next search starts the build again.`)));
    });
  });
  const job: BuildJob = { ...rest, ...extra };
  // A thread started ahead may be in its preparation, at normal priority: a large build lowers it now, not once
  // that preparation ends and the thread reads its job (thread-priority.ts).
  if (buildsAtLowPriority(job)) lowerPriority(Atomics.load(flag, CONTROL.tid));
  worker.postMessage({ type: 'start', job } satisfies BuildThreadMessage);
  return {
    answer,
    post: (msg, transfer) => {
      // A thread that already ended (it failed, or was cancelled) needs nothing more.
      if (!settled) worker.postMessage(msg, transfer);
    },
  };
}
