/**
 * Every tool's answer fits the answer budget a client passes inline (VS Code: 8 KiB) on a real-size archive (400
 * conversations over ten years, 5% long messages, facts, a long digest) with the outliers real archives have (a
 * message with 60 attachments and 80 reactions, a 3,000-character URL, a person with 150 identifiers), and walking
 * its pages by cursor gives the whole answer: the same items in the same order, none twice, none lost, every
 * message with its citation and any shortened text a true prefix of the stored body, with its true length.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { answerBytes, cutText, shortenHit, shrinkMessage } from '../../src/mcp/answer-budget';
import type { MessageHit } from '../../src/core/results';
import {
  addIdentifier,
  ArchiveWriter,
  buildScaleArchive,
  embedText,
  openWritable,
  putDigest,
  putFact,
  writeJournalDays,
  type ScaleArchiveDescription,
} from '../fixtures/index';
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
let busy: { conversationId: number; day: string; longMessage: number; crowded: number; longUrl: string };
let bodies: Database.Database;

type Json = Record<string, unknown>;

/** The items of a paged answer (years[].messages flattened for on_this_day). */
function itemsOf(tool: string, s: Json): unknown[] {
  const field =
    {
      list_conversations: 'conversations',
      list_media: 'media',
      list_links: 'links',
      search_contacts: 'contacts',
      get_contact: 'facts',
    }[tool] ?? (tool.endsWith('search') || tool === 'search_messages' ? 'hits' : 'messages');
  if (tool === 'on_this_day')
    return (s.years as { year: number; messages: unknown[] }[]).flatMap((y) =>
      y.messages.map((m) => ({ year: y.year, m })),
    );
  return s[field] as unknown[];
}

/** An item as a key (a message by its hash) and the text it shows without the shortening marker. */
function keyOf(item: unknown): { key: string; text?: string } {
  const o = item as Json;
  const m = (o.m ?? o.message ?? o) as Json | null;
  if (m && typeof m.hash === 'string')
    return {
      key: `${String(o.category ?? '')}${String(o.source_ts ?? '')}${m.hash}`,
      text: String(m.text).replace(/ … \[shortened: [\s\S]*$/, ''),
    };
  // Other items by what no shrinking touches (an item larger than a page has its long lists and strings cut).
  return {
    key: [o.id, o.link, o.name, o.kind, o.domain, typeof o.url === 'string' ? o.url.slice(0, 100) : undefined].join(
      '|',
    ),
  };
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
        assert.match(
          String(o.link),
          /^vscode:\/\/msgbrowse\.msgbrowse-vscode\/c\/\d+\/at\/\d+\?h=[0-9a-f]{16}$/,
          where,
        );
        if (o.text_length !== undefined) {
          // The shortened text is the stored body's beginning, and text_length its whole length.
          const body = (bodies.prepare('SELECT body FROM messages WHERE id = ?').get(o.message_id) as { body: string })
            .body;
          const m = /^([\s\S]*) … \[shortened: (\d+) characters; ([^\]]+)\]$/.exec(String(o.text));
          assert.ok(m, `${where}: a shortened text ends with its marker: ${String(o.text).slice(-80)}`);
          assert.ok(body.startsWith(m[1]), `${where}: shortened text is not the body's beginning`);
          assert.equal(Number(m[2]), [...body].length, `${where}: the marker's length`);
          assert.equal(o.text_length, [...body].length, `${where}: text_length`);
          assert.match(
            m[3],
            /get_context with message_id \d+ and window 0 shows it whole|the resource msgbrowse:\/\/message\/\d+\?h=[0-9a-f]{16} holds it whole/,
          );
        }
      }
      Object.values(o).forEach(walk);
    }
  };
  walk(s);
  return n;
}

