/**
 * Runs one vector index build in its own worker thread (build-host.ts) and brings the parts back: the engine
 * worker's thread only relays progress; the rows arrive in the shared memory the build wrote them into.
 */
import { Worker } from 'node:worker_threads';
import type { BuildProgress, PackedParts } from '../search/vector';
import type { BuildWorkerInit, BuildWorkerMessage } from './protocol';
import { abortError, fromWireError } from './wire-error';
import { resolveWorkerScript } from './worker-script';

export interface BuildRequest extends Omit<BuildWorkerInit, 'cancelFlag'> {
  onProgress?: (progress: BuildProgress) => void;
  log?: (message: string) => void;
  signal?: AbortSignal;
}

/** How long a cancelled build may take to unwind (remove its temporary file) before its thread is terminated. */
const CANCEL_GRACE_MS = 2000;

export function buildInWorker(req: BuildRequest): Promise<PackedParts> {
  const { onProgress, log, signal, ...rest } = req;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const cancelFlag = new SharedArrayBuffer(4);
  const flag = new Int32Array(cancelFlag);
  const init: BuildWorkerInit = { ...rest, cancelFlag };
  const script = resolveWorkerScript(undefined, 'build');
  const worker = new Worker(script.file, { eval: script.eval, workerData: init, execArgv: script.eval ? [] : undefined });
  return new Promise((resolve, reject) => {
    let settled = false;
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
      else if (msg.type === 'built') finish(() => resolve(msg.parts));
      else finish(() => reject(fromWireError(msg.error)));
    });
    worker.on('error', (e: Error) => {
      reason = e.message || e.name;
    });
    worker.on('exit', (code) => {
      clearTimeout(killTimer);
      finish(() => reject(new Error(`The index-build worker stopped unexpectedly (${reason || `exit code ${code}`}); the next search starts the build again.`)));
    });
  });
}
