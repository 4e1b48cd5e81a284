/**
 * A build split in two ranges (search/vector/split.ts) gives the parts a one-thread build of the same records gives,
 * byte for byte: the int8 rows, the per-row planes, every per-row array and the interned senders and sources. The
 * two ranges run one after the other here, in this thread, into one shared memory; the engine runs them in two
 * threads (test/engine/split-build.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EmbeddingRecord, JoinedKeys } from '../../src/archive/types';
import { checkedParts, consumeRange, consumeRecords, mergeSplitParts, splitPlacements, type IndexParts } from '../../src/search/vector';
import { mulberry32 } from '../fixtures/random';
import { makeRecords } from '../fixtures/vector-records';

const MODEL = 'split-test';

/** Records with what a build must skip mixed in: wrong lengths, NaN and infinity; senders and sources varied. */
function mixedRecords(n: number, dim: number, seed: number): EmbeddingRecord[] {
  const r = mulberry32(seed);
  const senders = ['Me', 'Alice', 'Bob', 'Carol', 'Dana', 'Eve', 'Frank'];
  return makeRecords(n, dim, seed).map((rec, i) => {
    const kind = r();
    let vec = rec.vec;
    if (kind < 0.04) vec = new Float32Array(dim + 1 + Math.floor(r() * 3));
    else if (kind < 0.07) {
      vec = Float32Array.from(vec);
      vec[Math.floor(r() * dim)] = r() < 0.5 ? Number.NaN : Number.POSITIVE_INFINITY;
    }
    // Senders first seen in the upper range too, so the merge has ids to remap and names to add.
    const sender = r() < 0.1 ? undefined : senders[Math.floor(r() * (i < n / 2 ? 3 : senders.length))];
    return { ...rec, vec, sender, source: r() < 0.05 ? undefined : rec.source } as EmbeddingRecord;
  });
}

async function splitBuild(records: EmbeddingRecord[], dim: number, cut: number, capacity = records.length, compactAbove?: number): Promise<IndexParts> {
  const [low, high] = splitPlacements(MODEL, dim, capacity);
  // The upper range first: nothing may depend on the order in which the two finish.
  const second = await consumeRange(records.slice(cut), { model: MODEL, dim }, high);
  const first = await consumeRange(records.slice(0, cut), { model: MODEL, dim }, low);
  return checkedParts(mergeSplitParts(MODEL, low.memory, first, second, compactAbove), { model: MODEL });
}

function rowsOf(p: IndexParts): Uint8Array {
  return new Uint8Array(p.memory.buffer, p.layout.matrixOff, p.n * p.layout.stride);
}

function assertSameParts(got: IndexParts, want: IndexParts, label: string): void {
  assert.equal(got.n, want.n, `${label}: rows`);
  assert.equal(got.dim, want.dim);
  assert.deepEqual(got.layout, want.layout);
  assert.deepEqual(got.meta, want.meta, `${label}: the per-row planes sit where a one-thread build puts them`);
  assert.ok(Buffer.from(rowsOf(got)).equals(Buffer.from(rowsOf(want))), `${label}: int8 rows`);
  for (const k of ['scale', 'err', 'qnorm', 'rowids', 'ids', 'conv', 'ts', 'sender', 'source'] as const) {
    assert.deepEqual(Array.from(got[k]), Array.from(want[k]), `${label}: ${k}`);
  }
  assert.deepEqual(got.senders, want.senders, `${label}: senders`);
  assert.deepEqual(got.sources, want.sources, `${label}: sources`);
  assert.deepEqual(got.stats, want.stats, `${label}: stats`);
}

