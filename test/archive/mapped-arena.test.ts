/**
 * MappedArena (src/archive/mapped-arena.ts): arrays carved from one buffer (past glibc's largest mmap threshold)
 * are zeroed, aligned, never overlap, and a set that outgrows its arena (or is too small for one) gets ordinary
 * arrays with the same behaviour. ByteKeys built in an arena answers as one built without.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { arenaBytes, MappedArena, mappedArray } from '../../src/archive/mapped-arena';
import { ByteKeys } from '../../src/archive/byte-keys';
import { mulberry32 } from '../fixtures/random';

/** Whether `a` lies in a buffer glibc maps by itself (above its largest dynamic threshold, 32 MiB). */
function buffersOver32MiB(a: ArrayBufferView): boolean {
  return a.buffer.byteLength > 32 * 1024 * 1024;
}

describe('MappedArena', () => {
  it('carves zeroed, 8-byte aligned, disjoint arrays from one buffer past 32 MiB, then falls back when full', () => {
    const lengths = [[Uint8Array, 10_001], [Float64Array, 30_000], [Int32Array, 7_777], [Float32Array, 50_000]] as const;
    const arena = new MappedArena(arenaBytes(lengths));
    assert.equal(arena.mapped, true);
    assert.ok(buffersOver32MiB(arena.array(Uint8Array, 0)));
    const arrays = lengths.map(([ctor, n]) => arena.array(ctor as never, n) as Uint8Array | Float64Array | Int32Array | Float32Array);
    const buffer = arrays[0].buffer;
    for (const [i, a] of arrays.entries()) {
      assert.equal(a.length, lengths[i][1]);
      assert.equal(a.buffer, buffer, 'every array of the set is in the arena');
      assert.equal(a.byteOffset % 8, 0);
      assert.ok(a.every((x) => x === 0));
      a.fill(i + 1);
    }
    // Writing each array left every other one intact: they do not overlap.
    for (const [i, a] of arrays.entries()) assert.ok(a.every((x) => x === i + 1), `array ${i} was overwritten`);
    // More than the buffer holds: an ordinary array (its own buffer), still zeroed and usable.
    const extra = arena.array(Float64Array, 5_000_000);
    assert.notEqual(extra.buffer, buffer);
    assert.equal(extra.length, 5_000_000);
    assert.ok(extra.every((x) => x === 0));
  });

  it('leaves small sets to ordinary arrays', () => {
    const arena = new MappedArena(4096);
    assert.equal(arena.mapped, false);
    const a = arena.array(Int32Array, 10);
    assert.equal(a.buffer.byteLength, 40);
    assert.equal(mappedArray(Uint8Array, 100).buffer.byteLength, 100);
    assert.ok(buffersOver32MiB(mappedArray(Float32Array, 1 << 20)));
  });

  it('ByteKeys in an arena gives the ids ByteKeys without one gives, past its expected size too', () => {
    const r = mulberry32(11);
    const t = ByteKeys.tables(5000, 64);
    const arena = new MappedArena(t.bytes);
    assert.equal(arena.mapped, true);
    const inArena = new ByteKeys(5000, 64, arena);
    const plain = new ByteKeys(5000, 64);
    // 20k keys: the tables outgrow the arena (growth makes ordinary arrays).
    for (let i = 0; i < 20_000; i++) {
      const bytes = Uint8Array.from({ length: 1 + Math.floor(r() * 90) }, () => Math.floor(r() * 256));
      const cls = r() < 0.5 ? 3 : 4;
      assert.equal(inArena.add(cls, bytes), plain.add(cls, bytes));
      if (i % 97 === 0) assert.equal(inArena.find(cls, bytes), plain.find(cls, bytes));
    }
    assert.equal(inArena.size, plain.size);
    for (let id = 0; id < plain.size; id += 13) assert.deepEqual(inArena.bytes(id), plain.bytes(id));
  });
});
