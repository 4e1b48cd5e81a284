/**
 * Index-build threads and their scheduling priority.
 *
 * A large build (LOW_PRIORITY_ROWS vectors or more) runs at the lowest priority, so on a busy machine the threads
 * answering tool calls (the engine worker, the host's main thread) always get the CPU first and the build takes what
 * is left: it runs for seconds while calls go on. A smaller one ends within about a second while a first semantic
 * call waits for it, so it keeps the normal priority; so does every thread's preparation (engine, archive, join),
 * which a thread started ahead of a build does before any job is known. At the lowest priority that preparation got
 * little of the CPU while the server was starting (the threads answering `initialize` and the first call, V8's
 * compile threads): bench/analysis.md, issue 15.
 *
 * Linux only: there `setpriority` applies to one thread, named by its id, which /proc/thread-self gives; elsewhere
 * it would renice the whole process, so priorities are left alone.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';

export const LOW_PRIORITY_ROWS = 200_000;

/** Slots of a build thread's shared control words (BuildWorkerInit.cancelFlag). */
export const CONTROL = { cancel: 0, tid: 1, words: 2 } as const;

/** Whether a build job runs at the lowest priority: a split build's range counts its half of the rows. */
export function buildsAtLowPriority(job: { total?: number; range?: unknown }): boolean {
  return (job.total ?? 0) * (job.range ? 2 : 1) >= LOW_PRIORITY_ROWS;
}

/** This thread's kernel thread id (Linux), or 0. */
export function currentThreadId(): number {
  if (process.platform !== 'linux') return 0;
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 && tid !== process.pid ? tid : 0;
  } catch {
    return 0;
  }
}

/** Runs thread `tid` (from currentThreadId; 0: unknown) at the lowest priority; nothing when not permitted. */
export function lowerPriority(tid: number): void {
  if (tid <= 0) return;
  try {
    os.setPriority(tid, os.constants.priority.PRIORITY_LOW);
  } catch {
    // Not permitted, or the thread has ended: it builds at normal priority.
  }
}
