/**
 * A search scanned by two threads (src/search/vector/scan-share.ts) answers exactly what one thread answers — the
 * same ids in the same order with the same scores, equal to brute force — however the chunks fall between the
 * owner and its helper: the helper first (as much as it may take), the helper too late, the two interleaved while
 * the owner yields, a helper that fails after taking chunks or whose answer is lost; for filtered searches (which
 * close the job), for searches the owner rejects, and beside a cancelled search still running. The split across
 * real threads is in test/engine/vector.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EmbeddingRecord } from '../../src/archive/types';
import type { VectorHit } from '../../src/search/types';
import { buildVectorIndex, type Int8VectorIndex } from '../../src/search/vector';
import { noFindings } from '../../src/search/vector/candidates';
import {
  chunkCount,
  claimChunk,
  isUnfiltered,
  lostScan,
  newJob,
  ScanHelper,
  type HelperScan,
} from '../../src/search/vector/scan-share';
import { assertSame, bruteForce, makeRecords, queries } from '../fixtures/vector-records';

// 1536 dimensions: 2730 rows per chunk, so 7000 rows make 3 chunks (the last one short); a helper takes at most 2.
const DIM = 1536;
const N = 7000;
const CHUNK = 2730;

let records: EmbeddingRecord[];
let index: Int8VectorIndex;
let helper: ScanHelper;
let qs: Float32Array[];
/** Each query's top-20 from a scan by one thread. */
let alone: VectorHit[][];

before(async () => {
  records = makeRecords(N, DIM, 4242);
  index = await buildVectorIndex(records, { model: 'share-model' });
  helper = await ScanHelper.create(index.share());
  qs = queries(records, DIM, 77, 6);
  index.yieldMs = Number.POSITIVE_INFINITY;
  alone = [];
  for (const q of qs) alone.push(await index.search(q, 20));
});

after(() => index?.dispose());

const none = (): HelperScan => ({ unscanned: [], ...noFindings() });

/** The shared answer equals the one-thread answer exactly, and brute force. */
function assertExact(got: VectorHit[], qi: number, what: string): void {
  assert.deepStrictEqual(got, alone[qi], `${what}: as one thread scans it`);
  assertSame(got, bruteForce(records, qs[qi], 20), `${what}: brute force`);
}

