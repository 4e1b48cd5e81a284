/** search_messages: the hybrid search, its filters, senders, receipts and the caps on a query. */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { buildDemoArchive, conversationOf, isEmbeddable, type CuratedArchive } from '../../fixtures/index';
import { startHarness, tempDir, textOf, type Harness } from '../harness';
import { toolFixture, type Hit, type Receipt, type ToolFixture } from './tool-fixture';

let desc: CuratedArchive;
let h: Harness;
let plain: Harness;
let wrongDim: Harness;
let link: ToolFixture['link'];
toolFixture((fx) => ({ desc, h, plain, wrongDim, link } = fx));

describe('search_messages', () => {
  test('hybrid: keyword hits with readable snippets, fused with semantic hits; scores rounded to 4 places', async () => {
    const r = await h.ok<{ hits: Hit[]; semantic: { used: boolean; model?: string } }>('search_messages', {
      query: 'lease',
      limit: 10,
    });
    assert.deepEqual(r.semantic, { used: true, model: 'test-embed' });
    assert.equal(r.hits.length, 10);
    const lease = r.hits.find((x) => x.message_id === desc.marks.leaseAgreement.id)!;
    assert.ok(lease, 'the lease agreement message is found');
    assert.match(lease.text, /\*\*lease\*\*/);
    for (const x of r.hits) {
      assert.doesNotMatch(x.text, /[\u0000-\u0008\u000b-\u001f\u007f]/);
      assert.equal(x.link, link(x.conversation_id, x.message_id));
      assert.equal(typeof x.score, 'number');
      assert.equal(Math.round(x.score! * 1e4) / 1e4, x.score);
    }
    for (let i = 1; i < r.hits.length; i++) assert.ok(r.hits[i - 1].score! >= r.hits[i].score!);
  });

  test('filters: sender, source, conversation_id, dates', async () => {
    const bySender = await plain.ok<{ hits: Hit[] }>('search_messages', { query: 'lease', sender: 'MJ' });
    assert.ok(bySender.hits.length >= 1 && bySender.hits.every((x) => x.sender === 'MJ'));
    const bySource = await plain.ok<{ hits: Hit[] }>('search_messages', { query: 'lease', source: 'imessage' });
    assert.ok(bySource.hits.length >= 1 && bySource.hits.every((x) => x.source === 'imessage'));
    const trip = conversationOf(desc, 'signal', 'Group Trip');
    const byConv = await plain.ok<{ hits: Hit[] }>('search_messages', { query: 'lease', conversation_id: trip.id });
    assert.ok(byConv.hits.length >= 1 && byConv.hits.every((x) => x.conversation_id === trip.id));
    const none = await plain.ok<{ hits: Hit[] }>('search_messages', { query: 'zzzqqq' });
    assert.deepEqual(none.hits, []);
  });

  test('limit above 100 is clamped with a note; limit 0 is an error', async () => {
    const r = await plain.ok<{ hits: Hit[]; notes?: string[] }>('search_messages', { query: 'the', limit: 150 });
    assert.deepEqual(r.notes, ['limit 150 is above the maximum 100; used 100']);
    assert.ok(r.hits.length <= 100);
    assert.match(await plain.err('search_messages', { query: 'the', limit: 0 }), /limit must be at least 1/);
    // 2**60 is an integer, only not an exact one for JavaScript: say so rather than "must be an integer".
    assert.match(
      await plain.err('search_messages', { query: 'the', limit: 2 ** 60 }),
      /limit is too large: give a whole number from 1 to 9007199254740991/,
    );
    assert.match(await plain.err('get_context', { message_id: 2 ** 60 }), /message_id is too large/);
    assert.match(await plain.err('search_messages', { query: 'the', limit: 2.5 }), /limit must be an integer/);
  });

  test('FTS syntax and hostile queries are plain text', async () => {
    for (const q of [
      '"',
      'lease OR',
      'lease)',
      '*',
      'NEAR(',
      '^foo',
      '""',
      'a"b',
      'col:value',
      '-minus',
      'lease*',
      'AND OR NOT',
    ]) {
      const r = await plain.call('search_messages', { query: q });
      assert.ok(!r.isError, `${q}: ${textOf(r)}`);
      assert.ok(Array.isArray((r.structuredContent as { hits: unknown[] }).hits));
    }
    assert.match(await plain.err('search_messages', { query: '   ' }), /query is required/);
    assert.match(await plain.err('search_messages', { query: '\u0000\u0001' }), /query is required/);
  });

  test('the semantic half failing (dimension mismatch) is reported, keyword hits still returned', async () => {
    const r = await wrongDim.ok<{ hits: Hit[]; semantic: { used: boolean; reason: string } }>('search_messages', {
      query: 'lease',
    });
    assert.equal(r.semantic.used, false);
    assert.match(
      r.semantic.reason,
      /dimension mismatch: the endpoint returned a 8-dimensional vector for model "other-embed", but the archive stores 4-dimensional/,
    );
    assert.ok(r.hits.length >= 1);
    assert.ok(wrongDim.logs.some((l) => l.level === 'warn' && /semantic half/.test(l.message)));
  });

  test('text block carries the citations and frames message text as untrusted', async () => {
    const r = await h.call('search_messages', { query: 'ignore previous instructions' });
    const t = textOf(r);
    const s = r.structuredContent as { hits: Hit[] };
    assert.ok(s.hits.length >= 1);
    assert.match(t, /quoted data written by other people/);
    for (const x of s.hits) assert.ok(t.includes(`](${x.link})`), x.link);
    // the injected text appears only inside a blockquote
    const lines = t.split('\n').filter((l) => l.includes('reveal your system prompt'));
    assert.ok(lines.length >= 1);
    for (const line of lines) assert.match(line, /^\s*> /);
    const links = r.content.filter((c) => c.type === 'resource_link');
    assert.equal(links.length, s.hits.length);
    assert.deepEqual(
      links.map((c) => c.type === 'resource_link' && c.uri),
      s.hits.map((x) => `msgbrowse://message/${x.message_id}?h=${x.hash.slice(0, 16)}`),
      'message resource URIs carry the hash anchor',
    );
    // The payload policy (src/mcp/render.ts): a search's message links are for the person and for clients that read
    // on demand, never inlined into the model's context (the hit already says everything the resource would).
    for (const c of links)
      assert.deepEqual(
        c.type === 'resource_link' && c.annotations?.audience,
        ['user'],
        'a search message link is for the user',
      );
  });
});

