/**
 * Every tool's answer fits the answer budget a client passes inline (VS Code: 8 KiB) on a real-size archive (400
 * conversations over ten years, 5% long messages, facts, a digest), and walking its pages by cursor gives the whole
 * answer: the same items in the same order, none twice, none lost, every message with its citation.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { answerBytes } from '../../src/mcp/answer-budget';
import { ArchiveWriter, buildScaleArchive, embedText, openWritable, putDigest, putFact, writeJournalDays, type ScaleArchiveDescription } from '../fixtures/index';
import { startEmbedServer, type TestEmbedServer } from '../embed/test-server';
import { startHarness, tempDir, type Harness } from './harness';

const MODEL = 'test-embed';
const BUDGETS = [2048, 8192, 16384];
const WHOLE = 1 << 22;

let dir: string;
let desc: ScaleArchiveDescription;
let embed: TestEmbedServer;
const harness = new Map<number, Harness>();
let facts: { contactId: number; count: number };
let busy: { conversationId: number; day: string; longMessage: number };

type Json = Record<string, unknown>;

/** The items of a paged answer (years[].messages flattened for on_this_day). */
function itemsOf(tool: string, s: Json): unknown[] {
  const field = { list_conversations: 'conversations', list_media: 'media', list_links: 'links', search_contacts: 'contacts', get_contact: 'facts' }[tool] ?? (tool.endsWith('search') || tool === 'search_messages' ? 'hits' : 'messages');
  if (tool === 'on_this_day') return (s.years as { year: number; messages: unknown[] }[]).flatMap((y) => y.messages.map((m) => ({ year: y.year, m })));
  return s[field] as unknown[];
}

/** An item as a key (a message by its hash) and the text it shows without the shortening marker. */
function keyOf(item: unknown): { key: string; text?: string } {
  const o = item as Json;
  const m = (o.m ?? o.message ?? o) as Json | null;
  if (m && typeof m.hash === 'string') return { key: `${String(o.fact ?? '')}${m.hash}`, text: String(m.text).replace(/ … \[shortened\]$/, '') };
  return { key: JSON.stringify(o) };
}

/** Every message item anywhere in an answer keeps what a citation needs. */
function assertCitable(s: unknown, where: string): number {
  let n = 0;
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Json;
      if ('text' in o && 'hash' in o) {
        n++;
        assert.equal(typeof o.message_id, 'number', where);
        assert.match(String(o.hash), /^[0-9a-f]{64}$/, where);
        assert.equal(typeof o.conversation_id, 'number', where);
        assert.match(String(o.link), /^vscode:\/\/msgbrowse\.msgbrowse-vscode\/c\/\d+\/at\/\d+\?h=[0-9a-f]{16}$/, where);
        if (o.text_length !== undefined) assert.ok(String(o.text).endsWith('… [shortened]') && Number(o.text_length) > [...String(o.text)].length - 14, where);
      }
      Object.values(o).forEach(walk);
    }
  };
  walk(s);
  return n;
}

/** Follows next_cursor to the end: each page within `budget`, citable; returns the pages' items in order. */
async function walk(h: Harness, budget: number, tool: string, args: Json, maxPages = 400): Promise<{ items: unknown[]; pages: number }> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const s = await h.ok<Json>(tool, cursor === undefined ? args : { ...args, cursor });
    const where = `${tool} ${JSON.stringify(args)} page ${pages + 1} at ${budget}`;
    assert.ok(answerBytes(s) <= budget, `${where}: ${answerBytes(s)} bytes`);
    assertCitable(s, where);
    items.push(...itemsOf(tool, s));
    cursor = s.next_cursor as string | undefined;
    if (cursor !== undefined) assert.ok(itemsOf(tool, s).length > 0, `${where}: a page with a cursor and nothing on it`);
    pages++;
  } while (cursor !== undefined && pages < maxPages);
  assert.equal(cursor, undefined, `${tool}: more than ${maxPages} pages`);
  return { items, pages };
}

