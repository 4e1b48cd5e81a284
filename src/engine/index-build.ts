/** Runs a vector index build in a thread of its own (build-host.ts); its rows arrive in shared memory, uncopied. */
import { unpackParts, type BuildProgress, type IndexParts } from '../search/vector';
import type { BuildWorkerInit, BuildWorkerMessage } from './protocol';
import { abortError, fromWireError } from './wire-error';
import { resolveWorkerScript, startWorker } from './worker-script';

interface BuildRequest extends Omit<BuildWorkerInit, 'cancelFlag'> {
  /** The build worker's script; default: the one beside the engine worker's. */
  script?: string;
  onProgress?: (progress: BuildProgress) => void;
  log?: (message: string) => void;
  signal?: AbortSignal;
}

/** How long a cancelled build may unwind before its thread is terminated. */
const CANCEL_GRACE_MS = 2000;

export function buildInWorker(req: BuildRequest): Promise<IndexParts> {
  const { script: override, onProgress, log, signal, ...job } = req;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const init: BuildWorkerInit = { ...job, cancelFlag: new SharedArrayBuffer(4) };
  const flag = new Int32Array(init.cancelFlag);
  const worker = startWorker(resolveWorkerScript(override, 'build'), init);
  return new Promise<IndexParts>((resolve, reject) => {
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
      else if (msg.type === 'failed') finish(() => reject(fromWireError(msg.error)));
      else finish(() => resolve(unpackParts(msg.parts)));
    });
    worker.on('error', (e: Error) => (reason = e.message || e.name));
    worker.once('exit', (code) => {
      clearTimeout(killTimer);
      const why = reason || `exit code ${code}`;
      const message = `The index-build worker stopped unexpectedly (${why}); the next search starts the build again.`;
      finish(() => reject(new Error(message)));
    });
  });
}
