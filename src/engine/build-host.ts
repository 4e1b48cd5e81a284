/**
 * The index-build worker: one short-lived thread per vector index build, started by the engine worker. It opens
 * the archive on its own connection, streams the model's embeddings into int8 rows in a shared kernel memory and
 * hands the parts back without a copy (the engine worker writes the cache file afterwards, with async I/O). The engine
 * worker keeps answering tool calls meanwhile: a build never shares the thread, the connection or the SQLite page
 * cache that answers them. Bundled by esbuild.js to dist/index-build-worker.js.
 *
 * Cancellation: the engine worker sets the shared flag; SQLite's progress handler and the build's signal poll it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openArchive } from '../archive';
import { useCompiledEngineModule } from '../archive/wasm-engine';
import { consumeRecords, packParts } from '../search/vector';
import { installInterruptHandler } from './interrupt';
import { pollingSignal } from './polling-signal';
import type { BuildWorkerInit, BuildWorkerMessage } from './protocol';
import { toWireError } from './wire-error';

if (!parentPort) throw new Error('src/engine/build-host.ts must run as a worker thread (see buildInWorker).');
const port = parentPort;
const init = workerData as BuildWorkerInit;
const flag = new Int32Array(init.cancelFlag);
const cancelled = () => Atomics.load(flag, 0) !== 0;

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
 * Runs this thread at the lowest scheduling priority, so on a busy machine the threads answering tool calls (the
 * engine worker, the host's main thread) always get the CPU first and the build takes what is left. Linux only:
 * there `setpriority` applies to one thread, found through /proc/thread-self; elsewhere it would renice the
 * whole process, so it is left alone.
 */
function lowerThreadPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0 && tid !== process.pid) os.setPriority(tid, os.constants.priority.PRIORITY_LOW);
  } catch {
    // No procfs or not permitted: build at normal priority.
  }
}

async function main(): Promise<void> {
  lowerThreadPriority();
  const abort = pollingSignal(cancelled);
  try {
    if (init.wasmModule) useCompiledEngineModule(init.wasmModule);
    else send({ type: 'log', message: 'index build: no compiled engine was handed over; compiling sqlite3.wasm in the build thread' });
    await installInterruptHandler(cancelled);
    // This connection only scans (messages, then the model's embeddings): read ahead, 16 pages per read call.
    const archive = await openArchive(init.archivePath, { readAhead: true });
    try {
      const { model, dim, total } = init;
      const parts = await consumeRecords(
        archive.embeddings(model, { shareVectors: true }),
        { model, dim, total, signal: abort.signal, onProgress: (progress) => send({ type: 'progress', progress }), log: (message) => send({ type: 'log', message }) },
      );
      stallForTests();
      abort.signal.throwIfAborted();
      const { packed, transfer } = packParts(parts);
      send({ type: 'built', parts: packed }, transfer);
    } finally {
      archive.close();
    }
  } catch (e) {
    send({ type: 'failed', error: cancelled() ? { kind: 'abort', message: 'The request was cancelled.' } : toWireError(e) });
  } finally {
    port.close();
  }
}

void main();
