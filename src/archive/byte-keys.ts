/**
 * A set of byte strings with dense ids (0, 1, 2 … in insertion order), looked up by the bytes themselves: the
 * embeddings ⋈ messages join of an index build reads every hash as bytes straight from the WASM heap, so no string
 * is made per row (at 1M messages, making the hash strings and a `Map` of them was 0.8 s of a build).
 *
 * Keys are (storage class, bytes), compared in full on every lookup: the 32-bit hash only chooses where to look,
 * so two keys whose hashes collide stay two keys. On the hash columns (TEXT affinity, so only TEXT, BLOB or NULL
 * values) that is SQL's `=`: TEXT equals TEXT with the same bytes, BLOB equals BLOB, a TEXT never equals a BLOB;
 * the caller leaves NULLs out (they equal nothing). Open addressing with linear probing over a
 * power-of-two table kept at most half full; the keys live back to back in one growing arena (a {@link ByteLog}).
 */

import { arenaBytes, MappedArena } from './mapped-arena';

/** FNV-1a over the bytes (`src[from, to)`), seeded with the storage class. */
export function byteKeyHash(cls: number, src: Uint8Array, from = 0, to = src.length): number {
  let h = (0x811c9dc5 ^ cls) >>> 0;
  for (let i = from; i < to; i++) h = Math.imul(h ^ src[i], 0x01000193);
  return h >>> 0;
}

/** The tables of a ByteLog, as structured clone carries them (see {@link ByteKeyTables}). */
export interface ByteLogTables {
  arena: Uint8Array;
  used: number;
  start: Int32Array;
  cls: Uint8Array;
  count: number;
}

/**
 * The tables of a ByteKeys, as structured clone carries them to another thread (views of a SharedArrayBuffer arrive
 * as views of the same memory): {@link ByteKeys.tablesOf} and {@link ByteKeys.fromTables}.
 */
export interface ByteKeyTables {
  keys: ByteLogTables;
  hashes: Uint32Array;
  slots: Int32Array;
}

/**
 * Byte strings appended in order (ids 0, 1, 2 …), with their storage classes, back to back in one growing arena; no
 * lookup, no deduplication. ByteKeys keeps its keys in one; on its own, it holds the hashes of a stream of
 * embeddings until their join to messages is known (queries/embeddings.ts).
 */
export class ByteLog {
  private arena: Uint8Array;
  private used = 0;
  /** String i is arena[start[i], start[i + 1]). */
  private start: Int32Array;
  private cls: Uint8Array;
  private count = 0;

  /** Room for `expected` strings of about `bytesPerKey` bytes (more grow the tables); `memory` as for ByteKeys. */
  constructor(expected = 16, bytesPerKey = 16, memory?: MappedArena) {
    // Without a memory, an arena of none: ordinary arrays.
    [this.arena, this.start, this.cls] = (memory ?? new MappedArena(0)).arrays(ByteLog.tables(expected, bytesPerKey).specs);
  }

  /** The tables for `expected` strings of `bytesPerKey` bytes (arena, start, cls), and the bytes they take in a MappedArena. */
  static tables(expected: number, bytesPerKey: number) {
    const keys = Math.max(16, expected);
    const specs = [
      [Uint8Array, Math.max(256, keys * bytesPerKey)],
      [Int32Array, keys + 1],
      [Uint8Array, keys],
    ] as const;
    return { specs, bytes: arenaBytes(specs) };
  }

  /** Its tables (tablesOf), perhaps from another thread, used as they are (no copy). */
  static fromTables(tables: ByteLogTables): ByteLog {
    const { arena, used, start, cls, count } = tables;
    if (start.length !== cls.length + 1 || count > cls.length || used > arena.length) throw new RangeError('ByteLog.fromTables: inconsistent tables');
    const log = new ByteLog(0, 0);
    log.arena = arena;
    log.used = used;
    log.start = start;
    log.cls = cls;
    log.count = count;
    return log;
  }

  /** Its tables, for another thread (fromTables). Appending afterwards changes them. */
  tablesOf(): ByteLogTables {
    return { arena: this.arena, used: this.used, start: this.start, cls: this.cls, count: this.count };
  }

  get size(): number {
    return this.count;
  }

  /** Appends (cls, bytes); returns its id. */
  append(cls: number, bytes: Uint8Array): number {
    const id = this.count;
    if (id >= this.cls.length) {
      const start = new Int32Array(this.cls.length * 2 + 1);
      start.set(this.start);
      this.start = start;
      const c = new Uint8Array(this.cls.length * 2);
      c.set(this.cls);
      this.cls = c;
    }
    if (this.used + bytes.length > this.arena.length) {
      let n = this.arena.length * 2;
      while (n < this.used + bytes.length) n *= 2;
      const arena = new Uint8Array(n);
      arena.set(this.arena.subarray(0, this.used));
      this.arena = arena;
    }
    this.arena.set(bytes, this.used);
    this.start[id] = this.used;
    this.used += bytes.length;
    this.start[id + 1] = this.used;
    this.cls[id] = cls;
    this.count++;
    return id;
  }

  /** The bytes of string `id` (a view: valid until the next `append`). */
  bytes(id: number): Uint8Array {
    return this.arena.subarray(this.start[id], this.start[id + 1]);
  }

  /** The storage class string `id` was appended with. */
  storageClass(id: number): number {
    return this.cls[id];
  }

  /** {@link byteKeyHash} of string `id`. */
  hashOf(id: number): number {
    return byteKeyHash(this.cls[id], this.arena, this.start[id], this.start[id + 1]);
  }

