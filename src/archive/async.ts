/** The AsyncArchive over an in-thread Archive: only an already-aborted signal rejects (a running query cannot stop). */
import { ARCHIVE_METHODS, type ArchiveQueryMethods } from './methods';
import type { Archive, AsyncArchive, Exclusion } from './types';

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const e = new Error('The operation was aborted.');
  e.name = 'AbortError';
  return e;
}

export function inThread(archive: Archive): AsyncArchive {
  return adapt(archive, archive, archive, []);
}

function adapt(archive: Archive, queries: ArchiveQueryMethods, target: object, excluded: Exclusion): AsyncArchive {
  const out: Record<string, unknown> = {};
  for (const name of ARCHIVE_METHODS) {
    const method = queries[name] as (...a: unknown[]) => unknown;
    out[name] = async (...args: unknown[]): Promise<unknown> => {
      await Promise.resolve();
      const maybeSignal = args[args.length - 1];
      if (maybeSignal instanceof AbortSignal) {
        if (maybeSignal.aborted) throw abortError(maybeSignal);
        args = args.slice(0, -1);
      }
      return method.apply(target, args);
    };
  }
  Object.defineProperty(out, 'path', { value: archive.path, enumerable: true });
  out.excluding = (exclude: Exclusion): AsyncArchive => {
    if (!exclude.length) return out as unknown as AsyncArchive;
    const all = [...excluded, ...exclude];
    return adapt(archive, archive.excluding(all), {}, all);
  };
  // A view (excluding some conversations) never closes the archive it looks through.
  out.close = excluded.length ? async (): Promise<void> => {} : async (): Promise<void> => archive.close();
  return out as unknown as AsyncArchive;
}
