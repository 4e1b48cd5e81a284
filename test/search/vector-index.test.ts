/**
 * Exactness of the int8 + WASM index against a brute-force float64 cosine reference: ids, order (ties by messageId)
 * and scores, unfiltered and filtered, on random, clustered, duplicated and near-duplicate data.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EmbeddingRecord } from '../../src/archive/types';
import type { VectorFilter, VectorHit } from '../../src/search/types';
import { buildVectorIndex, VectorIndexError } from '../../src/search/vector';
import { mulberry32 as rng, gaussian as gauss } from '../fixtures/random';
import { assertSame, bruteForce, makeRecords, queries } from '../fixtures/vector-records';

describe('vector index exactness', () => {
  for (const [dim, n] of [
    [1, 300],
    [2, 800],
    [8, 800],
    [17, 600],
    [384, 600],
    [768, 500],
  ] as const) {
    it(`top-k equals brute force for dim ${dim} (n=${n})`, async () => {
      const records = makeRecords(n, dim, dim * 101 + n);
      const index = await buildVectorIndex(records, { model: 'test-model' });
      assert.equal(index.size, n);
      assert.equal(index.dim, dim);
      for (const [qi, q] of queries(records, dim, dim + 5, 12).entries()) {
        for (const k of [1, 5, 20, 37]) {
          const got = await index.search(q, k);
          assertSame(got, bruteForce(records, q, k), `dim ${dim} query ${qi} k ${k}`);
        }
      }
      index.dispose();
    });
  }

  it('k larger than the index returns every row, exactly ordered', async () => {
    const records = makeRecords(120, 24, 9);
    const index = await buildVectorIndex(records, { model: 'm' });
    const q = queries(records, 24, 1, 1)[0];
    assertSame(await index.search(q, 500), bruteForce(records, q, 500), 'k > n');
  });

  it('filters match the brute-force filtered reference', async () => {
    const dim = 48;
    const records = makeRecords(1500, dim, 77);
    const index = await buildVectorIndex(records, { model: 'm' });
    const filters: VectorFilter[] = [
      { conversationId: 3 },
      { sender: 'Alice' },
      { source: 'whatsapp' },
      { startUnix: 1_600_000_000 + 300 * 3600 },
      { endUnix: 1_600_000_000 + 200 * 3600 },
      { startUnix: 1_600_000_000 + 100 * 3600, endUnix: 1_600_000_000 + 400 * 3600, sender: 'Me' },
      { conversationId: 2, source: 'signal', sender: 'Bob' },
      { conversationId: 99 },
      { sender: 'Nobody' },
      { startUnix: 1_600_000_000 + 500 * 3600, endUnix: 1_600_000_000 + 500 * 3600 },
    ];
    for (const [qi, q] of queries(records, dim, 3, 6).entries()) {
      for (const [fi, f] of filters.entries()) {
        const expected = bruteForce(records, q, 20, f);
        assertSame(await index.search(q, 20, f), expected, `query ${qi} filter ${fi}`);
      }
    }
    // The unknown-conversation filter really has no rows (so an empty answer is the exact answer).
    assert.equal(bruteForce(records, queries(records, dim, 3, 1)[0], 20, { conversationId: 99 }).length, 0);
  });

  it('orders exact ties by messageId ascending', async () => {
    const dim = 32;
    const base = Float32Array.from({ length: dim }, (_, i) => Math.sin(i + 1));
    const other = Float32Array.from({ length: dim }, (_, i) => Math.cos(3 * i));
    const ids = [50, 3, 41, 9, 27, 12, 8, 33];
    const records: EmbeddingRecord[] = ids.map((id, i) => ({
      rowid: i + 1,
      messageId: id,
      hash: `h${id}`,
      conversationId: 1,
      tsUnix: i,
      vec: i % 2 === 0 ? base : other,
    }));
    const index = await buildVectorIndex(records, { model: 'm' });
    const hits = await index.search(base, 8);
    // ids at even positions hold `base` (score 1), odd positions `other` (one shared lower score)
    assert.deepEqual(
      hits.map((h) => h.messageId),
      [8, 27, 41, 50, 3, 9, 12, 33],
    );
    assert.equal(hits[0].score, hits[3].score);
    assertSame(hits, bruteForce(records, base, 8), 'ties');
  });

  it('rescoring goes beyond a fixed candidate count when int8 scores cannot separate rows', async () => {
    // 3000 near-identical rows: their int8 codes coincide, so only exact rescoring can rank them.
    const dim = 64;
    const r = rng(5);
    const base = Float32Array.from({ length: dim }, () => gauss(r));
    const records: EmbeddingRecord[] = Array.from({ length: 3000 }, (_, i) => ({
      rowid: i + 1,
      messageId: i + 1,
      hash: `h${i}`,
      conversationId: 1,
      tsUnix: i,
      vec: base.map((x) => x + 2e-5 * gauss(r)),
    }));
    const index = await buildVectorIndex(records, { model: 'm' });
    const q = base.map((x) => x + 0.01 * gauss(r));
    assertSame(await index.search(q, 20), bruteForce(records, q, 20), 'near-identical rows');
    assert.ok(index.lastTrace.rescored > 100, `rescored ${index.lastTrace.rescored} rows`);
  });

  it('skips and counts rows with wrong-length or non-finite vectors', async () => {
    const records = makeRecords(200, 16, 4);
    const bad: EmbeddingRecord[] = [
      { rowid: 10_001, messageId: 10_001, hash: 'x', conversationId: 1, tsUnix: 0, vec: new Float32Array(15) },
      { rowid: 10_002, messageId: 10_002, hash: 'y', conversationId: 1, tsUnix: 0, vec: new Float32Array(0) },
      {
        rowid: 10_003,
        messageId: 10_003,
        hash: 'z',
        conversationId: 1,
        tsUnix: 0,
        vec: new Float32Array(16).fill(Number.NaN),
      },
    ];
    const logs: string[] = [];
    const index = await buildVectorIndex([...records.slice(0, 100), ...bad, ...records.slice(100)], {
      model: 'm',
      dim: 16,
      log: (m) => logs.push(m),
    });
    assert.deepEqual(logs, [
      'vector index for model m: skipped 2 embedding(s) whose length is not 16 and 1 holding NaN/infinite values; 200 indexed',
    ]);
    assert.equal(index.size, 200);
    assert.equal(index.stats.skippedWrongLength, 2);
    assert.equal(index.stats.skippedNonFinite, 1);
    const q = queries(records, 16, 8, 1)[0];
    assertSame(await index.search(q, 10), bruteForce(records, q, 10), 'after skipping');
  });

  it('rejects zero, non-finite and wrong-dimension queries and bad k with clear errors', async () => {
    const index = await buildVectorIndex(makeRecords(50, 8, 1), { model: 'nomic-embed' });
    await assert.rejects(
      index.search(new Float32Array(8), 5),
      (e: unknown) => e instanceof VectorIndexError && e.code === 'zero_query',
    );
    await assert.rejects(
      index.search(new Float32Array(8).fill(Number.POSITIVE_INFINITY), 5),
      (e: unknown) => e instanceof VectorIndexError && e.code === 'invalid_query',
    );
    await assert.rejects(index.search(new Float32Array(12).fill(1), 5), {
      message:
        'query has 12 dimensions, the stored vectors of model nomic-embed have 8 — the embedding endpoint serves a ' +
        'different model than the one used by `msgbrowse embed`',
    });
    await assert.rejects(
      index.search(new Float32Array(8).fill(1), 0),
      (e: unknown) => e instanceof VectorIndexError && e.code === 'invalid_k',
    );
  });

  it('refuses sender/source filters when the records carried no sender/source', async () => {
    const records = makeRecords(40, 8, 2).map(({ sender: _s, source: _o, ...rest }) => rest);
    const index = await buildVectorIndex(records, { model: 'm' });
    const q = new Float32Array(8).fill(1);
    await assert.rejects(
      index.search(q, 5, { sender: 'Me' }),
      (e: unknown) => e instanceof VectorIndexError && e.code === 'missing_metadata',
    );
    await assert.rejects(
      index.search(q, 5, { source: 'signal' }),
      (e: unknown) => e instanceof VectorIndexError && e.code === 'missing_metadata',
    );
    assertSame(
      await index.search(q, 5, { conversationId: 2 }),
      bruteForce(records, q, 5, { conversationId: 2 }),
      'conv filter',
    );
  });

  it('an archive without usable vectors is an error, not an empty index', async () => {
    await assert.rejects(
      buildVectorIndex([], { model: 'm' }),
      (e: unknown) => e instanceof VectorIndexError && e.code === 'no_vectors',
    );
  });

  it('concurrent searches on one index (interleaving at every chunk) give the sequential answers', async () => {
    const dim = 768;
    const records = makeRecords(9000, dim, 21);
    const index = await buildVectorIndex(records, { model: 'm' });
    index.yieldMs = 0;
    const qs = queries(records, dim, 4, 4);
    const filters: (VectorFilter | undefined)[] = [undefined, { conversationId: 2 }, undefined, { sender: 'Bob' }];
    const sequential: VectorHit[][] = [];
    for (const [i, q] of qs.entries()) sequential.push(await index.search(q, 10, filters[i]));
    const concurrent = await Promise.all(qs.map((q, i) => index.search(q, 10, filters[i])));
    assert.deepEqual(concurrent, sequential);
    for (const [i, hits] of sequential.entries())
      assertSame(hits, bruteForce(records, qs[i], 10, filters[i]), `query ${i}`);
    index.dispose();
  });

  it('search yields to the event loop between chunks and can be cancelled', async () => {
    const dim = 768;
    const records = makeRecords(7000, dim, 11);
    const index = await buildVectorIndex(records, { model: 'm' });
    index.yieldMs = 0; // yield after every chunk (7000 × 768 rows are 3 chunks)
    const q = queries(records, dim, 2, 1)[0];
    let ticked = false;
    setImmediate(() => (ticked = true));
    await index.search(q, 10);
    assert.ok(ticked, 'an event-loop turn ran during the search');

    const ac = new AbortController();
    const p = index.search(q, 10, undefined, ac.signal);
    ac.abort();
    await assert.rejects(p, { name: 'AbortError' });
    const pre = new AbortController();
    pre.abort();
    await assert.rejects(index.search(q, 10, undefined, pre.signal), { name: 'AbortError' });
    index.dispose();
    await assert.rejects(index.search(q, 10), (e: unknown) => e instanceof VectorIndexError && e.code === 'disposed');
  });
});
