/**
 * Wraps the archive's embeddings stream so each step (which runs SQLite) happens with the build request's cancel
 * slot active: an index build cancelled by the client stops inside the current statement, not only between rows.
 */
import type { EmbeddingRecord } from '../archive/types';

export type SlotRunner = <T>(fn: () => T) => T;

export function interruptibleRecords(
  source: IterableIterator<EmbeddingRecord>,
  run: SlotRunner,
): IterableIterator<EmbeddingRecord> {
  const it: IterableIterator<EmbeddingRecord> = {
    next: () => run(() => source.next()),
    return: (value?: unknown) =>
      run(() => (source.return ? source.return(value) : { done: true as const, value: undefined })),
    [Symbol.iterator]: () => it,
  };
  return it;
}
