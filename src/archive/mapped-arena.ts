/**
 * Typed arrays for an index build's large, short-lived tables (the hash → message map, the batch of vectors, the
 * builder's per-row arrays), carved from one buffer per table set that malloc is sure to map on its own.
 *
 * Why: V8 allocates an ArrayBuffer's bytes with malloc. glibc serves a request below its mmap threshold from the
 * allocating thread's arena, and the threshold is dynamic: freeing any mmapped block of up to 32 MiB raises it to
 * that size (loading the 2 MiB CLI bundle already raises it to 2 MiB; a build's 6 MiB tables to 6 MiB). So most of
 * a build thread's tables landed in its arena, and when the thread ended the freed chunks stayed resident, pinned
 * by the few live ones among them (the index's per-row arrays, which move to the engine worker). A block above
 * 32 MiB is always mapped by itself (the threshold never rises past that), its untouched pages are never resident,
 * and it is unmapped when freed without moving the threshold. After a 100k × 768 build in the CLI the server kept
 * 205.6-214.6 MB resident; with these sets, 193-206 MB, the level of an index loaded from its cache file
 * (bench/analysis.md, 2026-12-03). Other allocators (Electron's, in VS Code's extension host) map requests this
 * large by themselves too.
 *
 * A table set that does not fit, or a buffer that cannot be had, falls back to ordinary arrays: the same contents,
 * only the resident memory afterwards differs. Small sets never take a buffer.
 *
 * A `shared` arena is a SharedArrayBuffer (allocated and mapped the same way), for a set another thread reads too:
 * the hash → message map a split build's lower range hands its upper range (index-build.ts).
 */

/** A typed array constructor, as `new Float64Array(n)` and `new Float64Array(buffer, offset, n)` use it. */
export interface TypedArrayConstructor<T> {
  new (length: number): T;
  new (buffer: ArrayBuffer, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/** Below this a set is left to ordinary arrays (glibc's threshold starts at 128 KiB). */
const MIN_BYTES = 128 * 1024;
/** Above glibc's largest dynamic mmap threshold (32 MiB on 64-bit), by a page. */
const MAPPED_BYTES = 32 * 1024 * 1024 + 65536;
/** Every array starts on an 8-byte boundary (Float64Array's alignment). */
const ALIGN = 8;

/** One array of a set: its constructor and length. */
export type ArraySpec = readonly [TypedArrayConstructor<unknown>, number];

/** The arrays a list of specs makes, in order. */
export type ArraysOf<S extends readonly ArraySpec[]> = { -readonly [K in keyof S]: S[K] extends readonly [TypedArrayConstructor<infer T>, number] ? T : never };

/** The bytes `arrays` take in one arena, alignment included: size the arena with it. */
export function arenaBytes(arrays: readonly ArraySpec[]): number {
  let n = 0;
  for (const [ctor, length] of arrays) n += Math.ceil((length * ctor.BYTES_PER_ELEMENT) / ALIGN) * ALIGN;
  return n;
}

export class MappedArena {
  private readonly buffer: ArrayBuffer | SharedArrayBuffer | undefined;
  private used = 0;

  /**
   * An arena of at least `bytes` (a buffer of at least 32 MiB + 64 KiB); none below 128 KiB or when none can be had.
   * `shared`: a SharedArrayBuffer, whose arrays another thread can be handed without a copy.
   */
  constructor(bytes: number, opts: { shared?: boolean } = {}) {
    if (!(bytes >= MIN_BYTES)) return;
    const size = Math.max(bytes, MAPPED_BYTES);
    try {
      this.buffer = opts.shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size);
    } catch {
      // No memory for it (RangeError): ordinary arrays, which may fail the same way where they are made.
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
      return new ctor(this.buffer as ArrayBuffer, at, length);
    }
    return new ctor(length);
  }

  /** The arrays `specs` lists, in order (see {@link array}): size the arena with `arenaBytes(specs)`. */
  arrays<const S extends readonly ArraySpec[]>(specs: S): ArraysOf<S> {
    return specs.map(([ctor, length]) => this.array(ctor, length)) as ArraysOf<S>;
  }
}

/** A zeroed array of `length` elements mapped on its own when large (see MappedArena), else an ordinary one. */
export function mappedArray<T>(ctor: TypedArrayConstructor<T>, length: number): T {
  return new MappedArena(length * ctor.BYTES_PER_ELEMENT).array(ctor, length);
}
