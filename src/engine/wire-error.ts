/** Errors across the worker boundary: plain objects on the wire, real errors on each side. */
import { ArchiveError, type ArchiveErrorCode } from '../archive/errors';
import { VectorIndexError, type VectorErrorCode } from '../search/vector/errors';
import type { WireError } from './protocol';

export function isAbortError(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

/** The error an aborted call rejects with: the signal's reason when it is an Error, else a DOMException AbortError. */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('The operation was aborted.', 'AbortError');
}

/** Serialises what a handler threw. Only name, code and message survive: stacks stay in the worker. */
export function toWireError(e: unknown): WireError {
  if (e instanceof ArchiveError)
    return { kind: 'archive', code: e.code, message: e.message, ...(e.path !== undefined ? { path: e.path } : {}) };
  if (e instanceof VectorIndexError) return { kind: 'vector', code: e.code, message: e.message };
  if (isAbortError(e)) return { kind: 'abort', message: (e as Error).message };
  if (e instanceof Error) return { kind: 'error', message: e.message || e.name };
  return { kind: 'error', message: String(e) };
}

/** Rebuilds the error on the client side (a fresh object, so its stack is the client's own). */
export function fromWireError(w: WireError): Error {
  if (w.kind === 'archive' && w.code) return new ArchiveError(w.code as ArchiveErrorCode, w.message, w.path);
  if (w.kind === 'vector' && w.code) return new VectorIndexError(w.code as VectorErrorCode, w.message);
  if (w.kind === 'abort') return new DOMException(w.message || 'The operation was aborted.', 'AbortError');
  return new Error(w.message);
}
