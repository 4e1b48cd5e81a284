/**
 * Moving built index parts to the thread that searches them without a copy: the int8 rows and per-row planes live in
 * shared kernel memory, posted as is; the metadata arrays are transferred.
 */
import { metaViews, type IndexParts } from './accumulator';

/** Index parts as a structured-clone message: the per-row planes are views that the receiver makes again. */
export type PackedParts = Omit<IndexParts, 'scale' | 'err' | 'qnorm'>;

/** The message and its transfer list: the parts' typed arrays are unusable afterwards. */
export function packParts(parts: IndexParts): { packed: PackedParts; transfer: ArrayBuffer[] } {
  const { scale: _s, err: _e, qnorm: _q, ...packed } = parts;
  const arrays = [parts.rowids, parts.ids, parts.ts, parts.conv, parts.sender, parts.source];
  return { packed, transfer: [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))] };
}

export function unpackParts(packed: PackedParts): IndexParts {
  return { ...packed, ...metaViews(packed.memory, packed.meta, packed.n) };
}