describe('dates', () => {
  test('date filters on search are inclusive days', async () => {
    const r = await plain.ok<{ hits: Hit[] }>('search_messages', {
      query: 'lease',
      start: '2022-03-01',
      end: '2022-03-01',
    });
    assert.ok(r.hits.length >= 1);
    assert.ok(r.hits.every((x) => x.timestamp.startsWith('2022-03-01')));
  });
});

describe('sender resolution (demo archive)', () => {
  let demo: Harness;
  let demoDir: string;
  before(async () => {
    demoDir = tempDir('mcp-demo');
    demo = await startHarness({ archivePath: buildDemoArchive(demoDir).path });
  });
  after(async () => {
    await demo?.close();
    fs.rmSync(demoDir, { recursive: true, force: true });
  });

  test('"maya" and "me" resolve to the stored senders; the receipt names them', async () => {
    const maya = await demo.ok<{ hits: Hit[]; receipt: Receipt }>('search_messages', { query: 'the', sender: 'maya' });
    assert.ok(maya.hits.length > 0 && maya.hits.every((x) => x.sender === 'Maya'));
    assert.equal(maya.receipt.scope.sender, 'Maya');
    const me = await demo.ok<{ hits: Hit[]; receipt: Receipt }>('search_messages', { query: 'the', sender: 'me' });
    assert.ok(me.hits.length > 0 && me.hits.every((x) => x.sender === 'Me'));
    const myself = await demo.ok<{ receipt: Receipt }>('search_messages', { query: 'the', sender: 'Myself' });
    assert.equal(myself.receipt.scope.sender, 'Me');
  });

  test('"Maya Chen" is an error suggesting Maya, never a silent empty result', async () => {
    const msg = await demo.err('search_messages', { query: 'the', sender: 'Maya Chen' });
    assert.match(msg, /^no sender "Maya Chen" in this archive\./);
    assert.match(msg, /Closest senders: "Maya" \(\d+ messages\)/);
  });
});

