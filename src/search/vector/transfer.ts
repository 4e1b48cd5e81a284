/**
 * Moving built index parts to the thread that searches them without a copy: the int8 rows and per-row planes live in
 * shared kernel memory, posted as is; the metadata arrays are transferred.
 */
import { metaViews, type IndexParts } from './accumulator';

/** Index parts as a structured-clone message (the memory is shared, the typed arrays are transferred). */
export type PackedParts = Omit<IndexParts, 'scale' | 'err' | 'qnorm'>;

/** The message and its transfer list; the parts' typed arrays are unusable afterwards. */
export function packParts(parts: IndexParts): { packed: PackedParts; transfer: ArrayBuffer[] } {
  const { scale: _s, err: _e, qnorm: _q, ...packed } = parts;
  return { packed, transfer: buffersOf([parts.rowids, parts.ids, parts.ts, parts.conv, parts.sender, parts.source]) };
}

/** The distinct buffers under typed arrays, as a transfer list. */
function buffersOf(arrays: ArrayBufferView[]): ArrayBuffer[] {
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

/** Searchable parts again: views of the per-row planes in the (shared) memory. */
export function unpackParts(packed: PackedParts): IndexParts {
  return { ...packed, ...metaViews(packed.memory, packed.meta, packed.n) };
}
