/**
 * Property test: for arbitrary small indexes (dims 1–40, integer-valued vectors that collide and tie often, zero
 * rows, huge and tiny norms) and arbitrary queries, k and filters, the index answers exactly what a brute-force
 * float64 cosine scan answers: same ids in the same order (score desc, messageId asc), same scores.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { EmbeddingRecord } from '../../src/archive/types';
import type { VectorFilter } from '../../src/search/types';
import { buildVectorIndex } from '../../src/search/vector';
import { bruteForce } from '../fixtures/vector-records';

const scenario = fc
  .record({
    dim: fc.integer({ min: 1, max: 40 }),
    n: fc.integer({ min: 1, max: 250 }),
    seed: fc.integer({ min: 0, max: 2 ** 30 }),
    k: fc.integer({ min: 1, max: 30 }),
    magnitude: fc.constantFrom(1e-20, 1e-3, 1, 1e6, 1e30),
    levels: fc.constantFrom(2, 5, 1000),
    jitter: fc.constantFrom(0, 1e-4, 0.3),
    filter: fc.record(
      {
        conversationId: fc.integer({ min: 1, max: 3 }),
        sender: fc.constantFrom('Me', 'Ann'),
        startUnix: fc.integer({ min: 0, max: 100 }),
        endUnix: fc.integer({ min: 0, max: 100 }),
      },
      { requiredKeys: [] },
    ),
    // has_attachment / has_link and hidden conversations: message-id and conversation sets (fractions of the rows).
    only: fc.option(fc.constantFrom(0, 0.05, 0.5, 1), { nil: undefined }),
    skip: fc.option(fc.constantFrom(0, 0.05, 0.5, 1), { nil: undefined }),
    hideConversation: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  })
  .map((s) => {
    let a = s.seed;
    const rnd = () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    // Few distinct integer levels per component: many identical and proportional rows, i.e. many exact ties.
    // Optional jitter moves values off the int8 grid (near-ties the int8 scores cannot separate).
    const draw = () =>
      Float32Array.from(
        { length: s.dim },
        () => (Math.floor(rnd() * (2 * s.levels + 1)) - s.levels + s.jitter * (rnd() - 0.5)) * s.magnitude,
      );
    const records: EmbeddingRecord[] = Array.from({ length: s.n }, (_, i) => ({
      rowid: i + 1,
      messageId: Math.floor(rnd() * 1e6) * 1000 + i,
      hash: `h${i}`,
      conversationId: 1 + Math.floor(rnd() * 3),
      tsUnix: Math.floor(rnd() * 101),
      sender: rnd() < 0.5 ? 'Me' : 'Ann',
      source: 'signal',
      vec: draw(),
    }));
    let query = draw();
    if (query.every((x) => x === 0)) query = Float32Array.from({ length: s.dim }, (_, i) => (i === 0 ? 1 : 0));
    const pickIds = (frac: number) => records.filter(() => rnd() < frac).map((r) => r.messageId);
    const filter: VectorFilter = { ...s.filter };
    if (s.only !== undefined) filter.onlyMessageIds = pickIds(s.only);
    if (s.skip !== undefined) filter.skipMessageIds = pickIds(s.skip);
    if (s.hideConversation !== undefined) filter.excludeConversationIds = [s.hideConversation];
    return { ...s, filter, records, query };
  });

describe('vector index property: exact against brute force', () => {
  it('matches brute force for arbitrary data, queries, k and filters (message-id and hidden-conversation sets included)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const index = await buildVectorIndex(s.records, { model: 'p' });
        try {
          const got = await index.search(s.query, s.k, s.filter);
          const want = bruteForce(s.records, s.query, s.k, s.filter);
          assert.deepEqual(
            got.map((h) => h.messageId),
            want.map((h) => h.messageId),
          );
          for (const [i, h] of got.entries()) assert.ok(Math.abs(h.score - want[i].score) <= 1e-6);
        } finally {
          index.dispose();
        }
      }),
      { numRuns: 150, seed: 20261129 },
    );
  });
});