before(async () => {
  dir = tempDir('answer-budget');
  desc = buildScaleArchive(`${dir}/msgbrowse.sqlite`, { messages: 20_000, conversations: 400, dim: 8, model: MODEL, longMessages: 0.05, progress: false });
  const db = openWritable(desc.path);
  try {
    // Facts citing long messages for one person, a digest for the busiest day, and journal days.
    const ro = (sql: string, ...p: unknown[]) => db.prepare(sql).get(...p) as Json;
    const conv = ro('SELECT c.id, c.contact_id FROM conversations c JOIN messages m ON m.conversation_id = c.id GROUP BY c.id HAVING COUNT(*) BETWEEN 120 AND 200 ORDER BY c.id LIMIT 1');
    const long = db.prepare(`SELECT hash, ts, ts_unix, source FROM messages WHERE conversation_id = ? AND is_system = 0 ORDER BY length(body) DESC LIMIT 40`).all(conv.id) as Json[];
    long.forEach((m, i) => putFact(db, Number(conv.contact_id), { fact: `fact number ${i}: ${'a detail worth remembering '.repeat(1 + (i % 5))}`, category: 'misc', source: String(m.source), sourceMessageHash: String(m.hash), sourceTs: String(m.ts), sourceTsUnix: Number(m.ts_unix) }));
    facts = { contactId: Number(conv.contact_id), count: long.length };
    writeJournalDays(db);
    const day = String(ro(`SELECT date(ts_unix, 'unixepoch') AS d FROM messages GROUP BY d ORDER BY COUNT(*) DESC LIMIT 1`).d);
    putDigest(db, day, { summary: 'A long day. '.repeat(60), mood: 'upbeat', people: ['Alex'], themes: ['plans'], highlights: [{ text: 'the plan', time: '09:00' }], messageCount: 1 });
    const longest = Number(ro('SELECT id FROM messages WHERE length(body) BETWEEN 4000 AND 6000 ORDER BY id LIMIT 1').id);
    busy = { conversationId: Number(conv.id), day, longMessage: longest };
  } finally {
    db.close();
  }
  embed = await startEmbedServer((req) => ({ body: { data: (JSON.parse(req.body).input as string[]).map((t, index) => ({ index, embedding: embedText(t, 8, MODEL) })) } }));
  for (const budget of [...BUDGETS, WHOLE]) harness.set(budget, await startHarness({ archivePath: desc.path, embed: { baseUrl: embed.baseUrl, model: MODEL }, answerBudget: budget }));
});

