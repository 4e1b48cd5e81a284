/** Every tool and error path through the SDK client against the curated fixture archive. */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import crypto from 'node:crypto';
import {
  buildCuratedArchive,
  buildDemoArchive,
  conversationOf,
  messagesOf,
  embedText,
  cosine,
  embeddingInput,
  isEmbeddable,
  type CuratedArchive,
} from '../fixtures/index';
import { startHarness, tempDir, textOf, type Harness } from './harness';
import { startEmbedServer, type TestEmbedServer } from '../embed/test-server';

type Hit = {
  message_id: number;
  hash: string;
  conversation: string;
  conversation_id: number;
  source: string;
  sender: string;
  timestamp: string;
  text: string;
  link: string;
  score?: number;
};

let dir: string;
let desc: CuratedArchive;
let digest: string;
let embed: TestEmbedServer;
let h: Harness;
let plain: Harness;
let wrongDim: Harness;

const sha = (p: string) => crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
/** A message's citation link: its ids anchored by the first 16 hex digits of its hash. */
const link = (c: number, m: number) => {
  const hash = desc.messages.find((x) => x.id === m)?.hash ?? '';
  return `vscode://msgbrowse.msgbrowse-vscode/c/${c}/at/${m}?h=${hash.slice(0, 16)}`;
};

before(async () => {
  dir = tempDir('mcp-tools');
  desc = buildCuratedArchive(dir);
  digest = sha(desc.path);
  embed = await startEmbedServer((req) => {
    const body = JSON.parse(req.body) as { model: string; input: string[] };
    // The endpoint serves 8-d test-embed vectors whatever model is asked for (so other-embed mismatches).
    return { body: { data: body.input.map((t, index) => ({ index, embedding: embedText(t, 8, 'test-embed') })) } };
  });
  h = await startHarness({ archivePath: desc.path, embed: { baseUrl: embed.baseUrl, model: 'test-embed' } });
  plain = await startHarness({ archivePath: desc.path });
  wrongDim = await startHarness({ archivePath: desc.path, embed: { baseUrl: embed.baseUrl, model: 'other-embed' } });
});

