// The index-build worker (bundled to dist/index-build-worker.js): one short-lived thread per vector index build. It
// writes int8 rows into shared kernel memory and hands the parts back without a copy; a shared flag cancels it.
import { parentPort, workerData } from 'node:worker_threads';
import { openArchive } from '../archive';
import { useCompiledEngineModule } from '../archive/wasm-engine';
import { consumeRecords, packParts, type IndexParts } from '../search/vector';
import { installInterruptHandler } from './interrupt';
import { pollingSignal } from './polling-signal';
import type { BuildWorkerInit, BuildWorkerMessage } from './protocol';
import { toWireError } from './wire-error';

if (!parentPort) throw new Error('src/engine/build-host.ts must run as a worker thread (see buildInWorker).');
const port = parentPort;
const init = workerData as BuildWorkerInit;
const flag = new Int32Array(init.cancelFlag);
const cancelled = () => Atomics.load(flag, 0) !== 0;

const send = (msg: BuildWorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(msg, transfer);
const log = (message: string) => send({ type: 'log', message });

async function main(): Promise<void> {
  try {
    if (init.wasmModule) useCompiledEngineModule(init.wasmModule);
    else log('index build: no compiled engine was handed over; compiling sqlite3.wasm in the build thread');
    await installInterruptHandler(cancelled);
    // This connection only scans the model's embeddings: read ahead.
    const archive = await openArchive(init.archivePath, { readAhead: true });
    const abort = pollingSignal(cancelled);
    const { model, dim, total } = init;
    let parts: IndexParts;
    try {
      parts = await consumeRecords(archive.embeddings(model, { shareVectors: true }), {
        model,
        dim,
        total,
        signal: abort.signal,
        onProgress: (progress) => send({ type: 'progress', progress }),
        log,
      });
    } finally {
      archive.close();
    }
    abort.signal.throwIfAborted();
    const { packed, transfer } = packParts(parts);
    send({ type: 'built', parts: packed }, transfer);
  } catch (e) {
    const error = cancelled() ? { kind: 'abort' as const, message: 'The request was cancelled.' } : toWireError(e);
    send({ type: 'failed', error });
  } finally {
    port.close();
  }
}

void main();