describe('a build split in two rowid ranges', () => {
  for (const dim of [8, 20, 64]) {
    it(`dim ${dim}: the same parts as one thread, wherever the split falls`, async () => {
      const records = mixedRecords(300, dim, dim);
      const want = await consumeRecords(records, { model: MODEL, dim, total: records.length });
      assert.ok(want.stats.skippedWrongLength > 0 && want.stats.skippedNonFinite > 0, 'the data has rows to skip');
      for (const cut of [0, 1, 2, 37, 150, 299, 300]) {
        assertSameParts(await splitBuild(records, dim, cut), want, `cut at ${cut}`);
      }
    });
  }

  it('fills a memory sized for exactly its rows (no gap to close) and one with room to spare', async () => {
    const records = makeRecords(200, 16, 5);
    const want = await consumeRecords(records, { model: MODEL, dim: 16 });
    assertSameParts(await splitBuild(records, 16, 120), want, 'exact');
    assertSameParts(await splitBuild(records, 16, 120, 1000), want, 'room to spare');
  });

  it('rows left behind past the index: moved to a memory of its own size above the threshold, else kept in place', async () => {
    const records = mixedRecords(240, 64, 4);
    const want = await consumeRecords(records, { model: MODEL, dim: 64 });
    // Room for 4000 rows: the upper range's rows start at row 4000 − its count, far past the merged index's end.
    const [probe] = splitPlacements(MODEL, 64, 4000);
    const kept = await splitBuild(records, 64, 100, 4000, Number.POSITIVE_INFINITY);
    const moved = await splitBuild(records, 64, 100, 4000, 0);
    assertSameParts(kept, want, 'kept in place');
    assertSameParts(moved, want, 'moved');
    assert.equal(kept.memory.buffer.byteLength, probe.memory.buffer.byteLength, 'in place: the split memory');
    assert.ok(moved.memory.buffer.byteLength < probe.memory.buffer.byteLength, 'moved: a memory sized for the index');
    // No gap at all: nothing is left behind, so nothing moves even with no threshold.
    const exact = await splitBuild(makeRecords(120, 32, 8), 32, 50, 120, 0);
    assert.equal(exact.memory.buffer.byteLength, splitPlacements(MODEL, 32, 120)[0].memory.buffer.byteLength);
  });

  it('rows beyond the counted capacity fail with split_overflow (the engine then builds in one thread)', async () => {
    const records = makeRecords(100, 16, 9);
    await assert.rejects(splitBuild(records, 16, 60, 99), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'split_overflow');
      assert.match(e.message, /outnumber the 99 counted when the build started/);
      return true;
    });
    // Unusable rows give their slot back: 10 rows that cannot be indexed still fit a capacity of 90 usable ones.
    const withBad = records.map((r, i) => (i % 10 === 3 ? { ...r, vec: Float32Array.from(r.vec).fill(Number.NaN, 0, 1) } : r));
    const parts = await splitBuild(withBad, 16, 60, 90);
    assert.equal(parts.n, 90);
    assert.equal(parts.stats.skippedNonFinite, 10);
  });

  it('an upper range read unjoined, orphans among its rows, joined once read: the same parts as one thread', async () => {
    for (const dim of [8, 64]) {
      const records = mixedRecords(300, dim, 40 + dim);
      const want = await consumeRecords(records, { model: MODEL, dim, total: records.length });
      const r = mulberry32(dim);
      // The stream joined later sees each record without its message's columns, and orphans (usable, skipped or
      // not) mixed in, leading and trailing too; the join knows the records' messages and not the orphans'.
      const messages = new Map<number, EmbeddingRecord>();
      const unjoined = (recs: EmbeddingRecord[]): EmbeddingRecord[] =>
        recs.flatMap((rec, i) => {
          const key = messages.size * 2;
          messages.set(key, rec);
          const row = { rowid: rec.rowid, hash: rec.hash, vec: rec.vec, messageId: Number.NaN, conversationId: Number.NaN, tsUnix: Number.NaN, joinKey: key } as EmbeddingRecord;
          const orphanVec = r() < 0.5 ? makeRecords(1, dim, i)[0].vec : new Float32Array(dim).fill(Number.NaN);
          const orphan = { ...row, vec: r() < 0.1 ? new Float32Array(dim + 2) : orphanVec, joinKey: key + 1 } as EmbeddingRecord;
          return i === 0 || r() < 0.2 || i === recs.length - 1 ? [orphan, row] : [row];
        });
      const joined: JoinedKeys = {
        through: 'shared',
        messageOf: (key) => {
          const m = messages.get(key);
          return m && { messageId: m.messageId, conversationId: m.conversationId, tsUnix: m.tsUnix, sender: m.sender as string, source: m.source as string };
        },
      };
      for (const cut of [0, 100, 299]) {
        messages.clear();
        const [low, high] = splitPlacements(MODEL, dim, records.length * 3);
        const upper = unjoined(records.slice(cut));
        const second = await consumeRange(upper, { model: MODEL, dim }, high, async () => joined);
        const first = await consumeRange(records.slice(0, cut), { model: MODEL, dim }, low);
        const got = checkedParts(mergeSplitParts(MODEL, low.memory, first, second), { model: MODEL });
        assertSameParts(got, want, `dim ${dim}, cut at ${cut}`);
        // Every orphan's slot was given back: the free slots are the capacity less the rows.
        assert.equal(Atomics.load(new Int32Array(high.free), 0), records.length * 3 - first.n - second.n, `dim ${dim}, cut ${cut}: slots`);
      }
    }
  });

  it('no usable row in either range is the one-thread build\'s no_vectors error', async () => {
    const records = makeRecords(20, 16, 3).map((r) => ({ ...r, vec: new Float32Array(17) }));
    await assert.rejects(consumeRecords(records, { model: MODEL, dim: 16 }), /no usable embeddings for model split-test: 20 record\(s\) read \(20 with the wrong length/);
    await assert.rejects(splitBuild(records, 16, 8), /no usable embeddings for model split-test: 20 record\(s\) read \(20 with the wrong length/);
  });
});
