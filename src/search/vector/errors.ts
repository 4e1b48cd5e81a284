/** Errors the vector index raises: what was wrong and what to do. */
export type VectorErrorCode =
  | 'dimension_mismatch'
  | 'zero_query'
  | 'invalid_query'
  | 'invalid_k'
  | 'missing_metadata'
  | 'no_vectors'
  | 'invalid_dimension'
  | 'too_large'
  | 'disposed';

export class VectorIndexError extends Error {
  constructor(
    readonly code: VectorErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'VectorIndexError';
  }
}

/** The error an aborted build or search rejects with (`name === 'AbortError'`). */
export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const err = new Error('the operation was cancelled');
  err.name = 'AbortError';
  return err;
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/** `p`, or the signal's abort (as `onAbort` makes it): awaited no longer than the caller's signal allows. */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined, onAbort = abortError): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(onAbort(signal));
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** Lets pending I/O, timers and an AbortSignal through between chunks of synchronous work. */
export { setImmediate as yieldToEventLoop } from 'node:timers/promises';
