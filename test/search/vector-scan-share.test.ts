/**
 * A search scanned by two threads (src/search/vector/scan-share.ts) answers exactly what one thread answers: the
 * same ids in the same order with the same scores, equal to brute force, however the chunks fall between the owner
 * and its helper (all to the helper, none, a split, a helper that fails after taking chunks), for filtered searches
 * (which close the job) and for queries the owner rejects. The split across real threads is in
 * test/engine/vector.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EmbeddingRecord } from '../../src/archive/types';
import { buildVectorIndex, type Int8VectorIndex } from '../../src/search/vector';
import { chunkCount, claimChunk, isUnfiltered, ScanHelper, type HelperScan } from '../../src/search/vector/scan-share';
import { assertSame, bruteForce, makeRecords, queries } from '../fixtures/vector-records';

// 1536 dimensions: 2730 rows per chunk, so 7000 rows make 3 chunks (the last one short).
const DIM = 1536;
const N = 7000;

let records: EmbeddingRecord[];
let index: Int8VectorIndex;
let helper: ScanHelper;
let qs: Float32Array[];

before(async () => {
  records = makeRecords(N, DIM, 4242);
  index = await buildVectorIndex(records, { model: 'share-model' });
  // No yield inside a scan here: a split is made by the test, not by the clock.
  index.yieldMs = Number.POSITIVE_INFINITY;
  helper = await ScanHelper.create(index.share());
  qs = queries(records, DIM, 77, 6);
});

after(() => index?.dispose());

const none = (job: number): HelperScan => ({ job, unscanned: [], rows: new Int32Array(0), upper: new Float64Array(0), lowers: new Float64Array(0), scanned: 0 });

describe('a scan shared with a helper thread', () => {
  it('has several chunks to share', () => {
    const { layout } = index.share();
    assert.equal(chunkCount(layout, N), 3);
  });

  it('the helper scans everything first: the owner takes no chunk and merges', async () => {
    for (const [qi, q] of qs.entries()) {
      for (const k of [1, 20, 100]) {
        const job = helper.begin();
        const scan = helper.help(job, q, k);
        assert.equal(scan.scanned, N, 'the helper scored every row');
        const got = await index.search(q, k, undefined, undefined, { job, helped: Promise.resolve(scan) });
        assert.equal(index.lastTrace.scanned, N);
        assertSame(got, bruteForce(records, q, k), `query ${qi} k ${k}`);
      }
    }
  });

  it('the helper comes too late: the owner scans everything, the helper finds nothing left', async () => {
    for (const [qi, q] of qs.entries()) {
      const job = helper.begin();
      let scan: HelperScan | undefined;
      // Runs only once the owner awaits it, after its (synchronous) scan took every chunk.
      const helped = Promise.resolve().then(() => (scan = helper.help(job, q, 20)));
      const got = await index.search(q, 20, undefined, undefined, { job, helped });
      assert.equal(scan?.scanned, 0);
      assert.equal(index.lastTrace.scanned, N);
      assertSame(got, bruteForce(records, q, 20), `query ${qi}`);
    }
  });

  it('a split: the helper scores the chunks it took, the owner the rest', async () => {
    const chunks = chunkCount(index.share().layout, N);
    for (const [qi, q] of qs.entries()) {
      for (const ownerFirst of [1, 2]) {
        const job = helper.begin();
        const control = new Int32Array(index.share().control);
        // Chunks taken before the helper starts, handed back to the owner as the helper's unscored ones.
        const early = Array.from({ length: ownerFirst }, () => claimChunk(control, job, chunks));
        const scan = helper.help(job, q, 20);
        assert.equal(scan.scanned, N - early.length * index.share().layout.chunkRows);
        const got = await index.search(q, 20, undefined, undefined, { job, helped: Promise.resolve({ ...scan, unscanned: early }) });
        assert.equal(index.lastTrace.scanned, N, 'every row scored once');
        assertSame(got, bruteForce(records, q, 20), `query ${qi}, ${ownerFirst} chunks to the owner`);
      }
    }
  });

  it('a helper that failed after taking chunks: the owner scores them itself', async () => {
    const chunks = chunkCount(index.share().layout, N);
    for (const [qi, q] of qs.entries()) {
      const job = helper.begin();
      const control = new Int32Array(index.share().control);
      const taken = [claimChunk(control, job, chunks), claimChunk(control, job, chunks)];
      const got = await index.search(q, 20, undefined, undefined, { job, helped: Promise.resolve({ ...none(job), unscanned: taken }) });
      assert.equal(index.lastTrace.scanned, N);
      assertSame(got, bruteForce(records, q, 20), `query ${qi}`);
    }
  });

  it('a filtered search scans alone and closes the job: the helper takes nothing', async () => {
    for (const filter of [{ source: 'whatsapp' }, { conversationId: 2 }, { excludeConversationIds: [1, 3] }]) {
      const q = qs[1];
      const job = helper.begin();
      const got = await index.search(q, 20, filter, undefined, { job, helped: Promise.resolve(none(job)) });
      assert.equal(helper.help(job, q, 20).scanned, 0, 'the job was closed');
      assertSame(got, await index.search(q, 20, filter), `filter ${JSON.stringify(filter)}`);
    }
  });

  it('a search the owner rejects: the helper scores nothing and the owner says why', async () => {
    for (const [bad, code] of [
      [new Float32Array(DIM), /zero length/],
      [new Float32Array(DIM).fill(Number.NaN), /NaN or infinite/],
      [new Float32Array(DIM - 1).fill(1), /dimensions/],
    ] as const) {
      const job = helper.begin();
      const scan = helper.help(job, bad, 20);
      assert.equal(scan.scanned, 0);
      assert.deepEqual(scan.unscanned, []);
      await assert.rejects(index.search(bad, 20, undefined, undefined, { job, helped: Promise.resolve(scan) }), code);
    }
    for (const k of [0, 2.5, -1]) {
      const job = helper.begin();
      assert.equal(helper.help(job, qs[0], k).scanned, 0, `k ${k}`);
      await assert.rejects(index.search(qs[0], k, undefined, undefined, { job, helped: Promise.resolve(none(job)) }), /k must be a positive integer/);
    }
  });

  it('an answer for another job is not merged: the owner scans everything again', async () => {
    const q = qs[2];
    const job = helper.begin();
    const got = await index.search(q, 20, undefined, undefined, { job, helped: Promise.resolve(none(job + 7)) });
    assertSame(got, bruteForce(records, q, 20), 'foreign answer');
  });

  it('isUnfiltered: only a search over every row is shared', () => {
    assert.equal(isUnfiltered(undefined), true);
    assert.equal(isUnfiltered({}), true);
    assert.equal(isUnfiltered({ excludeConversationIds: [], skipMessageIds: [] }), true);
    for (const f of [{ conversationId: 1 }, { startUnix: 0 }, { endUnix: 0 }, { sender: 'Me' }, { source: 'signal' }, { excludeConversationIds: [1] }, { onlyMessageIds: [] }, { skipMessageIds: [3] }]) {
      assert.equal(isUnfiltered(f), false, JSON.stringify(f));
    }
  });
});