  /** Whether string `id` is (cls, src[from, to)). */
  matches(id: number, cls: number, src: Uint8Array, from: number, to: number): boolean {
    if (this.cls[id] !== cls) return false;
    const at = this.start[id];
    const n = to - from;
    if (this.start[id + 1] - at !== n) return false;
    const a = this.arena;
    for (let i = 0; i < n; i++) if (a[at + i] !== src[from + i]) return false;
    return true;
  }

  /** Whether string `id` equals string `other` of `log`. */
  matchesIn(id: number, log: ByteLog, other: number): boolean {
    return this.matches(id, log.cls[other], log.arena, log.start[other], log.start[other + 1]);
  }

  /** Forgets the strings from id `size` on (a batch read again after a failed attempt). */
  truncate(size: number): void {
    if (size >= this.count) return;
    this.count = Math.max(0, size);
    this.used = this.start[this.count];
  }
}

export class ByteKeys {
  /** The keys, in id order. */
  private keys: ByteLog;
  private hashes: Uint32Array;
  /** id + 1 of the key in each slot; 0 = empty. */
  private slots: Int32Array;
  private mask: number;

  /**
   * Room for `expected` keys of about `bytesPerKey` bytes each (more grow the tables). `memory`: where the tables go
   * (an index build's map: mapped-arena.ts), sized with {@link ByteKeys.tables}.
   */
  constructor(expected = 16, bytesPerKey = 16, memory?: MappedArena) {
    const { specs } = ByteKeys.tables(expected, bytesPerKey);
    // Without a memory, an arena of none: ordinary arrays.
    const [arena, start, cls, hashes, slots] = (memory ?? new MappedArena(0)).arrays(specs);
    this.keys = ByteLog.fromTables({ arena, used: 0, start, cls, count: 0 });
    this.hashes = hashes;
    this.slots = slots;
    this.mask = this.slots.length - 1;
  }

  /** The tables for `expected` keys of `bytesPerKey` bytes (a ByteLog's, hashes, slots), and the bytes they take in a MappedArena. */
  static tables(expected: number, bytesPerKey: number) {
    const keys = Math.max(16, expected);
    let slots = 32;
    while (slots < keys * 2) slots *= 2;
    const specs = [...ByteLog.tables(expected, bytesPerKey).specs, [Uint32Array, keys], [Int32Array, slots]] as const;
    return { specs, bytes: arenaBytes(specs) };
  }

  get size(): number {
    return this.keys.size;
  }

  /** Its tables, for another thread to look keys up in (fromTables). Adding keys afterwards changes them. */
  tablesOf(): ByteKeyTables {
    return { keys: this.keys.tablesOf(), hashes: this.hashes, slots: this.slots };
  }

  /** The keys `tables` hold (tablesOf's, perhaps from another thread), over those arrays themselves (no copy). */
  static fromTables(tables: ByteKeyTables): ByteKeys {
    const { hashes, slots } = tables;
    const log = ByteLog.fromTables(tables.keys);
    const n = slots.length;
    if (n < 2 || (n & (n - 1)) !== 0 || log.size * 2 > n || hashes.length < log.size) throw new RangeError('ByteKeys.fromTables: inconsistent tables');
    const keys = new ByteKeys(0, 0);
    keys.keys = log;
    keys.hashes = hashes;
    keys.slots = slots;
    keys.mask = n - 1;
    return keys;
  }

  /** The id of (cls, bytes), or -1. */
  find(cls: number, bytes: Uint8Array): number {
    return this.findIn(cls, bytes, 0, bytes.length);
  }

  /** The id of (cls, src[from, to)), or -1. */
  private findIn(cls: number, src: Uint8Array, from: number, to: number): number {
    const h = byteKeyHash(cls, src, from, to);
    for (let s = h & this.mask; ; s = (s + 1) & this.mask) {
      const at = this.slots[s];
      if (at === 0) return -1;
      if (this.hashes[at - 1] === h && this.keys.matches(at - 1, cls, src, from, to)) return at - 1;
    }
  }

  /** The id of string `id` of `log`, or -1 (looked up in place: no view is made). */
  findLogged(log: ByteLog, id: number): number {
    const h = log.hashOf(id);
    for (let s = h & this.mask; ; s = (s + 1) & this.mask) {
      const at = this.slots[s];
      if (at === 0) return -1;
      if (this.hashes[at - 1] === h && this.keys.matchesIn(at - 1, log, id)) return at - 1;
    }
  }

  /** The id of (cls, bytes), added as the next id when new. */
  add(cls: number, bytes: Uint8Array): number {
    const h = byteKeyHash(cls, bytes);
    let s = h & this.mask;
    for (; ; s = (s + 1) & this.mask) {
      const at = this.slots[s];
      if (at === 0) break;
      if (this.hashes[at - 1] === h && this.keys.matches(at - 1, cls, bytes, 0, bytes.length)) return at - 1;
    }
    const id = this.keys.append(cls, bytes);
    if (id >= this.hashes.length) {
      const hashes = new Uint32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    this.hashes[id] = h;
    this.slots[s] = id + 1;
    if (this.keys.size * 2 > this.slots.length) this.rehash();
    return id;
  }

  /** The bytes of key `id` (a view of the arena: valid until the next `add`). */
  bytes(id: number): Uint8Array {
    return this.keys.bytes(id);
  }

  /** The storage class key `id` was added with. */
  storageClass(id: number): number {
    return this.keys.storageClass(id);
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.keys.size; id++) {
      let s = this.hashes[id] & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = id + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}
