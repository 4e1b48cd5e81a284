import assert from 'node:assert/strict';
import type { IndexParts } from '../../src/search/vector';

/** Two index builds gave the same parts, byte for byte: layout, int8 rows, every per-row array, names and counts. */
export function assertSameParts(got: IndexParts, want: IndexParts): void {
  assert.equal(got.n, want.n);
  assert.deepEqual(got.meta, want.meta);
  const rows = (p: IndexParts) =>
    Buffer.from(new Uint8Array(p.memory.buffer, p.layout.matrixOff, p.n * p.layout.stride));
  assert.ok(rows(got).equals(rows(want)), 'int8 rows');
  for (const k of ['scale', 'err', 'qnorm', 'rowids', 'ids', 'conv', 'ts', 'sender', 'source'] as const) {
    assert.deepEqual(Array.from(got[k]), Array.from(want[k]), k);
  }
  assert.deepEqual([got.senders, got.sources, got.stats], [want.senders, want.sources, want.stats]);
}