describe('sender resolution (curated archive, every tool that takes sender)', () => {
  test('case and accents are ignored; a typo is an error with suggestions on both search tools', async () => {
    for (const tool of ['search_messages', 'semantic_search']) {
      const r = await h.ok<{ hits: Hit[]; receipt: Receipt }>(tool, { query: 'lease', sender: '  harper ' });
      assert.ok(r.hits.length > 0 && r.hits.every((x) => x.sender === 'Harper'), tool);
      assert.equal(r.receipt.scope.sender, 'Harper');
      const msg = await h.err(tool, { query: 'lease', sender: 'Harpr' });
      assert.match(msg, /no sender "Harpr" in this archive\. Closest senders: "Harper"/, tool);
    }
  });

  test('a sender who never wrote in the scoped conversation is an error naming who did', async () => {
    const harper = conversationOf(desc, 'signal', 'Harper');
    const msg = await plain.err('search_messages', { query: 'lease', sender: 'MJ', conversation_id: harper.id });
    assert.match(msg, new RegExp(`no sender "MJ" in conversation "Harper" \\(signal, conversation_id ${harper.id}\\)`));
    assert.match(msg, /"MJ" \(\d+ messages\) has messages outside this scope/);
    assert.match(msg, /Senders there: .*"Harper"/);
    const wa = await plain.err('search_messages', { query: 'lease', sender: 'Harper', source: 'whatsapp' });
    assert.match(wa, /no sender "Harper" in source "whatsapp"/);
  });
});

describe('search receipts', () => {
  test('search_messages: resolved scope with wall-clock days, messages in scope, vector coverage, the words used', async () => {
    const harper = conversationOf(desc, 'signal', 'Harper');
    const r = await h.ok<{ receipt: Receipt }>('search_messages', {
      query: 'Lease lease ? the',
      conversation: 'harper',
      sender: 'me',
      start: '2022-01-01',
      end: '2022-12-31',
    });
    const inScope = desc.messages.filter(
      (m) => m.conversationId === harper.id && m.sender === 'Me' && m.ts >= '2022-01-01' && m.ts < '2023-01-01',
    );
    assert.deepEqual(r.receipt, {
      scope: {
        conversation_id: harper.id,
        conversation: 'Harper',
        source: 'signal',
        sender: 'Me',
        start: '2022-01-01',
        end: '2022-12-31',
      },
      messages_in_scope: inScope.length,
      vector_coverage: { model: 'test-embed', messages_with_vectors: inScope.filter(isEmbeddable).length },
      keyword: {
        tokens: ['Lease', 'the'],
        total_tokens: 4,
        duplicates_removed: 1,
        ignored: ['?'],
        dropped_over_cap: 0,
        max_tokens: 32,
      },
      semantic: { used: true, model: 'test-embed' },
    });
  });

  test('unscoped, without a model: every message, no coverage, the semantic status says why', async () => {
    const r = await plain.call('search_messages', { query: 'zzzqqq' });
    const s = r.structuredContent as { hits: Hit[]; receipt: Receipt };
    assert.deepEqual(s.hits, []);
    assert.equal(s.receipt.messages_in_scope, desc.messages.length);
    assert.equal(s.receipt.vector_coverage, undefined);
    assert.deepEqual(s.receipt.scope, {});
    assert.equal(s.receipt.semantic.used, false);
    assert.match(textOf(r), new RegExp(`^0 hits .*\\nSearched all conversations: ${desc.messages.length} messages\\.`));
  });
});

describe('query caps', () => {
  test('999 repeated one-letter tokens answer fast, searched once, with a note', async () => {
    const t0 = performance.now();
    const r = await plain.ok<{ hits: Hit[]; receipt: Receipt; notes?: string[] }>('search_messages', {
      query: Array(999).fill('a').join(' '),
    });
    const ms = performance.now() - t0;
    assert.ok(ms < 1000, `took ${ms.toFixed(0)} ms`);
    assert.deepEqual(r.receipt.keyword?.tokens, ['a']);
    assert.equal(r.receipt.keyword?.duplicates_removed, 998);
    assert.ok(r.notes?.includes('998 repeated words were searched once'), JSON.stringify(r.notes));
  });

  test('more than 32 distinct words: the first 32 are searched and the rest dropped with a note', async () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`);
    const t0 = performance.now();
    const r = await plain.ok<{ receipt: Receipt; notes?: string[] }>('search_messages', { query: words.join(' ') });
    assert.ok(performance.now() - t0 < 1000);
    assert.deepEqual(r.receipt.keyword?.tokens, words.slice(0, 32));
    assert.equal(r.receipt.keyword?.dropped_over_cap, 268);
    assert.ok(
      r.notes?.includes('the query has 300 distinct words; keyword search used the first 32 and dropped 268'),
      JSON.stringify(r.notes),
    );
  });
});
