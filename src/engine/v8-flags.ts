/**
 * V8 settings a process keeps across the start of its worker threads.
 *
 * Creating an isolate (every worker thread's start) clamps `--semi-space-growth-factor` back to 2 for the whole
 * process, whatever the process set at run time (`v8.setFlagsFromString`) or on its command line: a CLI that keeps
 * its young generation small (src/cli/memory.ts) found its main thread's new space at 8 MB once the engine worker
 * had started and at 16 MB once an index-build worker had, instead of 2 MB (test/cli/memory.test.ts shows the
 * reset). So the kept flags are re-applied from inside each new worker as it starts (worker-flags.ts, first import
 * of the worker entries, with the flags in its workerData), and by the thread that started it once it is online.
 *
 * Nothing is kept unless a process asks (the extension never changes the V8 settings of VS Code's extension host).
 */
import * as v8 from 'node:v8';
import type { Worker } from 'node:worker_threads';

let kept: readonly string[] = [];

/** Sets `flags` now and again after every worker this thread starts. */
export function keepV8Flags(flags: readonly string[]): void {
  kept = [...flags];
  reapply();
}

/** The flags this thread keeps (handed to the engine worker, which starts workers of its own). */
export function keptV8Flags(): readonly string[] {
  return kept;
}

function reapply(): void {
  for (const flag of kept) v8.setFlagsFromString(flag);
}

/** Re-applies the kept flags once `worker` is online (its start reset them). */
export function keepFlagsAcross(worker: Worker): void {
  if (kept.length) worker.once('online', reapply);
}