/** Follows next_cursor to the end: each page within `budget`, citable; returns the pages' items in order. */
async function walk(
  h: Harness,
  budget: number,
  tool: string,
  args: Json,
  maxPages = 400,
): Promise<{ items: unknown[]; pages: number; late: boolean }> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  let pages = 0;
  let late = false;
  do {
    const s = await h.ok<Json>(tool, cursor === undefined ? args : { ...args, cursor });
    // On a loaded machine the semantic half may miss its budget: that page is keyword-only by design, so walk again.
    late ||= (s.semantic as Json | undefined)?.used === false;
    const where = `${tool} ${JSON.stringify(args)} page ${pages + 1} at ${budget}`;
    assert.ok(answerBytes(s) <= budget, `${where}: ${answerBytes(s)} bytes`);
    assertCitable(s, where);
    items.push(...itemsOf(tool, s));
    cursor = s.next_cursor as string | undefined;
    if (cursor !== undefined)
      assert.ok(itemsOf(tool, s).length > 0, `${where}: a page with a cursor and nothing on it`);
    pages++;
  } while (cursor !== undefined && pages < maxPages);
  assert.equal(cursor, undefined, `${tool}: more than ${maxPages} pages`);
  return { items, pages, late };
}

before(async () => {
  dir = tempDir('answer-budget');
  desc = buildScaleArchive(`${dir}/msgbrowse.sqlite`, {
    messages: 20_000,
    conversations: 400,
    dim: 8,
    model: MODEL,
    longMessages: 0.05,
    progress: false,
  });
  const db = openWritable(desc.path);
  try {
    // Facts citing long messages for one person, a digest for the busiest day, and journal days.
    const ro = (sql: string, ...p: unknown[]) => db.prepare(sql).get(...p) as Json;
    const conv = ro(
      'SELECT c.id, c.contact_id FROM conversations c JOIN messages m ON m.conversation_id = c.id GROUP BY c.id HAVING COUNT(*) BETWEEN 120 AND 200 ORDER BY c.id LIMIT 1',
    );
    const long = db
      .prepare(
        `SELECT hash, ts, ts_unix, source FROM messages WHERE conversation_id = ? AND is_system = 0 ORDER BY length(body) DESC LIMIT 40`,
      )
      .all(conv.id) as Json[];
    for (const [i, m] of long.entries()) {
      putFact(db, Number(conv.contact_id), {
        fact: `fact number ${i}: ${'a detail worth remembering '.repeat(1 + (i % 5))}`,
        category: 'misc',
        source: String(m.source),
        sourceMessageHash: String(m.hash),
        sourceTs: String(m.ts),
        sourceTsUnix: Number(m.ts_unix),
      });
    }
    facts = { contactId: Number(conv.contact_id), count: long.length };
    writeJournalDays(db);
    const day = String(
      ro(`SELECT date(ts_unix, 'unixepoch') AS d FROM messages GROUP BY d ORDER BY COUNT(*) DESC LIMIT 1`).d,
    );
    putDigest(db, day, {
      summary: 'A long day of plans and replies. '.repeat(300),
      mood: 'upbeat',
      people: Array.from({ length: 40 }, (_, i) => `Person ${i}`),
      themes: ['plans'],
      highlights: Array.from({ length: 30 }, (_, i) => ({
        text: `highlight ${i}: ${'so much happened '.repeat(30)}`,
        time: '09:00',
      })),
      messageCount: 1,
    });
    const longest = Number(
      ro('SELECT id FROM messages WHERE length(body) BETWEEN 4000 AND 6000 ORDER BY id LIMIT 1').id,
    );
    // The outliers: a message with 60 attachments and 80 reactions, a 3,000-character URL, 150 identifiers.
    const c = ro('SELECT source, name FROM conversations WHERE id = ?', conv.id);
    const longUrl = `https://tracking.example.com/${'segment/'.repeat(370)}end`;
    const [crowded] = new ArchiveWriter(db).appendMessages(Number(conv.id), String(c.source), String(c.name), [
      {
        ts: '2026-06-01 10:00:00',
        sender: 'Me',
        body: 'the whole album, with everybody reacting',
        attachments: Array.from({ length: 60 }, (_, i) => ({
          kind: 'image' as const,
          relPath: `media/album_photo_number_${i}.jpg`,
          originalName: `album_photo_number_${i}.jpg`,
        })),
        reactions: Array.from({ length: 80 }, (_, i) => ({ emoji: '❤️', actor: `Reactor Number ${i}` })),
      },
      { ts: '2026-06-01 10:01:00', sender: 'Me', body: `track it here ${longUrl}`, links: [longUrl] },
    ]);
    for (let i = 0; i < 150; i++)
      addIdentifier(
        db,
        Number(conv.contact_id),
        'signal',
        `+1 555 01${String(i).padStart(4, '0')} (an old number of theirs)`,
      );
    busy = { conversationId: Number(conv.id), day, longMessage: longest, crowded: crowded.id, longUrl };
  } finally {
    db.close();
  }
  embed = await startEmbedServer((req) => ({
    body: {
      data: (JSON.parse(req.body).input as string[]).map((t, index) => ({ index, embedding: embedText(t, 8, MODEL) })),
    },
  }));
  bodies = new Database(desc.path, { readonly: true });
  for (const budget of [...BUDGETS, WHOLE])
    harness.set(
      budget,
      await startHarness({
        archivePath: desc.path,
        embed: { baseUrl: embed.baseUrl, model: MODEL },
        answerBudget: budget,
      }),
    );
  // Every harness answers hybrid from the first call: a walk must not start keyword-only and go on hybrid.
  for (const h of harness.values()) assert.equal((await h.ctx.semantic(undefined, { wait: true })).available, true);
});