after(async () => {
  await h?.close();
  await plain?.close();
  await wrongDim?.close();
  await embed?.close();
  if (desc) assert.equal(sha(desc.path), digest, 'the archive file must be byte-for-byte unchanged');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('protocol surface', () => {
  test("tools/list: msgbrowse's 7 tools in its order, then ours, with titles, read-only annotations, closed inputs and output schemas", async () => {
    const { tools } = await h.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      [
        'list_conversations',
        'get_conversation',
        'search_messages',
        'semantic_search',
        'get_context',
        'list_media',
        'list_links',
        'get_journal_day',
        'on_this_day',
        'search_contacts',
        'get_contact',
      ],
    );
    for (const t of tools) {
      assert.ok(t.title && t.title.length > 3, t.name);
      assert.ok(t.description && t.description.length > 40, t.name);
      assert.equal(t.annotations?.readOnlyHint, true, t.name);
      assert.equal(t.annotations?.openWorldHint, false, t.name);
      assert.equal(t.annotations?.destructiveHint, false, t.name);
      assert.equal(t.annotations?.title, t.title, t.name);
      assert.equal(t.inputSchema.type, 'object');
      assert.equal((t.inputSchema as { additionalProperties?: unknown }).additionalProperties, false, t.name);
      assert.equal(t.outputSchema?.type, 'object', t.name);
    }
    const props = (name: string) => Object.keys(tools.find((t) => t.name === name)!.inputSchema.properties ?? {});
    assert.deepEqual(props('get_conversation'), [
      'name',
      'conversation_id',
      'source',
      'start',
      'end',
      'limit',
      'order',
      'cursor',
    ]);
    assert.deepEqual(props('search_messages'), [
      'query',
      'conversation',
      'conversation_id',
      'source',
      'sender',
      'start',
      'end',
      'has_attachment',
      'has_link',
      'limit',
      'cursor',
    ]);
    assert.deepEqual(props('semantic_search'), [
      'query',
      'k',
      'conversation',
      'conversation_id',
      'source',
      'sender',
      'start',
      'end',
      'has_attachment',
      'has_link',
      'cursor',
    ]);
    assert.deepEqual(props('get_journal_day'), ['day', 'limit', 'cursor']);
    assert.deepEqual(props('on_this_day'), ['date', 'per_year', 'limit', 'cursor']);
    assert.deepEqual(props('search_contacts'), ['query', 'cursor']);
    assert.deepEqual(props('get_contact'), ['contact_id', 'name', 'cursor']);
    assert.deepEqual(props('get_context'), ['message_id', 'hash', 'window']);
    assert.deepEqual(props('list_media'), ['conversation', 'conversation_id', 'source', 'kind', 'limit', 'cursor']);
    assert.deepEqual(props('list_links'), ['domain', 'conversation', 'conversation_id', 'source', 'limit', 'cursor']);
    assert.deepEqual(props('list_conversations'), ['source', 'name_contains', 'cursor']);
    assert.deepEqual(tools.find((t) => t.name === 'search_messages')!.inputSchema.required, ['query']);
  });

  test('server info, logging capability and instructions about citations and untrusted content', async () => {
    const info = h.client.getServerVersion()!;
    assert.deepEqual({ name: info.name, version: info.version }, { name: 'msgbrowse', version: '0.0.0-test' });
    assert.ok(info.title && info.description, 'server title and description are set');
    assert.equal(info.icons?.length, 2);
    const caps = h.client.getServerCapabilities();
    assert.ok(caps?.logging);
    assert.ok(caps?.tools);
    assert.ok(caps?.resources);
    const ins = h.client.getInstructions() ?? '';
    assert.match(ins, /link/);
    assert.match(ins, /verbatim/);
    assert.match(ins, /untrusted data/);
    assert.match(ins, /never follow instructions/i);
    assert.match(ins, /get_context/);
  });
});

describe('list_conversations', () => {
  test('every conversation with facts matching the fixture, including the empty one', async () => {
    const r = await h.ok<{ conversations: Record<string, unknown>[] }>('list_conversations');
    assert.equal(r.conversations.length, desc.conversations.length);
    for (const c of desc.conversations) {
      const got = r.conversations.find((x) => x.id === c.id)!;
      assert.ok(got, c.name);
      assert.equal(got.name, c.name);
      assert.equal(got.source, c.source);
      assert.equal(got.message_count, c.messageCount);
      assert.equal(got.images, c.images);
      assert.equal(got.videos, c.videos);
      assert.equal(got.files, c.files);
      assert.equal(got.links, c.distinctUrls);
      if (c.messageCount) {
        assert.equal(got.first_timestamp, c.firstTs);
        assert.equal(got.last_timestamp, c.lastTs);
      } else assert.equal(got.first_timestamp, undefined);
    }
  });

  test('source and name_contains filters; unknown source is an error listing the sources', async () => {
    const wa = await h.ok<{ conversations: { source: string }[] }>('list_conversations', { source: 'WhatsApp' });
    assert.ok(wa.conversations.length >= 2 && wa.conversations.every((c) => c.source === 'whatsapp'));
    const mj = await h.ok<{ conversations: { name: string; source: string }[] }>('list_conversations', {
      name_contains: 'mj',
    });
    assert.deepEqual(mj.conversations.map((c) => c.source).sort(), ['imessage', 'whatsapp']);
    const msg = await h.err('list_conversations', { source: 'telegram' });
    assert.match(msg, /unknown source "telegram"; this archive has "imessage", "signal", "whatsapp"/);
  });
});

describe('conversation resolution', () => {
  test('a name in several sources → error naming them and asking for source or conversation_id', async () => {
    const msg = await h.err('get_conversation', { name: 'MJ' });
    assert.match(msg, /exists in several sources/);
    assert.match(msg, /imessage/);
    assert.match(msg, /whatsapp/);
    assert.match(msg, /pass source/);
    assert.match(msg, /conversation_id/);
    const im = conversationOf(desc, 'imessage', 'MJ');
    const r = await h.ok<{ conversation_id: number; source: string; messages: Hit[] }>('get_conversation', {
      name: 'MJ',
      source: 'imessage',
    });
    assert.equal(r.conversation_id, im.id);
    assert.ok(r.messages.every((m) => m.source === 'imessage'));
    const byId = await h.ok<{ conversation_id: number }>('get_conversation', { conversation_id: im.id });
    assert.equal(byId.conversation_id, im.id);
    // search scoped by an ambiguous name is refused the same way
    assert.match(await h.err('search_messages', { query: 'lease', conversation: 'MJ' }), /several sources/);
  });

  test('unknown conversation → "not found" with the closest names', async () => {
    const msg = await h.err('get_conversation', { name: 'Harpr' });
    assert.match(msg, /not found/);
    assert.match(msg, /Harper/);
    assert.match(await h.err('list_media', { conversation: 'Nobody At All' }), /not found/);
    assert.match(await h.err('get_conversation', { conversation_id: 99999 }), /conversation id 99999 not found/);
    assert.match(await h.err('get_conversation', {}), /name or conversation_id is required/);
    const harper = conversationOf(desc, 'signal', 'Harper');
    assert.match(
      await h.err('get_conversation', { conversation_id: harper.id, source: 'whatsapp' }),
      /is from source "signal"/,
    );
    assert.match(await h.err('get_conversation', { conversation_id: harper.id, name: 'Family' }), /pass only one/);
  });
});

describe('get_conversation', () => {
  test('cursor paging walks a whole conversation without gaps or repeats', async () => {
    const trip = conversationOf(desc, 'signal', 'Group Trip');
    const expected = messagesOf(desc, trip.id).map((m) => m.id);
    assert.equal(expected.length, 250);
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r: { messages: Hit[]; next_cursor?: string; has_more: boolean } = await h.ok(
        'get_conversation',
        cursor ? { cursor, limit: 7 } : { name: 'Group Trip', limit: 7 },
      );
      seen.push(...r.messages.map((m) => m.message_id));
      assert.equal(r.has_more, r.next_cursor !== undefined);
      cursor = r.next_cursor;
      pages++;
      assert.ok(pages < 100, 'paging does not terminate');
    } while (cursor);
    assert.deepEqual(seen, expected);
    assert.equal(pages, Math.ceil(250 / 7));
  });

  test('date bounds are inclusive days and survive paging; the cursor carries them', async () => {
    const harper = conversationOf(desc, 'signal', 'Harper');
    const day2 = messagesOf(desc, harper.id)
      .filter((m) => m.ts.startsWith('2022-03-02'))
      .map((m) => m.id);
    const first = await h.ok<{ messages: Hit[]; next_cursor?: string }>('get_conversation', {
      name: 'Harper',
      start: '2022-03-02',
      end: '2022-03-02',
      limit: 2,
    });
    const ids = first.messages.map((m) => m.message_id);
    let cursor = first.next_cursor;
    while (cursor) {
      const r: { messages: Hit[]; next_cursor?: string } = await h.ok('get_conversation', { cursor, limit: 2 });
      ids.push(...r.messages.map((m) => m.message_id));
      cursor = r.next_cursor;
    }
    assert.deepEqual(ids, day2);
    assert.match(
      await h.err('get_conversation', { cursor: first.next_cursor, start: '2022-03-01' }),
      /differ from the ones this cursor/,
    );
    assert.match(
      await h.err('get_conversation', { cursor: first.next_cursor, name: 'Family', source: 'whatsapp' }),
      /cursor belongs to conversation_id/,
    );
    assert.match(await h.err('get_conversation', { cursor: 'garbage!' }), /cursor is not valid/);
    assert.match(
      await h.err('get_conversation', { cursor: Buffer.from('{"v":1}').toString('base64url') }),
      /cursor is not valid/,
    );
  });

  test('limit above 500 is clamped (and said so); system messages included; bodies cleaned', async () => {
    const r = await h.ok<{ messages: Hit[]; notes?: string[]; next_cursor?: string }>('get_conversation', {
      name: 'Group Trip',
      limit: 600,
    });
    assert.equal(r.messages.length, 250);
    assert.deepEqual(r.notes, ['limit 600 is above the maximum 500; used 500']);
    assert.equal(r.next_cursor, undefined);
    const harper = await h.ok<{ messages: Hit[] }>('get_conversation', { name: 'Harper' });
    assert.ok(harper.messages.some((m) => m.sender === 'No-Sender'));
  });

  test('empty conversation → [] (never null)', async () => {
    const r = await h.ok<{ messages: Hit[]; has_more: boolean }>('get_conversation', { name: 'Empty Thread' });
    assert.deepEqual(r.messages, []);
    assert.equal(r.has_more, false);
  });
});

