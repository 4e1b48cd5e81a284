/**
 * ByteKeys (src/archive/byte-keys.ts), the byte-keyed table an index build joins embeddings to messages through:
 * against a Map oracle over random keys (growth and rehashing included), with keys whose 32-bit hashes really
 * collide (found by a birthday search, so the full-byte comparison is what tells them apart), and with the same
 * bytes as TEXT and as BLOB (different keys, as in SQL's `=`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ByteKeys, byteKeyHash } from '../../src/archive/byte-keys';
import { collidingHashes, SQLITE_BLOB, SQLITE_TEXT } from '../fixtures/colliding-hashes';
import { mulberry32 } from '../fixtures/random';

describe('ByteKeys', () => {
  it('gives the ids a Map would, over random keys of every length (growth and rehash from a tiny start)', () => {
    const r = mulberry32(7);
    const keys = new ByteKeys(1, 1);
    const oracle = new Map<string, number>();
    const pool: [number, Uint8Array][] = [];
    for (let i = 0; i < 30_000; i++) {
      // Some keys repeat (drawn again from the pool), some are empty, some long.
      let cls: number;
      let bytes: Uint8Array;
      if (pool.length && r() < 0.2) [cls, bytes] = pool[Math.floor(r() * pool.length)];
      else {
        cls = r() < 0.8 ? SQLITE_TEXT : SQLITE_BLOB;
        bytes = Uint8Array.from({ length: Math.floor(r() * 80) }, () => Math.floor(r() * 256));
        pool.push([cls, bytes]);
      }
      const k = `${cls}:${Buffer.from(bytes).toString('hex')}`;
      if (!oracle.has(k)) oracle.set(k, oracle.size);
      assert.equal(keys.add(cls, bytes), oracle.get(k));
    }
    assert.equal(keys.size, oracle.size);
    for (const [cls, bytes] of pool) {
      const id = oracle.get(`${cls}:${Buffer.from(bytes).toString('hex')}`) as number;
      assert.equal(keys.find(cls, bytes), id);
      assert.deepEqual([...keys.bytes(id)], [...bytes]);
      assert.equal(keys.storageClass(id), cls);
    }
    for (let i = 0; i < 2000; i++) {
      const bytes = Uint8Array.from({ length: 81 + Math.floor(r() * 10) }, () => Math.floor(r() * 256));
      assert.equal(keys.find(SQLITE_TEXT, bytes), -1, 'a key never added is not found');
    }
  });

  it('keeps keys whose 32-bit hashes collide apart: each finds its own id, a third with that hash is absent', () => {
    const pairs = collidingHashes(3);
    const keys = new ByteKeys(4, 64);
    const ids = new Map<string, number>();
    for (const [x, y] of pairs) {
      assert.equal(byteKeyHash(SQLITE_TEXT, Buffer.from(x)), byteKeyHash(SQLITE_TEXT, Buffer.from(y)), 'the search found a real collision');
      ids.set(x, keys.add(SQLITE_TEXT, Buffer.from(x)));
      ids.set(y, keys.add(SQLITE_TEXT, Buffer.from(y)));
    }
    assert.equal(keys.size, 6);
    for (const [s, id] of ids) {
      assert.equal(keys.find(SQLITE_TEXT, Buffer.from(s)), id);
      assert.equal(Buffer.from(keys.bytes(id)).toString(), s);
    }
    // With only one key of each pair present, the other is not found although its hash leads to the same slot.
    const half = new ByteKeys();
    for (const [x] of pairs) half.add(SQLITE_TEXT, Buffer.from(x));
    for (const [, y] of pairs) assert.equal(half.find(SQLITE_TEXT, Buffer.from(y)), -1);
  });

  it('the same bytes as TEXT and as BLOB are two keys (SQL: a TEXT never equals a BLOB)', () => {
    const keys = new ByteKeys();
    const b = Buffer.from('a1b2c3');
    const t = keys.add(SQLITE_TEXT, b);
    assert.equal(keys.find(SQLITE_BLOB, b), -1);
    const bl = keys.add(SQLITE_BLOB, b);
    assert.notEqual(t, bl);
    assert.equal(keys.find(SQLITE_TEXT, b), t);
    assert.equal(keys.find(SQLITE_BLOB, b), bl);
    assert.equal(keys.add(SQLITE_TEXT, Buffer.from('a1b2c3')), t, 'adding again gives the existing id');
  });
});

