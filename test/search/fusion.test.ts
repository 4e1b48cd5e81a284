import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuseHybrid, roundScore, rrfTerm, RRF_K } from '../../src/search/fusion';

test('rrfTerm: 1/(60 + rank + 1) with a 0-based rank', () => {
  assert.equal(RRF_K, 60);
  assert.equal(rrfTerm(0), 1 / 61);
  assert.equal(rrfTerm(1), 1 / 62);
  assert.equal(rrfTerm(59), 1 / 120);
});

test('msgbrowse tie test: keyword-only 50 and semantic-only 10 at rank 0 → [10, 50]', () => {
  for (let run = 0; run < 5; run++) {
    const out = fuseHybrid([{ id: 50, snippet: 'kw' }], [{ messageId: 10, score: 0.9 }], 10);
    assert.deepEqual(
      out.map((e) => e.messageId),
      [10, 50],
    );
    assert.equal(out[0].score, 1 / 61);
    assert.equal(out[1].score, 1 / 61);
    assert.equal(out[0].keyword, undefined);
    assert.equal(out[1].semantic, undefined);
  }
});

test('a message in both lists keeps the keyword hit and scores 2/61', () => {
  const out = fuseHybrid([{ id: 7, snippet: 'the **lease**' }], [{ messageId: 7, score: 0.99 }], 10);
  assert.equal(out.length, 1);
  assert.equal(out[0].keyword?.snippet, 'the **lease**');
  assert.equal(out[0].semantic?.score, 0.99);
  assert.equal(out[0].score, 2 / 61);
  assert.ok(out[0].score > 1 / 61);
});

test('§10 expectations: keyword [1], semantic [1, 3, 2] → ids 1, 3, 2 with 2/61, 1/62, 1/63', () => {
  const out = fuseHybrid([{ id: 1 }], [{ messageId: 1 }, { messageId: 3 }, { messageId: 2 }], 20);
  assert.deepEqual(
    out.map((e) => e.messageId),
    [1, 3, 2],
  );
  assert.deepEqual(
    out.map((e) => e.score),
    [1 / 61 + 1 / 61, 1 / 62, 1 / 63],
  );
  assert.deepEqual(
    out.map((e) => roundScore(e.score)),
    [0.0328, 0.0161, 0.0159],
  );
});

test('sorting is on the raw score: 1/120 and 1/121 do not collapse into a tie (msgbrowse quirk §11.8)', () => {
  // Keyword list of 61 ids where the id order is the reverse of the rank order at the tail.
  const keyword = Array.from({ length: 61 }, (_, i) => ({ id: 1000 - i }));
  const out = fuseHybrid(keyword, [], 100);
  assert.deepEqual(
    out.map((e) => e.messageId),
    keyword.map((h) => h.id),
  );
  // Both would round to 0.0083 and msgbrowse would then order them by id ascending.
  assert.equal(roundScore(rrfTerm(59)), 0.0083);
  assert.equal(roundScore(rrfTerm(60)), 0.0083);
  assert.equal(out[59].messageId, 941);
  assert.equal(out[60].messageId, 940);
});

test('limit truncates after sorting; duplicates within one list count once', () => {
  const out = fuseHybrid([{ id: 5 }, { id: 5 }, { id: 6 }], [{ messageId: 6 }, { messageId: 7 }], 10);
  assert.deepEqual(
    out.map((e) => e.messageId),
    [6, 5, 7],
  );
  assert.equal(out[0].score, 1 / 62 + 1 / 61);
  assert.equal(out[1].score, 1 / 61);
  assert.equal(fuseHybrid([{ id: 1 }, { id: 2 }, { id: 3 }], [], 2).length, 2);
  assert.equal(fuseHybrid([{ id: 1 }], [], 0).length, 0);
});

test('ties of equal fused sums order by message id ascending regardless of input order', () => {
  const a = fuseHybrid([{ id: 9 }, { id: 4 }], [{ messageId: 4 }, { messageId: 9 }], 10);
  assert.deepEqual(
    a.map((e) => e.messageId),
    [4, 9],
  );
  assert.equal(a[0].score, a[1].score);
});

test('roundScore: half away from zero, negatives, float noise, no -0', () => {
  assert.equal(roundScore(0.995037), 0.995);
  assert.equal(roundScore(0.196116), 0.1961);
  assert.equal(roundScore(0.099504), 0.0995);
  assert.equal(roundScore(-0.3), -0.3); // msgbrowse reports -0.2999
  assert.equal(roundScore(0.00005), 0.0001);
  assert.equal(roundScore(-0.00005), -0.0001);
  assert.equal(roundScore(1.00005), 1.0001);
  assert.equal(roundScore(0.12345), 0.1235);
  assert.equal(roundScore(-0.12345), -0.1235);
  assert.equal(Object.is(roundScore(-0.00001), 0), true);
  assert.equal(roundScore(0), 0);
  assert.equal(roundScore(1), 1);
});