after(async () => {
  for (const h of harness.values()) await h.close();
  bodies?.close();
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
  ['search_contacts', { query: 'an old number' }],
  ['get_contact', { contact_id: facts.contactId }],
  ['list_links', { domain: 'tracking.example.com' }],
];

describe('shortening', () => {
  it('cuts at a grapheme and never inside a redaction label', () => {
    const family = '👩‍👩‍👧';
    assert.equal(cutText(`ab${family}cd`, 3), 'ab', 'an emoji sequence is whole or not at all');
    assert.equal(cutText(`ab${family}cd`, 2 + [...family].length), `ab${family}`);
    assert.equal(cutText('pay to [redacted: card number] today', 20), 'pay to');
    assert.equal(cutText('word '.repeat(10), 23), 'word word word word');
  });

  it('a message shrunk to a room keeps its whole length and where to read it whole, measured in bytes', () => {
    const hit: MessageHit = {
      message_id: 7,
      hash: 'a'.repeat(64),
      conversation: 'C',
      conversation_id: 1,
      source: 'signal',
      sender: 'S',
      timestamp: 't',
      link: 'l',
      text: 'é'.repeat(6000),
    };
    const once = shortenHit(hit);
    assert.equal(once.text_length, 6000);
    for (const room of [400, 700, 1500]) {
      const small = shrinkMessage(once, room);
      assert.ok(answerBytes(small) <= room, `${answerBytes(small)} > ${room}`);
      assert.equal(small.text_length, 6000, 'the whole length, not the shortened one');
      assert.match(
        small.text,
        / … \[shortened: 6000 characters; get_context with message_id 7 and window 0 shows it whole\]$/,
      );
    }
  });
});

describe('every answer fits the budget, and its pages add up to the whole', () => {
  for (const budget of BUDGETS) {
    it(`at ${budget} bytes`, async () => {
      const h = harness.get(budget)!;
      for (const [tool, args] of calls()) {
        let whole = await walk(harness.get(WHOLE)!, WHOLE, tool, args);
        let paged = await walk(h, budget, tool, args);
        for (let retry = 0; retry < 3 && (whole.late || paged.late); retry++) {
          whole = await walk(harness.get(WHOLE)!, WHOLE, tool, args);
          paged = await walk(h, budget, tool, args);
        }
        assert.ok(whole.items.length > 0, `${tool} ${JSON.stringify(args)}: the fixture gives it no items`);
        // The same items in the same order; a message a small page could not hold whole shows a prefix of its text.
        const got = paged.items.map(keyOf);
        const want = whole.items.map(keyOf);
        assert.deepEqual(
          got.map((x) => x.key),
          want.map((x) => x.key),
          `${tool} ${JSON.stringify(args)}: the pages at ${budget} are not the whole answer`,
        );
        for (const [i, x] of got.entries()) {
          assert.ok(
            want[i].text === undefined || want[i].text!.startsWith(x.text!),
            `${tool}: item ${i} text is not the whole one's`,
          );
        }
        if (budget >= 8192)
          assert.equal(
            got.filter((x, i) => x.text !== want[i].text).length,
            0,
            `${tool}: items cut further at ${budget}`,
          );
        assert.equal(new Set(got.map((x) => x.key)).size, got.length, `${tool}: an item twice`);
        if (budget <= 8192 && whole.items.length > 3 && tool !== 'get_contact')
          assert.ok(paged.pages > 1, `${tool} ${JSON.stringify(args)}: one page at ${budget} bytes proves nothing`);
      }
    });
  }

  it('get_context stays centred on the target, shows it whole when it fits, and its outward cursors continue the window', async () => {
    for (const budget of BUDGETS) {
      const h = harness.get(budget)!;
      const s = await h.ok<Json>('get_context', { message_id: busy.longMessage, window: 50 });
      assert.ok(answerBytes(s) <= budget, `${answerBytes(s)} > ${budget}`);
      const msgs = s.messages as { message_id: number; text: string; text_length?: number }[];
      const whole = (await harness.get(WHOLE)!.ok<Json>('get_context', { message_id: busy.longMessage, window: 50 }))
        .messages as { message_id: number }[];
      const at = whole.findIndex((m) => m.message_id === busy.longMessage);
      const first = whole.findIndex((m) => m.message_id === msgs[0].message_id);
      const last = first + msgs.length - 1;
      assert.deepEqual(
        msgs.map((m) => m.message_id),
        whole.slice(first, last + 1).map((m) => m.message_id),
        'contiguous',
      );
      assert.ok(
        Math.abs(at - first - (last - at)) <= 1 || first === 0 || last === whole.length - 1,
        `centred: ${first}..${at}..${last}`,
      );
      const target = msgs.find((m) => m.message_id === busy.longMessage)!;
      if (budget === 2048) {
        assert.match(
          (s.notes as string[]).join(' '),
          /longer than a whole answer; its whole text is the resource msgbrowse:\/\/message\/\d+\?h=[0-9a-f]{16}/,
        );
        const r = await h.call('get_context', { message_id: busy.longMessage, window: 50 });
        assert.ok(
          r.content.some(
            (c) =>
              c.type === 'resource_link' &&
              c.uri.startsWith(`msgbrowse://message/${busy.longMessage}?h=`) &&
              !c.annotations?.audience,
          ),
          'the model gets the message resource to read it whole',
        );
      } else assert.equal(target.text_length, undefined, `the target is whole at ${budget}`);
      if (first > 0) {
        const before = await h.ok<Json>('get_conversation', { cursor: s.earlier_cursor });
        assert.equal(
          (before.messages as { message_id: number }[])[0].message_id,
          whole[first - 1].message_id,
          'earlier_cursor reads on backwards',
        );
      } else assert.equal(s.earlier_cursor, undefined);
      if (last < whole.length - 1) {
        const next = await h.ok<Json>('get_conversation', { cursor: s.later_cursor });
        assert.equal(
          (next.messages as { message_id: number }[])[0].message_id,
          whole[last + 1].message_id,
          'later_cursor reads on',
        );
      } else assert.equal(s.later_cursor, undefined);
    }
  });

  it('an item larger than a page (60 attachments, 80 reactions; a 3,000-character URL; 150 identifiers) is shrunk to fit, its citation whole, and said', async () => {
    const h = harness.get(2048)!;
    for (const [tool, args] of [
      ['get_context', { message_id: busy.crowded, window: 0 }],
      ['list_links', { domain: 'tracking.example.com' }],
      ['search_contacts', { query: 'an old number' }],
    ] as const) {
      const s = await h.ok<Json>(tool, args);
      assert.ok(answerBytes(s) <= 2048, `${tool}: ${answerBytes(s)} bytes`);
      assertCitable(s, tool);
      assert.match(
        (s.notes as string[]).join(' '),
        /larger than the answer budget: its longest parts are shortened \(its citation is whole\)/,
        tool,
      );
    }
    const whole = await harness
      .get(WHOLE)!
      .ok<{ messages: { reactions: unknown[]; attachments: unknown[] }[] }>('get_context', {
        message_id: busy.crowded,
        window: 0,
      });
    assert.deepEqual(
      [whole.messages[0].reactions.length, whole.messages[0].attachments.length],
      [80, 60],
      'nothing is cut when it fits',
    );
  });

  it('long bodies are shortened in lists, marked, with their length; get_context window 0 reads one whole', async () => {
    const h = harness.get(8192)!;
    const page = await h.ok<{ messages: { message_id: number; text: string; text_length?: number }[] }>(
      'get_conversation',
      { conversation_id: busy.conversationId, limit: 500 },
    );
    const all = (await walk(h, 8192, 'get_conversation', { conversation_id: busy.conversationId })).items as {
      message_id: number;
      text_length?: number;
    }[];
    const cut = all.find((m) => m.text_length !== undefined);
    assert.ok(cut, 'the conversation has a long message');
    assert.ok(page.messages.every((m) => [...m.text.replace(/ … \[shortened: [\s\S]*$/, '')].length <= 1000));
    const whole = await h.ok<{ messages: { text: string; text_length?: number }[] }>('get_context', {
      message_id: cut.message_id,
      window: 0,
    });
    assert.equal(whole.messages[0].text_length, undefined);
    assert.equal([...whole.messages[0].text].length, cut.text_length);
  });

  it('a cursor of other arguments, or a damaged one, is an actionable error; an archive changed between pages is said', async () => {
    const h = harness.get(8192)!;
    const q = desc.sampleWords.frequent[0];
    const first = await h.ok<Json>('search_messages', { query: q, limit: 60 });
    assert.match(
      await h.err('search_messages', { query: `${q} x`, limit: 60, cursor: first.next_cursor }),
      /belongs to a search_messages call with other arguments: repeat the arguments/,
    );
    assert.match(
      await h.err('search_messages', { query: q, limit: 60, cursor: 'garbage!' }),
      /cursor is not valid: pass the next_cursor of a previous search_messages result unchanged/,
    );
    assert.match(
      await h.err('list_media', { limit: 60, cursor: first.next_cursor }),
      /cursor is not valid: pass the next_cursor of a previous list_media/,
    );
    // msgbrowse re-imports the conversation of the last hit shown (new ids): the next page says so and repeats nothing.
    const shown = itemsOf('search_messages', first) as { hash: string; conversation_id: number }[];
    const last = shown[shown.length - 1];
    const db = openWritable(desc.path);
    const conv = db.prepare('SELECT source, name FROM conversations WHERE id = ?').get(last.conversation_id) as {
      source: string;
      name: string;
    };
    const rows = db
      .prepare('SELECT ts, sender, body, is_system, seq FROM messages WHERE conversation_id = ? ORDER BY id')
      .all(last.conversation_id) as { ts: string; sender: string; body: string; is_system: number; seq: number }[];
    new ArchiveWriter(db).importConversation(
      conv.source,
      conv.name,
      rows.map((r) => ({ ts: r.ts, sender: r.sender, body: r.body, isSystem: r.is_system === 1, seq: r.seq })),
    );
    db.close();
    const second = await h.ok<Json>('search_messages', { query: q, limit: 60, cursor: first.next_cursor });
    assert.match(
      (second.notes as string[]).join(' '),
      /the archive changed since the previous page; continuing after the last hit shown — hits may repeat or be missing; omit cursor to start over/,
    );
    const whole = itemsOf(
      'search_messages',
      await harness.get(WHOLE)!.ok<Json>('search_messages', { query: q, limit: 60 }),
    ) as { hash: string }[];
    const next = itemsOf('search_messages', second) as { hash: string }[];
    assert.deepEqual(
      next.map((x) => x.hash),
      whole
        .slice(whole.findIndex((x) => x.hash === last.hash) + 1)
        .slice(0, next.length)
        .map((x) => x.hash),
      'the page resumes right after the last hit shown, wherever it went',
    );
  });
});