describe('a scan shared with a helper thread', () => {
  it('has several chunks to share', () => {
    assert.equal(chunkCount(index.share().layout, N), 3);
    assert.equal(index.share().layout.chunkRows, CHUNK);
  });

  it('the helper first: it takes at most half the chunks, the owner the rest, and the owner merges', async () => {
    index.yieldMs = Number.POSITIVE_INFINITY;
    for (const [qi, q] of qs.entries()) {
      for (const k of [1, 20, 100]) {
        const job = newJob();
        const scan = helper.help(job, q, k);
        assert.equal(scan.scanned, 2 * CHUNK, 'two of the three chunks');
        const got = await index.search(q, k, undefined, undefined, { job, helped: Promise.resolve(scan) });
        assert.equal(index.lastTrace.scanned, N, 'every row scored once');
        assert.deepStrictEqual(got, await index.search(q, k), `query ${qi} k ${k}: as one thread scans it`);
        assertSame(got, bruteForce(records, q, k), `query ${qi} k ${k}`);
      }
    }
  });

  it('the helper too late: the owner scans everything, the helper finds nothing left', async () => {
    index.yieldMs = Number.POSITIVE_INFINITY;
    for (const [qi, q] of qs.entries()) {
      const job = newJob();
      let scan: HelperScan | undefined;
      // Runs only once the owner awaits it, after its (synchronous) scan took every chunk.
      const helped = Promise.resolve().then(() => (scan = helper.help(job, q, 20)));
      const got = await index.search(q, 20, undefined, undefined, { job, helped });
      assert.equal(scan?.scanned, 0);
      assert.equal(index.lastTrace.scanned, N);
      assertExact(got, qi, `query ${qi}`);
    }
  });

  it('interleaved: the helper takes chunks while the owner yields between its own', async () => {
    index.yieldMs = 0;
    try {
      for (const [qi, q] of qs.entries()) {
        const job = newJob();
        let scan: HelperScan | undefined;
        // Queued before the owner's first yield: it runs while the owner is between two of its chunks.
        const helped = new Promise<HelperScan>((resolve) =>
          setImmediate(() => resolve((scan = helper.help(job, q, 20)))),
        );
        const got = await index.search(q, 20, undefined, undefined, { job, helped });
        assert.ok(scan && scan.scanned > 0 && scan.scanned < N, `the helper scored ${scan?.scanned} rows`);
        assert.equal(index.lastTrace.scanned, N, 'every row scored once');
        assertExact(got, qi, `query ${qi}`);
      }
    } finally {
      index.yieldMs = Number.POSITIVE_INFINITY;
    }
  });

  it('a helper that failed after taking chunks: the owner scores them itself', async () => {
    for (const [qi, q] of qs.entries()) {
      const job = newJob();
      const counter = new Int32Array(job);
      const taken = [claimChunk(counter, 3), claimChunk(counter, 3)];
      const got = await index.search(q, 20, undefined, undefined, {
        job,
        helped: Promise.resolve({ ...none(), unscanned: taken }),
      });
      assert.equal(index.lastTrace.scanned, N);
      assertExact(got, qi, `query ${qi}`);
    }
  });

  it('a lost answer (the chunks the helper took are unknown): the owner scans everything and uses none of it', async () => {
    for (const [qi, q] of qs.entries()) {
      const job = newJob();
      assert.ok(helper.help(job, q, 20).scanned > 0, 'the helper took chunks');
      const got = await index.search(q, 20, undefined, undefined, { job, helped: Promise.resolve(lostScan()) });
      assert.equal(index.lastTrace.scanned, N);
      assertExact(got, qi, `query ${qi}`);
    }
  });

  it('a filtered search scans alone and closes the job: the helper takes nothing', async () => {
    for (const filter of [{ source: 'whatsapp' }, { conversationId: 2 }, { excludeConversationIds: [1, 3] }]) {
      const q = qs[1];
      const job = newJob();
      const got = await index.search(q, 20, filter, undefined, { job, helped: Promise.resolve(none()) });
      assert.equal(helper.help(job, q, 20).scanned, 0, 'the job was closed');
      assert.deepStrictEqual(got, await index.search(q, 20, filter), `filter ${JSON.stringify(filter)}`);
    }
  });

  it('a search the owner rejects: the helper scores nothing and the owner says why', async () => {
    for (const [bad, code] of [
      [new Float32Array(DIM), /zero length/],
      [new Float32Array(DIM).fill(Number.NaN), /NaN or infinite/],
      [new Float32Array(DIM - 1).fill(1), /dimensions/],
    ] as const) {
      const job = newJob();
      const scan = helper.help(job, bad, 20);
      assert.equal(scan.scanned, 0);
      assert.deepEqual(scan.unscanned, []);
      await assert.rejects(index.search(bad, 20, undefined, undefined, { job, helped: Promise.resolve(scan) }), code);
    }
    for (const k of [0, 2.5, -1]) {
      const job = newJob();
      assert.equal(helper.help(job, qs[0], k).scanned, 0, `k ${k}`);
      await assert.rejects(
        index.search(qs[0], k, undefined, undefined, { job, helped: Promise.resolve(none()) }),
        /k must be a positive integer/,
      );
    }
  });

  it('a cancelled search still scanning never takes a chunk of the next one', async () => {
    index.yieldMs = 0;
    try {
      const ctrl = new AbortController();
      // The first search waits for a helper that never answers; it is cancelled while the second one runs.
      const first = index.search(qs[0], 20, undefined, ctrl.signal, {
        job: newJob(),
        helped: new Promise<HelperScan>(() => {}),
      });
      const job = newJob();
      const scan = helper.help(job, qs[3], 20);
      const second = await index.search(qs[3], 20, undefined, undefined, { job, helped: Promise.resolve(scan) });
      ctrl.abort();
      await assert.rejects(first, { name: 'AbortError' });
      assert.equal(index.lastTrace.scanned, N);
      assertExact(second, 3, 'the search after the cancelled one');
      assert.equal(new Int32Array(job)[0] >= 3, true, "the second job's chunks are all taken");
    } finally {
      index.yieldMs = Number.POSITIVE_INFINITY;
    }
  });

  it('isUnfiltered: only a search over every row is shared', () => {
    assert.equal(isUnfiltered(undefined), true);
    assert.equal(isUnfiltered({}), true);
    assert.equal(isUnfiltered({ excludeConversationIds: [], skipMessageIds: [] }), true);
    for (const f of [
      { conversationId: 1 },
      { startUnix: 0 },
      { endUnix: 0 },
      { sender: 'Me' },
      { source: 'signal' },
      { excludeConversationIds: [1] },
      { onlyMessageIds: [] },
      { skipMessageIds: [3] },
    ]) {
      assert.equal(isUnfiltered(f), false, JSON.stringify(f));
    }
  });
});
