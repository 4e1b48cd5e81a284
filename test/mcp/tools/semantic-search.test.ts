/** semantic_search: exact top-k over the stored vectors, its filters, receipt and failures. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  conversationOf,
  embedText,
  cosine,
  embeddingInput,
  isEmbeddable,
  type CuratedArchive,
} from '../../fixtures/index';
import { startHarness, type Harness } from '../harness';
import { toolFixture, type Hit, type Receipt, type ToolFixture } from './tool-fixture';

let desc: CuratedArchive;
let embed: ToolFixture['embed'];
let h: Harness;
let wrongDim: Harness;
toolFixture((fx) => ({ desc, embed, h, wrongDim } = fx));

describe('semantic_search', () => {
  test('exact cosine top-k over the stored vectors of the configured model', async () => {
    const query = 'cabin wood stove hot tub';
    const qv = embedText(query, 8, 'test-embed');
    const expected = desc.messages
      .filter(isEmbeddable)
      .map((m) => ({ id: m.id, score: cosine(qv, embedText(embeddingInput(m.body), 8, 'test-embed')) }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, 5);
    const r = await h.ok<{ hits: Hit[] }>('semantic_search', { query, k: 5 });
    assert.deepEqual(
      r.hits.map((x) => x.score),
      expected.map((e) => Math.round(e.score * 1e4) / 1e4),
    );
    // ids agree wherever scores are not tied
    for (let i = 0; i < 5; i++) {
      const tied = expected.filter((e) => e.score === expected[i].score).map((e) => e.id);
      assert.ok(tied.includes(r.hits[i].message_id));
    }
  });

  test('sender / source / date / conversation filters and k clamping', async () => {
    const r = await h.ok<{ hits: Hit[]; notes?: string[] }>('semantic_search', {
      query: 'lease',
      k: 150,
      sender: 'Harper',
    });
    assert.deepEqual(r.notes, ['k 150 is above the maximum 100; used 100']);
    assert.ok(r.hits.length > 0 && r.hits.every((x) => x.sender === 'Harper'));
    const wa = await h.ok<{ hits: Hit[] }>('semantic_search', { query: 'lease', source: 'whatsapp' });
    assert.ok(wa.hits.length > 0 && wa.hits.every((x) => x.source === 'whatsapp'));
    const dated = await h.ok<{ hits: Hit[] }>('semantic_search', {
      query: 'lease',
      start: '2024-01-01',
      end: '2024-12-31',
    });
    assert.ok(dated.hits.length > 0 && dated.hits.every((x) => x.timestamp.startsWith('2024')));
    const zoe = conversationOf(desc, 'signal', 'Zoë');
    const conv = await h.ok<{ hits: Hit[] }>('semantic_search', { query: 'café', conversation: 'Zoë' });
    assert.ok(conv.hits.length > 0 && conv.hits.every((x) => x.conversation_id === zoe.id));
    // orphan embeddings never surface
    const all = await h.ok<{ hits: Hit[] }>('semantic_search', { query: 'deleted message about the lease', k: 100 });
    assert.ok(all.hits.every((x) => desc.messages.some((m) => m.id === x.message_id)));
  });

  test('has_attachment / has_link: the exact top-k among messages with (or without) an attachment / a link', async () => {
    const query = 'photo of the cabin';
    const qv = embedText(query, 8, 'test-embed');
    const topK = (keep: (m: (typeof desc.messages)[number]) => boolean, k: number) =>
      desc.messages
        .filter((m) => isEmbeddable(m) && keep(m))
        .map((m) => ({
          id: m.id,
          score: Math.round(cosine(qv, embedText(embeddingInput(m.body), 8, 'test-embed')) * 1e4) / 1e4,
        }))
        .sort((a, b) => b.score - a.score || a.id - b.id)
        .slice(0, k);
    for (const [args, keep] of [
      [{ has_attachment: true }, (m: (typeof desc.messages)[number]) => m.attachments.length > 0],
      [{ has_attachment: false }, (m: (typeof desc.messages)[number]) => m.attachments.length === 0],
      [{ has_link: true }, (m: (typeof desc.messages)[number]) => m.links.length > 0],
      [
        { has_link: false, has_attachment: false },
        (m: (typeof desc.messages)[number]) => m.links.length === 0 && m.attachments.length === 0,
      ],
    ] as const) {
      const r = await h.ok<{ hits: Hit[]; receipt: { scope: Record<string, unknown>; messages_in_scope: number } }>(
        'semantic_search',
        { query, k: 8, ...args },
      );
      const want = topK(keep, 8);
      assert.deepEqual(
        r.hits.map((x) => x.score),
        want.map((w) => w.score),
        JSON.stringify(args),
      );
      for (const hit of r.hits)
        assert.ok(
          keep(desc.messages.find((m) => m.id === hit.message_id)!),
          `${JSON.stringify(args)}: hit ${hit.message_id} breaks the filter`,
        );
      for (const [k, v] of Object.entries(args)) assert.equal(r.receipt.scope[k], v, 'the receipt names the filter');
      assert.equal(
        r.receipt.messages_in_scope,
        desc.messages.filter(keep).length,
        `${JSON.stringify(args)}: messages_in_scope`,
      );
      // The hybrid search honours the same filter on both halves.
      const hy = await h.ok<{ hits: Hit[] }>('search_messages', { query: 'the', ...args, limit: 50 });
      assert.ok(hy.hits.length > 0, JSON.stringify(args));
      for (const hit of hy.hits)
        assert.ok(
          keep(desc.messages.find((m) => m.id === hit.message_id)!),
          `search_messages ${JSON.stringify(args)}: hit ${hit.message_id}`,
        );
    }
  });

  test('dimension mismatch and unreachable endpoint → clear errors', async () => {
    assert.match(
      await wrongDim.err('semantic_search', { query: 'lease' }),
      /^semantic search failed: embedding dimension mismatch/,
    );
    const down = await startHarness({
      archivePath: desc.path,
      embed: { baseUrl: 'http://127.0.0.1:1/v1', model: 'test-embed' },
    });
    try {
      assert.match(
        await down.err('semantic_search', { query: 'lease' }),
        /cannot reach the embeddings endpoint POST http:\/\/127\.0\.0\.1:1\/v1\/embeddings/,
      );
      const r = await down.ok<{ hits: Hit[]; semantic: { used: boolean; reason: string } }>('search_messages', {
        query: 'lease',
      });
      assert.equal(r.semantic.used, false);
      assert.match(r.semantic.reason, /cannot reach/);
      assert.ok(r.hits.length > 0);
    } finally {
      await down.close();
    }
    const missing = await startHarness({
      archivePath: desc.path,
      embed: { baseUrl: embed.baseUrl, model: 'nomic-embed' },
    });
    try {
      assert.match(
        await missing.err('semantic_search', { query: 'lease' }),
        /unavailable: the archive has no embeddings for model "nomic-embed"/,
      );
    } finally {
      await missing.close();
    }
  });
});

describe('search receipts', () => {
  test('semantic_search: scope, coverage for the model (system messages have no vectors)', async () => {
    const r = await h.ok<{ receipt: Receipt }>('semantic_search', {
      query: 'cabin',
      source: 'signal',
      sender: 'No-Sender',
    });
    const sys = desc.messages.filter((m) => m.source === 'signal' && m.sender === 'No-Sender');
    assert.deepEqual(r.receipt, {
      scope: { source: 'signal', sender: 'No-Sender' },
      messages_in_scope: sys.length,
      vector_coverage: { model: 'test-embed', messages_with_vectors: sys.filter(isEmbeddable).length },
      semantic: { used: true, model: 'test-embed' },
    });
  });
});
