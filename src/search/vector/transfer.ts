/**
 * Moving built index parts from the thread that built them to the thread that searches them: the builder writes
 * the int8 rows into plain memory (PlainMemory), whose buffer and metadata arrays are transferred without a copy;
 * the receiver copies the rows into a WebAssembly memory of its own in slices, yielding between them, so the
 * thread answering searches is never held for long.
 */
import { metaViews, type IndexParts } from './accumulator';
import { throwIfAborted, yieldToEventLoop } from './errors';
import { MAX_PAGES, metaLayout, pagesFor } from './layout';
import { wasm } from '../kernel/wasm-api';

/** Index parts as a structured-clone message (the memory is a plain ArrayBuffer). */
export type PackedParts = Omit<IndexParts, 'memory' | 'scale' | 'err' | 'qnorm'> & { buffer: ArrayBuffer };

/** The message and its transfer list. The parts' memory must be plain (PlainMemory); they are unusable afterwards. */
export function packParts(parts: IndexParts): { packed: PackedParts; transfer: ArrayBuffer[] } {
  const { memory, scale: _s, err: _e, qnorm: _q, ...rest } = parts;
  const packed: PackedParts = { ...rest, buffer: memory.buffer };
  const transfer = [memory.buffer, parts.rowids.buffer, parts.ids.buffer, parts.ts.buffer, parts.conv.buffer, parts.sender.buffer, parts.source.buffer];
  return { packed, transfer: [...new Set(transfer)] as ArrayBuffer[] };
}

/**
 * Bytes copied between yields. Copying into fresh WebAssembly memory also faults its pages in, so on a busy
 * machine 16 MB slices took up to ~70 ms each (measured: calls queued behind them waited that long); 2 MB slices
 * keep every stretch to a few milliseconds.
 */
const SLICE = 2 << 20;

/** Rebuilds searchable parts from a packed message: rows and planes copied into a new WebAssembly memory. */
export async function unpackParts(packed: PackedParts, signal?: AbortSignal): Promise<IndexParts> {
  const { buffer, ...rest } = packed;
  const meta = metaLayout(packed.layout, packed.n);
  const pages = pagesFor(meta.end);
  if (pages > MAX_PAGES) throw new Error('the vector index is larger than a WebAssembly memory can hold');
  const memory = new wasm.Memory({ initial: pages });
  const src = new Uint8Array(buffer, 0, Math.min(buffer.byteLength, meta.end));
  const dst = new Uint8Array(memory.buffer);
  for (let at = packed.layout.matrixOff; at < src.length; at += SLICE) {
    dst.set(src.subarray(at, Math.min(src.length, at + SLICE)), at);
    if (at + SLICE < src.length) {
      await yieldToEventLoop();
      throwIfAborted(signal);
    }
  }
  return { ...rest, memory, meta, ...metaViews(memory, meta, packed.n) };
}
