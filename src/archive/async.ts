/**
 * inThread: the AsyncArchive surface over a synchronous Archive in the same thread. Each call runs
 * on a later microtask; an already-aborted signal rejects before the query starts (a running
 * query cannot be interrupted in-thread).
 */
import { ARCHIVE_METHODS } from './methods';
import type { Archive, AsyncArchive } from './types';

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const e = new Error('The operation was aborted.');
  e.name = 'AbortError';
  return e;
}

export function inThread(archive: Archive): AsyncArchive {
  const out: Record<string, unknown> = {};
  for (const name of ARCHIVE_METHODS) {
    const method = archive[name] as (...a: unknown[]) => unknown;
    out[name] = async (...args: unknown[]): Promise<unknown> => {
      await Promise.resolve();
      const maybeSignal = args[args.length - 1];
      if (maybeSignal instanceof AbortSignal) {
        if (maybeSignal.aborted) throw abortError(maybeSignal);
        args = args.slice(0, -1);
      }
      return method.apply(archive, args);
    };
  }
  Object.defineProperty(out, 'path', { value: archive.path, enumerable: true });
  out.close = async (): Promise<void> => archive.close();
  return out as unknown as AsyncArchive;
}
