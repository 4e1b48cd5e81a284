/**
 * What the engine worker does first, so its first tool call does not stall.
 *
 * - **The event loop never runs dry.** While a worker starts, it awaits V8 tasks (instantiating sqlite3.wasm, the
 *   VFS) with no libuv handle open: its port is not referenced until a 'message' listener is attached. Each time
 *   the loop runs dry, Node calls `NodePlatform::DrainTasks`, which blocks the thread until every background task
 *   of the process has finished, and V8 is compiling sqlite3.wasm's hot functions with its optimising compiler
 *   right then (the VDBE interpreter alone takes about 100 ms). Measured on the engine worker: 106-166 ms blocked
 *   in `DrainTasks` just after it said it was ready (a gdb backtrace of the stalled thread), so the first tool call
 *   of a session waited for compiles it does not need. Referencing the port from the start keeps the loop alive:
 *   the compiles finish in the background while the thread answers. Closing the port (on shutdown, or when the
 *   archive cannot be opened) releases it. The index-build worker needs no such call: it attaches its merge
 *   listener when its module loads, and a 'message' listener references the port the same way.
 * - **`performance` is loaded before the first search.** In a worker thread the global is a lazy getter that
 *   loads `perf_hooks` on first use (about 20 ms here); the vector scan reads the clock to yield, so the first
 *   search of a session paid for it.
 */
import type { MessagePort } from 'node:worker_threads';

/** Keeps this worker's event loop alive until `port` closes (see above). Call before the first await. */
export function keepEventLoopAlive(port: MessagePort): void {
  port.ref();
}

/** Loads the lazy globals a first search uses, once this thread has nothing else to do. */
export function warmLazyGlobalsSoon(): void {
  setImmediate(() => void performance.now());
}