after(async () => {
  for (const h of harness.values()) await h.close();
  await embed?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const calls = (): [string, Json][] => [
  ['list_conversations', {}],
  ['list_conversations', { source: 'whatsapp' }],
  ['get_conversation', { conversation_id: busy.conversationId }],
  ['get_conversation', { conversation_id: busy.conversationId, order: 'newest', limit: 500 }],
  ['search_messages', { query: desc.sampleWords.frequent[0] }],
  ['search_messages', { query: desc.sampleWords.frequent[1], limit: 50 }],
  ['semantic_search', { query: desc.sampleWords.medium[0], k: 60 }],
  ['get_journal_day', { day: busy.day, limit: 500 }],
  ['on_this_day', { date: busy.day, per_year: 10, limit: 50 }],
  ['list_links', { limit: 300 }],
  ['list_media', { limit: 300 }],
  ['search_contacts', { query: 'a' }],
  ['get_contact', { contact_id: facts.contactId }],
];

describe('every answer fits the budget, and its pages add up to the whole', () => {
  for (const budget of BUDGETS) {
    it(`at ${budget} bytes`, async () => {
      const h = harness.get(budget)!;
      for (const [tool, args] of calls()) {
        const whole = await walk(harness.get(WHOLE)!, WHOLE, tool, args);
        const paged = await walk(h, budget, tool, args);
        assert.ok(whole.items.length > 3, `${tool} ${JSON.stringify(args)}: the fixture gives it only ${whole.items.length} items`);
        // The same items in the same order; a message a small page could not hold whole shows a prefix of its text.
        const got = paged.items.map(keyOf);
        const want = whole.items.map(keyOf);
        assert.deepEqual(got.map((x) => x.key), want.map((x) => x.key), `${tool} ${JSON.stringify(args)}: the pages at ${budget} are not the whole answer`);
        got.forEach((x, i) => assert.ok(want[i].text === undefined || want[i].text!.startsWith(x.text!), `${tool}: item ${i} text is not the whole one's`));
        if (budget >= 8192) assert.equal(got.filter((x, i) => x.text !== want[i].text).length, 0, `${tool}: items cut further at ${budget}`);
        assert.equal(new Set(got.map((x) => x.key)).size, got.length, `${tool}: an item twice`);
        if (budget <= 8192 && tool !== 'get_contact') assert.ok(paged.pages > 1, `${tool} ${JSON.stringify(args)}: one page at ${budget} bytes proves nothing`);
      }
    });
  }

  it('get_context stays centred on the target, shows it whole when it fits, and its outward cursors continue the window', async () => {
    for (const budget of BUDGETS) {
      const h = harness.get(budget)!;
      const s = await h.ok<Json>('get_context', { message_id: busy.longMessage, window: 50 });
      assert.ok(answerBytes(s) <= budget, `${answerBytes(s)} > ${budget}`);
      const msgs = s.messages as { message_id: number; text: string; text_length?: number }[];
      const whole = (await harness.get(WHOLE)!.ok<Json>('get_context', { message_id: busy.longMessage, window: 50 })).messages as { message_id: number }[];
      const at = whole.findIndex((m) => m.message_id === busy.longMessage);
      const first = whole.findIndex((m) => m.message_id === msgs[0].message_id);
      const last = first + msgs.length - 1;
      assert.deepEqual(msgs.map((m) => m.message_id), whole.slice(first, last + 1).map((m) => m.message_id), 'contiguous');
      assert.ok(Math.abs(at - first - (last - at)) <= 1 || first === 0 || last === whole.length - 1, `centred: ${first}..${at}..${last}`);
      const target = msgs.find((m) => m.message_id === busy.longMessage)!;
      if (budget === 2048) assert.match((s.notes as string[]).join(' '), /whole text is the resource msgbrowse:\/\/message\/\d+\?h=[0-9a-f]{16}/);
      else assert.equal(target.text_length, undefined, `the target is whole at ${budget}`);
      if (first > 0) {
        const before = await h.ok<Json>('get_conversation', { cursor: s.earlier_cursor });
        assert.equal((before.messages as { message_id: number }[])[0].message_id, whole[first - 1].message_id, 'earlier_cursor reads on backwards');
      } else assert.equal(s.earlier_cursor, undefined);
      if (last < whole.length - 1) {
        const next = await h.ok<Json>('get_conversation', { cursor: s.later_cursor });
        assert.equal((next.messages as { message_id: number }[])[0].message_id, whole[last + 1].message_id, 'later_cursor reads on');
      } else assert.equal(s.later_cursor, undefined);
    }
  });

  it('long bodies are shortened in lists, marked, with their length; get_context window 0 reads one whole', async () => {
    const h = harness.get(8192)!;
    const page = await h.ok<{ messages: { message_id: number; text: string; text_length?: number }[] }>('get_conversation', { conversation_id: busy.conversationId, limit: 500 });
    const all = (await walk(h, 8192, 'get_conversation', { conversation_id: busy.conversationId })).items as { message_id: number; text_length?: number }[];
    const cut = all.find((m) => m.text_length !== undefined);
    assert.ok(cut, 'the conversation has a long message');
    assert.ok(page.messages.every((m) => [...m.text].length <= 1000 + 14));
    const whole = await h.ok<{ messages: { text: string; text_length?: number }[] }>('get_context', { message_id: cut.message_id, window: 0 });
    assert.equal(whole.messages[0].text_length, undefined);
    assert.equal([...whole.messages[0].text].length, cut.text_length);
  });

  it('a cursor of other arguments, or a damaged one, is an actionable error; an archive changed between pages is said', async () => {
    const h = harness.get(8192)!;
    const q = desc.sampleWords.frequent[0];
    const first = await h.ok<Json>('search_messages', { query: q, limit: 60 });
    assert.match(await h.err('search_messages', { query: `${q} x`, limit: 60, cursor: first.next_cursor }), /belongs to a search_messages call with other arguments: repeat the arguments/);
    assert.match(await h.err('search_messages', { query: q, limit: 60, cursor: 'garbage!' }), /cursor is not valid: pass the next_cursor of a previous search_messages result unchanged/);
    assert.match(await h.err('list_media', { limit: 60, cursor: first.next_cursor }), /cursor is not valid: pass the next_cursor of a previous list_media/);
    // msgbrowse re-imports the conversation of the last hit shown (new ids): the next page says so and repeats nothing.
    const shown = itemsOf('search_messages', first) as { hash: string; conversation_id: number }[];
    const last = shown[shown.length - 1];
    const db = openWritable(desc.path);
    const conv = db.prepare('SELECT source, name FROM conversations WHERE id = ?').get(last.conversation_id) as { source: string; name: string };
    const rows = db.prepare('SELECT ts, sender, body, is_system, seq FROM messages WHERE conversation_id = ? ORDER BY id').all(last.conversation_id) as { ts: string; sender: string; body: string; is_system: number; seq: number }[];
    new ArchiveWriter(db).importConversation(conv.source, conv.name, rows.map((r) => ({ ts: r.ts, sender: r.sender, body: r.body, isSystem: r.is_system === 1, seq: r.seq })));
    db.close();
    const second = await h.ok<Json>('search_messages', { query: q, limit: 60, cursor: first.next_cursor });
    assert.match((second.notes as string[]).join(' '), /the archive changed since the previous page; continuing after the last hit shown — hits may repeat or be missing; omit cursor to start over/);
    const whole = itemsOf('search_messages', await harness.get(WHOLE)!.ok<Json>('search_messages', { query: q, limit: 60 })) as { hash: string }[];
    const next = itemsOf('search_messages', second) as { hash: string }[];
    assert.deepEqual(next.map((x) => x.hash), whole.slice(whole.findIndex((x) => x.hash === last.hash) + 1).slice(0, next.length).map((x) => x.hash), 'the page resumes right after the last hit shown, wherever it went');
  });
});
