/**
 * Typed arrays for an index build's large, short-lived tables (the hash → message map, the batch of vectors, the
 * builder's per-row arrays), carved from one WebAssembly.Memory per table set instead of being allocated one by one.
 *
 * Why: V8 allocates an ArrayBuffer's bytes with malloc. glibc serves a request below its mmap threshold from the
 * allocating thread's arena, and the threshold is dynamic: freeing any mmapped block of up to 32 MiB raises it to
 * that size (loading the 2 MiB CLI bundle already raises it to 2 MiB; a build's 6 MiB tables to 6 MiB). So most of
 * a build thread's tables land in its arena, and when the thread ends the freed chunks stay resident, pinned by
 * the few live ones among them (the index's per-row arrays, which move to the engine worker). After a 100k × 768
 * build in the CLI the server kept 208-216 MB resident against 193-197 MB with the index loaded from its cache
 * file; with these tables mapped by V8 itself (a wasm memory is an mmap of its own, unmapped when collected or when
 * the thread's isolate ends), 195-198 MB (bench/analysis.md, 2026-12-03).
 *
 * A table set that does not fit, or a memory V8 refuses (each reserves address space), falls back to ordinary
 * arrays: the same contents, only the resident memory afterwards differs. Small sets never take a memory.
 */

/** A typed array constructor, as `new Float64Array(n)` and `new Float64Array(buffer, offset, n)` use it. */
export interface TypedArrayConstructor<T> {
  new (length: number): T;
  new (buffer: ArrayBuffer, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/** The one WebAssembly API used here (ES2022 and @types/node 20 do not declare the namespace). */
const WasmMemory = (globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number; maximum: number }) => { buffer: ArrayBuffer } } })
  .WebAssembly.Memory;

const PAGE = 65536;
/** Below this a set is left to malloc: the threshold glibc starts with (128 KiB) never moves for it. */
const MIN_BYTES = 2 * PAGE;
/** Every array starts on an 8-byte boundary (Float64Array's alignment). */
const ALIGN = 8;

/** The bytes `arrays` take in one arena, alignment included: size the arena with it. */
export function arenaBytes(arrays: readonly (readonly [TypedArrayConstructor<unknown>, number])[]): number {
  let n = 0;
  for (const [ctor, length] of arrays) n += Math.ceil((length * ctor.BYTES_PER_ELEMENT) / ALIGN) * ALIGN;
  return n;
}

export class MappedArena {
  private readonly buffer: ArrayBuffer | undefined;
  private used = 0;

  /** An arena of at least `bytes` (rounded up to whole 64 KiB pages); none below 128 KiB or when V8 refuses one. */
  constructor(bytes: number) {
    if (!(bytes >= MIN_BYTES)) return;
    const pages = Math.ceil(bytes / PAGE);
    try {
      this.buffer = new WasmMemory({ initial: pages, maximum: pages }).buffer;
    } catch {
      // Out of address space for one more memory (RangeError): ordinary arrays.
      this.buffer = undefined;
    }
  }

  /** Whether the arena holds memory of its own (tests). */
  get mapped(): boolean {
    return this.buffer !== undefined;
  }

  /** A zeroed array of `length` elements: in the arena while it has room, else an ordinary one. */
  array<T>(ctor: TypedArrayConstructor<T>, length: number): T {
    const bytes = length * ctor.BYTES_PER_ELEMENT;
    const at = Math.ceil(this.used / ALIGN) * ALIGN;
    if (this.buffer && at + bytes <= this.buffer.byteLength) {
      this.used = at + bytes;
      return new ctor(this.buffer, at, length);
    }
    return new ctor(length);
  }
}

/** A zeroed array of `length` elements mapped on its own when large (see MappedArena), else an ordinary one. */
export function mappedArray<T>(ctor: TypedArrayConstructor<T>, length: number): T {
  return new MappedArena(length * ctor.BYTES_PER_ELEMENT).array(ctor, length);
}
