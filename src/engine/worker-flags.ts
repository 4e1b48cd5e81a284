/**
 * Imported first by the worker entries (host.ts, build-host.ts), for its side effect: the V8 flags the process keeps
 * (v8-flags.ts) are re-applied as soon as this worker runs any code of ours. Its isolate's creation has just reset
 * them for the whole process; re-applying here, rather than once the starting thread hears that the worker is
 * online, leaves the other threads the shortest time at the defaults (the CLI's main thread is loading modules
 * right then, and a young generation that grew does not shrink back). A worker that starts workers of its own
 * keeps the same flags across their starts.
 */
import { workerData } from 'node:worker_threads';
import { keepV8Flags } from './v8-flags';

const flags = (workerData as { keepV8Flags?: unknown } | null | undefined)?.keepV8Flags;
if (Array.isArray(flags) && flags.length) keepV8Flags(flags.filter((f): f is string => typeof f === 'string'));