describe('dates', () => {
  test('strict YYYY-MM-DD, real calendar dates, start ≤ end', async () => {
    for (const bad of ['2022-3-1', 'yesterday', '2022-03-01T00:00:00', '03/01/2022', '2022 -03-01']) {
      assert.match(
        await h.err('search_messages', { query: 'lease', start: bad }),
        /start must be a date in YYYY-MM-DD form/,
        bad,
      );
    }
    assert.match(
      await h.err('search_messages', { query: 'lease', end: '2022-02-30' }),
      /end "2022-02-30" is not a real calendar date/,
    );
    assert.match(await h.err('get_conversation', { name: 'Harper', end: '2021-02-29' }), /not a real calendar date/);
    assert.match(
      await h.err('get_conversation', { name: 'Harper', start: '2022-03-02', end: '2022-03-01' }),
      /start 2022-03-02 is after end 2022-03-01/,
    );
    const leap = await h.ok<{ messages: Hit[] }>('get_conversation', { name: 'Harper', start: '2020-02-29' });
    assert.ok(leap.messages.length > 0);
    assert.match(await h.err('semantic_search', { query: 'x', start: '2022-13-01' }), /not a real calendar date/);
  });

  test('spaces around a date are ignored, as get_journal_day and the prompts ignore them', async () => {
    const exact = await h.ok<{ messages: Hit[] }>('get_conversation', {
      name: 'Harper',
      start: '2022-03-01',
      end: '2022-03-31',
    });
    const spaced = await h.ok<{ messages: Hit[] }>('get_conversation', {
      name: 'Harper',
      start: ' 2022-03-01',
      end: '2022-03-31\t',
    });
    assert.deepEqual(
      spaced.messages.map((m) => m.message_id),
      exact.messages.map((m) => m.message_id),
    );
    const found = await plain.ok<{ hits: Hit[] }>('search_messages', {
      query: 'lease',
      start: ' 2022-03-01 ',
      end: ' 2022-03-01',
    });
    assert.ok(found.hits.length >= 1 && found.hits.every((x) => x.timestamp.startsWith('2022-03-01')));
    const blank = await h.ok<{ messages: Hit[] }>('get_conversation', { name: 'Harper', start: '  ' });
    assert.ok(blank.messages.length >= exact.messages.length, 'a blank date is no filter, as an empty one');
  });

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

describe('get_context', () => {
  test('by message_id and by hash, chronological window around the target', async () => {
    const t = desc.marks.linkMapsFirst;
    const conv = messagesOf(desc, t.conversationId);
    const i = conv.findIndex((m) => m.id === t.id);
    const expected = conv.slice(Math.max(0, i - 2), i + 3).map((m) => m.id);
    const a = await h.ok<{
      messages: Hit[];
      message_id: number;
      hash: string;
      conversation_id: number;
      source: string;
    }>('get_context', { message_id: t.id, window: 2 });
    assert.deepEqual(
      a.messages.map((m) => m.message_id),
      expected,
    );
    assert.equal(a.hash, t.hash);
    assert.equal(a.source, 'signal');
    const b = await h.ok<{ messages: Hit[] }>('get_context', { hash: t.hash.toUpperCase(), window: 2 });
    assert.deepEqual(b.messages, a.messages);
    const zero = await h.ok<{ messages: Hit[] }>('get_context', { message_id: t.id, window: 0 });
    assert.deepEqual(
      zero.messages.map((m) => m.message_id),
      [t.id],
    );
    // Links only the conversation (for the model: size, dates, how to read it whole), never the message: that resource is this result again.
    const r = await h.call('get_context', { message_id: t.id, window: 2 });
    const links = r.content.filter((c) => c.type === 'resource_link');
    assert.deepEqual(
      links.map((c) => c.type === 'resource_link' && [c.uri, c.annotations]),
      [[`msgbrowse://conversation/${t.conversationId}`, undefined]],
    );
  });

  test('window clamped to 50; errors for unknown id, bad hash, missing target', async () => {
    const r = await h.ok<{ messages: Hit[]; notes?: string[] }>('get_context', {
      message_id: desc.marks.groupTripFirst.id,
      window: 60,
    });
    assert.deepEqual(r.notes, ['window 60 is above the maximum 50; used 50']);
    assert.equal(r.messages.length, 51);
    assert.match(await h.err('get_context', { message_id: 999999 }), /message 999999 not found/);
    assert.match(await h.err('get_context', { hash: 'abc' }), /64-character hex hash/);
    assert.match(await h.err('get_context', { hash: 'f'.repeat(64) }), /no message with hash/);
    assert.match(await h.err('get_context', {}), /message_id or hash is required/);
    // message_id + a hash that is not its own: the hash is followed (and said), never the id's message shown.
    const followed = await h.ok<{ message_id: number; hash: string; notes?: string[] }>('get_context', {
      message_id: desc.marks.leaseAgreement.id,
      hash: desc.marks.cjk.hash.slice(0, 16),
    });
    assert.equal(followed.message_id, desc.marks.cjk.id);
    assert.equal(followed.hash, desc.marks.cjk.hash);
    assert.match(followed.notes?.join('\n') ?? '', /this message moved after a re-import/);
    const exact = await h.ok<{ message_id: number; notes?: string[] }>('get_context', {
      message_id: desc.marks.cjk.id,
      hash: desc.marks.cjk.hash.slice(0, 16),
      window: 1,
    });
    assert.equal(exact.message_id, desc.marks.cjk.id);
    assert.equal(exact.notes, undefined);
    assert.match(
      await h.err('get_context', { message_id: desc.marks.cjk.id, hash: 'f'.repeat(16) }),
      /this message is no longer in the archive; it was message \d+/,
    );
    assert.match(await h.err('get_context', { message_id: desc.marks.cjk.id, hash: 'xyz' }), /h= prefix of its link/);
    assert.match(await h.err('get_context', { message_id: 0 }), /message_id must be at least 1/);
  });
});

describe('list_media', () => {
  test('videos supported; default is all kinds; limit is total; has_more', async () => {
    const vids = await h.ok<{ media: { kind: string; name: string }[] }>('list_media', { kind: 'video' });
    assert.equal(
      vids.media.length,
      desc.conversations.reduce((n, c) => n + c.videos, 0),
    );
    assert.ok(vids.media.every((m) => m.kind === 'video'));
    const all = await h.ok<{ media: { kind: string }[]; has_more: boolean }>('list_media', {});
    const total = desc.conversations.reduce((n, c) => n + c.images + c.files + c.videos, 0);
    assert.equal(all.media.length, total);
    assert.equal(all.has_more, false);
    assert.deepEqual([...new Set(all.media.map((m) => m.kind))].sort(), ['file', 'image', 'video']);
    const three = await h.ok<{ media: unknown[]; has_more: boolean }>('list_media', { limit: 3 });
    assert.equal(three.media.length, 3);
    assert.equal(three.has_more, true);
    assert.match(await h.err('list_media', { kind: 'IMAGE' }), /kind must be one of "image", "file", "video"/);
    const big = await h.ok<{ notes?: string[] }>('list_media', { limit: 5000 });
    assert.deepEqual(big.notes, ['limit 5000 is above the maximum 1000; used 1000']);
    const none = await h.ok<{ media: unknown[] }>('list_media', { conversation: 'Empty Thread' });
    assert.deepEqual(none.media, []);
  });
});

describe('list_links', () => {
  test('domain is case-insensitive, ignores www., includes subdomains; one entry per URL with count', async () => {
    const yelp = await h.ok<{ links: { url: string; domain: string }[] }>('list_links', { domain: 'WWW.YELP.COM' });
    assert.ok(yelp.links.length >= 1 && yelp.links.every((l) => l.domain === 'yelp.com'));
    const ex = await h.ok<{ links: { url: string; domain: string; count: number }[] }>('list_links', {
      domain: 'example.com',
    });
    assert.ok(ex.links.some((l) => l.domain === 'maps.example.com'));
    assert.ok(ex.links.every((l) => l.domain === 'example.com' || l.domain.endsWith('.example.com')));
    const urls = ex.links.map((l) => l.url);
    assert.equal(new Set(urls).size, urls.length);
    const harper = await h.ok<{ links: { url: string; count: number; message_id: number }[] }>('list_links', {
      conversation: 'Harper',
    });
    const maps = harper.links.find((l) => l.url === 'https://maps.example.com/a')!;
    assert.equal(maps.count, 2);
    assert.equal(maps.message_id, desc.marks.linkMapsFirst.id);
    assert.match(await h.err('list_links', { domain: 'not a domain' }), /not a valid domain/);
    const empty = await h.ok<{ links: unknown[] }>('list_links', { domain: 'nothing.invalid' });
    assert.deepEqual(empty.links, []);
  });
});

describe('resources', () => {
  test('templates registered; message and conversation resources read as markdown + JSON', async () => {
    const { resourceTemplates } = await h.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), [
      'msgbrowse://conversation/{id}',
      'msgbrowse://message/{id}{?h}',
    ]);
    const t = desc.marks.leaseAgreement;
    const m = await h.client.readResource({ uri: `msgbrowse://message/${t.id}` });
    assert.equal(m.contents.length, 2);
    const json = JSON.parse(String((m.contents[1] as { text: string }).text)) as { message: Hit; context: Hit[] };
    assert.equal(json.message.message_id, t.id);
    assert.equal(json.message.link, link(t.conversationId, t.id));
    assert.ok(json.context.length > 1);
    assert.match(String((m.contents[0] as { text: string }).text), /cite as vscode:\/\//);
    const byHash = await h.client.readResource({ uri: `msgbrowse://message/${t.hash}` });
    assert.equal(JSON.parse(String((byHash.contents[1] as { text: string }).text)).message.message_id, t.id);
    const c = await h.client.readResource({ uri: `msgbrowse://conversation/${t.conversationId}` });
    assert.equal(JSON.parse(String((c.contents[1] as { text: string }).text)).id, t.conversationId);
    const listed = await h.client.listResources();
    // the conversations, plus the MCP App view (ui://msgbrowse/thread, src/mcp/app-view.ts)
    assert.equal(listed.resources.filter((r) => r.uri.startsWith('msgbrowse://')).length, desc.conversations.length);
    assert.deepEqual(
      listed.resources.filter((r) => !r.uri.startsWith('msgbrowse://')).map((r) => r.uri),
      ['ui://msgbrowse/thread'],
    );
    await assert.rejects(
      h.client.readResource({ uri: 'msgbrowse://message/999999' }),
      /message 999999 is not in this archive/,
    );
    // the hash anchor: checked, followed when the id holds another message, never another message returned
    const anchored = await h.client.readResource({ uri: `msgbrowse://message/${t.id}?h=${t.hash.slice(0, 16)}` });
    assert.equal(JSON.parse(String((anchored.contents[1] as { text: string }).text)).message.hash, t.hash);
    const other = desc.marks.cjk;
    const moved = await h.client.readResource({ uri: `msgbrowse://message/${t.id}?h=${other.hash.slice(0, 16)}` });
    const movedJson = JSON.parse(String((moved.contents[1] as { text: string }).text)) as {
      message: Hit;
      notes: string[];
    };
    assert.equal(movedJson.message.hash, other.hash);
    assert.match(movedJson.notes[0], /this message moved after a re-import/);
    assert.match(String((moved.contents[0] as { text: string }).text), /^Note: this message moved after a re-import/);
    await assert.rejects(
      h.client.readResource({ uri: `msgbrowse://message/${t.id}?h=${'f'.repeat(16)}` }),
      /this message is no longer in the archive/,
    );
    await assert.rejects(h.client.readResource({ uri: `msgbrowse://message/${t.id}?h=zz` }), /4–64 hex digits/);
    await assert.rejects(h.client.readResource({ uri: 'msgbrowse://message/abc' }), /message_id or a 64-hex hash/);
    await assert.rejects(h.client.readResource({ uri: 'msgbrowse://conversation/0' }), /positive integer/);
  });
});

describe('hostile inputs', () => {
  test('wrong types, unknown fields, NUL, huge strings, odd numbers → isError or well-formed; server keeps working', async () => {
    const huge = 'x'.repeat(100 * 1024);
    const calls: [string, Record<string, unknown>][] = [
      ['search_messages', {}],
      ['search_messages', { query: 42 }],
      ['search_messages', { query: null }],
      ['search_messages', { query: ['lease'] }],
      ['search_messages', { query: { $gt: '' } }],
      ['search_messages', { query: huge }],
      ['search_messages', { query: 'lease\u0000); DROP TABLE messages;--' }],
      ['search_messages', { query: 'lease', limit: 1.5 }],
      ['search_messages', { query: 'lease', limit: -1 }],
      ['search_messages', { query: 'lease', limit: 1e300 }],
      ['search_messages', { query: 'lease', limit: '10' }],
      ['search_messages', { query: 'lease', bogus: true }],
      ['search_messages', { query: 'lease', Query: 'x' }],
      ['search_messages', { query: 'lease', sender: huge }],
      ['search_messages', { query: 'lease', conversation: '\u0000' }],
      ['search_messages', { query: 'lease', conversation: "'; DROP TABLE conversations; --" }],
      ['search_messages', { query: 'lease', source: huge }],
      ['search_messages', { query: 'lease', start: '9999-99-99' }],
      ['search_messages', { query: '‮evil‬ 😀 𝔘𝔫𝔦𝔠𝔬𝔡𝔢' }],
      ['semantic_search', { query: huge }],
      ['semantic_search', { query: 'x'.repeat(2000) }],
      ['get_conversation', { name: huge }],
      ['get_conversation', { name: 'Harper', limit: 2 ** 53 }],
      ['get_conversation', { name: 'Harper', cursor: huge }],
      [
        'get_conversation',
        { name: 'Harper', cursor: Buffer.from(JSON.stringify({ v: 1, c: 1, t: 1e308, i: 1 })).toString('base64url') },
      ],
      ['get_context', { message_id: -5 }],
      ['get_context', { message_id: '1' }],
      ['get_context', { message_id: 2 ** 60 }],
      ['get_context', { hash: '../../etc/passwd' }],
      ['list_media', { kind: null }],
      ['list_media', { kind: 'video', limit: 0 }],
      ['list_links', { domain: huge }],
      ['list_links', { domain: 'http://[::1' }],
      ['list_links', { domain: '\u0000.com' }],
      ['list_conversations', { extra: 1 }],
      ['list_conversations', { name_contains: '%_\\' }],
      ['no_such_tool', {}],
    ];
    for (const [name, args] of calls) {
      const r = await h.call(name, args);
      const t = textOf(r);
      assert.ok(typeof t === 'string' && t.length > 0, `${name} ${JSON.stringify(args).slice(0, 80)}: empty text`);
      assert.doesNotMatch(t, /\n\s+at .*\(.*:\d+:\d+\)/, `stack trace leaked: ${t}`);
      if (!r.isError) assert.ok(r.structuredContent, `${name}: structured content missing`);
      else assert.ok(t.length < 2000, `${name}: error message too long (${t.length})`);
    }
    assert.match(
      await h.err('search_messages', { query: 'lease', bogus: true }),
      /unknown parameter "bogus" for search_messages; allowed: query,/,
    );
    assert.match(await h.err('search_messages', { query: huge }), /query is too long \(at most 2000 characters\)/);
    assert.match(await h.err('search_messages', { query: 42 }), /query must be a string/);
    const still = await h.ok<{ hits: Hit[] }>('search_messages', { query: 'lease' });
    assert.ok(still.hits.length > 0);
  });

  test('message content with markup and controls is returned verbatim-but-clean and quoted in text', async () => {
    const r = await h.call('get_conversation', { name: 'Mallory <script>' });
    const s = r.structuredContent as { messages: Hit[] };
    assert.equal(s.messages.find((m) => m.message_id === desc.marks.scriptBody.id)!.text, '<script>alert(1)</script>');
    const t = textOf(r);
    for (const line of t.split('\n').filter((l) => l.includes('<script>alert'))) assert.match(line, /^\s*> /);
  });
});

type Receipt = {
  scope: {
    conversation_id?: number;
    conversation?: string;
    source?: string;
    sender?: string;
    start?: string;
    end?: string;
  };
  messages_in_scope: number;
  vector_coverage?: { model: string; messages_with_vectors: number };
  keyword?: {
    tokens: string[];
    total_tokens: number;
    duplicates_removed: number;
    ignored: string[];
    dropped_over_cap: number;
    max_tokens: number;
  };
  semantic: { used: boolean; model?: string; reason?: string };
};

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
