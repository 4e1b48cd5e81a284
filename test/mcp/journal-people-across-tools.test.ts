/**
 * The journal-people fixture across tools: the oracle's self-check, tools/list, reactions on get_context /
 * get_conversation / search_messages hits, get_conversation's `order`, search_messages' has_attachment / has_link
 * filters, hidden conversations and older schemas. Each of get_journal_day, on_this_day, search_contacts and
 * get_contact has its own file in test/mcp/tools/; the oracle and checks are in test/mcp/tools/journal-fixture.ts.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { buildJournalArchive, type JournalArchive } from '../fixtures/journal-people';
import { embedText, embeddingInput, openWritable, ArchiveWriter } from '../fixtures/index';
import { startEmbedServer, type TestEmbedServer } from '../embed/test-server';
import { startHarness, tempDir, textOf, type Harness } from './harness';
import {
  Oracle,
  checkGetContact,
  checkJournalDay,
  checkOnThisDay,
  checkSearchContacts,
  journalFixture,
  noScore,
  notesText,
  privateFixture,
  type Contact,
  type Hit,
  type JournalDay,
  type OnThisDay,
  type PrivateSetup,
  type Setup,
} from './tools/journal-fixture';

// ---------------------------------------------------------------------------------------------------------------
// The oracle checks itself against facts about the fixture (so a wrong oracle cannot pass silently)
// ---------------------------------------------------------------------------------------------------------------

describe('oracle self-check (fixture facts, no tools)', () => {
  let s: { dir: string; fx: JournalArchive; o: Oracle };
  before(() => {
    const dir = tempDir('journal-people-oracle');
    const fx = buildJournalArchive(dir);
    s = { dir, fx, o: new Oracle(fx.path) };
  });
  after(() => {
    s?.o.close();
    if (s) fs.rmSync(s.dir, { recursive: true, force: true });
  });

  test('busy day, outdated day, digests', () => {
    const { o, fx } = s;
    const busy = o.journal('2023-05-01');
    assert.equal(busy.message_count, 19);
    assert.equal(busy.conversation_count, 4);
    assert.deepEqual(busy.source_counts, { signal: 16, imessage: 2, whatsapp: 1 });
    assert.deepEqual(
      busy.top_senders.map((x) => `${x.name}:${x.count}`),
      ['Ana:3', 'Maya:3', 'Ben:2', 'Cleo:2', 'Zed:2'],
    );
    assert.equal(busy.messages[0].message_id, fx.marks.busyFirst.id);
    assert.equal(busy.digest?.stale, true);
    assert.deepEqual(busy.messages.find((m) => m.message_id === fx.marks.reacted.id)?.reactions, [
      { emoji: '🔭', actor: 'Me' },
      { emoji: '❤️', actor: 'Maya' },
    ]);
    const outdated = o.journal(fx.outdatedDay!);
    assert.equal(outdated.message_count, 2);
    assert.deepEqual(outdated.top_senders, [{ name: 'Maya', count: 1 }]);
    const stored = o.db.prepare(`SELECT message_count FROM journal_days WHERE day = ?`).get(fx.outdatedDay) as {
      message_count: number;
    };
    assert.notEqual(
      stored.message_count,
      outdated.message_count,
      'the fixture stores a wrong count for the outdated day',
    );
    assert.equal(o.journal('2023-05-03').digest?.stale, false);
    assert.deepEqual(o.journal('2019-07-25').digest, {
      summary: 'Harper booked the cabin.',
      mood: 'neutral',
      people: [],
      themes: [],
      highlights: [],
      model: 'llama3.1:8b',
      stale: false,
    });
    assert.deepEqual(
      o.journal('2019-07-25').messages.map((m) => m.message_id),
      [fx.marks.shortOne.id, fx.marks.cabin.id],
    );
    const club = o.journal('2023-05-01', ['signal:Climbing Club']);
    assert.equal(club.message_count, 7);
    assert.equal(club.digest, null);
    assert.equal(club.why, 'withheld');
  });

  test('on this day', () => {
    const { o, fx } = s;
    const ids = (ys: OnThisDay['years']) => ys.map((y) => [y.day, ...y.messages.map((m) => m.message_id)]);
    assert.deepEqual(ids(o.onThisDay('2026-07-25')), [
      ['2021-07-25', fx.marks.secretDay.id, fx.marks.lunch.id],
      ['2019-07-25', fx.marks.cabin.id, fx.marks.shortOne.id],
    ]);
    assert.deepEqual(ids(o.onThisDay('2026-07-25', 3, 12, ['Secret'])), [
      ['2021-07-25', fx.marks.lunch.id],
      ['2019-07-25', fx.marks.cabin.id, fx.marks.shortOne.id],
    ]);
    assert.equal(o.onThisDay('2025-07-25').at(-1)?.day, '2005-07-25');
    assert.deepEqual(ids(o.onThisDay('2024-02-29')), [['2020-02-29', fx.marks.leapDay.id]]);
  });

  test('contacts', () => {
    const { o, fx } = s;
    assert.deepEqual(
      o.searchContacts('zoe').map((c) => c.contact_id),
      [fx.contacts!.zoe],
    );
    assert.deepEqual(
      o.searchContacts('maya@EXAMPLE').map((c) => c.contact_id),
      [fx.contacts!.maya],
    );
    assert.deepEqual(
      o.searchContacts('+1555000').map((c) => c.contact_id),
      [fx.contacts!.maya],
    );
    const maya = o.contact(fx.contacts!.maya);
    assert.equal(maya.conversations.length, 2);
    assert.equal(maya.fact_count, 4);
    assert.equal(maya.facts[0].message, null);
    assert.equal(o.contact(fx.contacts!.maya, ['imessage:+15550001111']).fact_count, 3);
    assert.deepEqual(o.fts('photo', { has_attachment: true }), [fx.marks.withPhoto.id]);
    assert.deepEqual(o.fts('trail', { has_link: true }), [fx.marks.withLink.id]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The latest schema
// ---------------------------------------------------------------------------------------------------------------

describe('journal and people tools (schema v16)', () => {
  let s: Setup;
  journalFixture((x) => (s = x));

  test('tools/list: the new tools and parameters are there, read-only', async () => {
    const { tools } = await s.h.client.listTools();
    const props = (name: string) => {
      const t = tools.find((x) => x.name === name);
      assert.ok(t, `tool ${name} is listed`);
      assert.equal(t.annotations?.readOnlyHint, true, name);
      return Object.keys(t.inputSchema.properties ?? {});
    };
    for (const p of ['day', 'limit', 'cursor']) assert.ok(props('get_journal_day').includes(p), `get_journal_day.${p}`);
    for (const p of ['date', 'per_year', 'limit']) assert.ok(props('on_this_day').includes(p), `on_this_day.${p}`);
    assert.ok(props('search_contacts').includes('query'));
    for (const p of ['contact_id', 'name']) assert.ok(props('get_contact').includes(p), `get_contact.${p}`);
    assert.ok(props('get_conversation').includes('order'));
    for (const p of ['has_attachment', 'has_link'])
      assert.ok(props('search_messages').includes(p), `search_messages.${p}`);
  });

  describe('reactions on hits', () => {
    const REACTIONS = [
      { emoji: '🔭', actor: 'Me' },
      { emoji: '❤️', actor: 'Maya' },
    ];

    test('get_context', async () => {
      const t = s.fx.marks.reacted;
      const r = await s.c.ok<{ messages: Hit[] }>('get_context', { message_id: t.id, window: 1 });
      const tr = s.o.transcript(t.conversationId);
      const i = tr.indexOf(t.id);
      assert.deepEqual(
        r.messages.map(noScore),
        tr.slice(i - 1, i + 2).map((id) => s.o.hit(id)),
      );
      assert.deepEqual(r.messages.find((m) => m.message_id === t.id)?.reactions, REACTIONS);
    });

    test('get_conversation', async () => {
      const t = s.fx.marks.reacted;
      const r = await s.c.ok<{ messages: Hit[] }>('get_conversation', {
        conversation_id: t.conversationId,
        limit: 500,
      });
      assert.deepEqual(
        r.messages.map(noScore),
        s.o.transcript(t.conversationId).map((id) => s.o.hit(id)),
      );
    });

    test('search_messages', async () => {
      const r = await s.c.ok<{ hits: Hit[] }>('search_messages', { query: 'observatory' });
      assert.deepEqual(
        r.hits.map((x) => x.message_id).sort((a, b) => a - b),
        s.o.fts('observatory'),
      );
      for (const x of r.hits) assert.deepEqual(x.reactions, s.o.hit(x.message_id).reactions, `message ${x.message_id}`);
      assert.deepEqual(r.hits.find((x) => x.message_id === s.fx.marks.reacted.id)?.reactions, REACTIONS);
    });
  });

  describe('get_conversation order', () => {
    const pages = async (first: Record<string, unknown>, next: (cursor: string) => Record<string, unknown>) => {
      const out: Hit[][] = [];
      let r = await s.c.ok<{ messages: Hit[]; next_cursor?: string }>('get_conversation', first);
      out.push(r.messages);
      while (r.next_cursor) {
        r = await s.c.ok('get_conversation', next(r.next_cursor));
        out.push(r.messages);
        assert.ok(out.length < 50, 'paging does not terminate');
      }
      return out;
    };

    test('newest: newest first, next_cursor continues to older messages, pages = transcript reversed', async () => {
      const maya = s.fx.marks.mayaLast.conversationId;
      const reversed = s.o.transcript(maya).reverse();
      const got = await pages({ conversation_id: maya, order: 'newest', limit: 2 }, (cursor) => ({
        cursor,
        order: 'newest',
        limit: 2,
      }));
      assert.deepEqual(
        got.map((p) => p.map((m) => m.message_id)),
        [reversed.slice(0, 2), reversed.slice(2, 4), reversed.slice(4, 6), reversed.slice(6)],
      );
      assert.equal(got[0][0].message_id, s.fx.marks.mayaLast.id);
      assert.deepEqual(
        got.flat().map(noScore),
        reversed.map((id) => s.o.hit(id)),
      );
    });

    test('newest: the cursor alone keeps the order', async () => {
      const maya = s.fx.marks.mayaLast.conversationId;
      const got = await pages({ name: 'Maya', order: 'newest', limit: 2 }, (cursor) => ({ cursor, limit: 2 }));
      assert.deepEqual(
        got.flat().map((m) => m.message_id),
        s.o.transcript(maya).reverse(),
      );
    });

    test('newest within date bounds: the newest of the range first, paging down to its oldest', async () => {
      const maya = s.fx.marks.mayaLast.conversationId;
      const day = s.o
        .transcript(maya)
        .filter((id) => s.o.hit(id).timestamp.startsWith('2023-05-01'))
        .reverse();
      const args = { conversation_id: maya, order: 'newest', start: '2023-05-01', end: '2023-05-01', limit: 3 };
      const got = await pages(args, (cursor) => ({ ...args, cursor }));
      assert.deepEqual(
        got.map((p) => p.map((m) => m.message_id)),
        [day.slice(0, 3), day.slice(3)],
      );
    });

    test('oldest (explicit and default) is chronological; an unknown order is an error', async () => {
      const maya = s.fx.marks.mayaLast.conversationId;
      for (const extra of [{}, { order: 'oldest' }]) {
        const got = await pages({ name: 'Maya', limit: 2, ...extra }, (cursor) => ({ cursor, limit: 2, ...extra }));
        assert.deepEqual(
          got.flat().map((m) => m.message_id),
          s.o.transcript(maya),
          JSON.stringify(extra),
        );
      }
      assert.match(await s.c.err('get_conversation', { name: 'Maya', order: 'sideways' }), /oldest|newest/);
    });
  });

  describe('search_messages has_attachment / has_link', () => {
    const cases: [string, { has_attachment?: boolean; has_link?: boolean }][] = [
      ['photo', { has_attachment: true }],
      ['photo', { has_attachment: false }],
      ['trail', { has_link: true }],
      ['trail', { has_link: false }],
      ['the', {}],
      ['the', { has_attachment: true }],
      ['the', { has_attachment: false }],
      ['the', { has_link: true }],
      ['the', { has_link: false }],
      ['the', { has_attachment: true, has_link: false }],
      ['the', { has_attachment: false, has_link: false }],
      ['maps', { has_link: true }],
      ['hike', { has_attachment: false }],
    ];
    for (const [query, f] of cases) {
      test(`${query} ${JSON.stringify(f)}`, async () => {
        const r = await s.c.ok<{ hits: Hit[] }>('search_messages', { query, limit: 100, ...f });
        const exp = s.o.fts(query, f);
        const got = r.hits.map((x) => x.message_id);
        assert.equal(new Set(got).size, got.length, 'no duplicates');
        assert.deepEqual(
          [...got].sort((a, b) => a - b),
          exp,
          'the FTS matches that satisfy the filter',
        );
        for (const x of r.hits) {
          const { text: _t, score: _s, ...rest } = x;
          const { text: _et, ...want } = s.o.hit(x.message_id);
          assert.deepEqual(rest, want, `hit ${x.message_id}`);
        }
      });
    }

    test('the filters narrow the unfiltered results; limit still applies', async () => {
      const all = s.o.fts('the');
      assert.ok(all.length > 3);
      const r = await s.c.ok<{ hits: Hit[] }>('search_messages', { query: 'the', has_attachment: false, limit: 3 });
      assert.equal(r.hits.length, 3);
      const allowed = new Set(s.o.fts('the', { has_attachment: false }));
      for (const x of r.hits) assert.ok(allowed.has(x.message_id), `hit ${x.message_id} satisfies the filter`);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Privacy (the production runtime with conversations hidden from models)
// ---------------------------------------------------------------------------------------------------------------

describe('privacy: hidden conversations', () => {
  describe('hiding "Secret"', () => {
    const EX = ['Secret'];
    let p: PrivateSetup;
    privateFixture(EX, (x) => (p = x));

    test('get_journal_day leaves it out of counts and messages', async () => {
      const r = await checkJournalDay(p.c, p.o, '2021-07-25', EX);
      assert.equal(r.message_count, 1);
      assert.deepEqual(r.source_counts, { signal: 1 });
      const json = JSON.stringify(r);
      assert.ok(!json.includes(p.fx.marks.secretDay.body), 'hidden text never shown');
      assert.ok(!json.includes(p.fx.marks.secretDay.hash), 'hidden hash never shown');
      for (const day of p.o.countedDays(EX)) await checkJournalDay(p.c, p.o, day, EX);
    });

    test('on_this_day never shows its message', async () => {
      const r = await checkOnThisDay(p.c, p.o, { date: '2026-07-25' }, EX);
      assert.deepEqual(
        r.years[0].messages.map((m) => m.message_id),
        [p.fx.marks.lunch.id],
      );
      await checkOnThisDay(p.c, p.o, { date: '2026-07-25', per_year: 1, limit: 1 }, EX);
      assert.ok(!JSON.stringify(r).includes(p.fx.marks.secretDay.hash));
    });
  });

  describe("hiding Maya's iMessage thread (imessage:+15550001111)", () => {
    const EX = ['imessage:+15550001111'];
    let p: PrivateSetup;
    privateFixture(EX, (x) => (p = x));

    test('get_contact: the hidden conversation is not listed and its fact is left out (and not counted)', async () => {
      const maya = p.fx.contacts!.maya;
      const r = await checkGetContact(p.c, p.o, { contact_id: maya }, maya, EX);
      assert.equal(r.fact_count, 3);
      assert.deepEqual(
        r.conversations.map((c) => c.id),
        [p.fx.marks.mayaBirthday.conversationId],
      );
      assert.ok(!JSON.stringify(r).includes(p.fx.marks.mayaImessage.hash));
      assert.ok(!r.facts.some((f) => f.fact === 'Has a night tour at the observatory'));
    });

    test('search_contacts agrees', async () => {
      const r = await checkSearchContacts(p.c, p.o, 'maya', EX);
      assert.equal(r.contacts[0].fact_count, 3);
      assert.equal(r.contacts[0].conversations.length, 1);
    });

    test('get_journal_day leaves the thread out; digest withheld', async () => {
      const r = await checkJournalDay(p.c, p.o, '2023-05-01', EX);
      assert.equal(r.message_count, 17);
      assert.equal(r.digest, null);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Older schemas
// ---------------------------------------------------------------------------------------------------------------

describe('schema v14 (digests without message_count)', () => {
  let s: Setup;
  journalFixture((x) => (s = x), 14);

  test('digests are never stale; counts and messages as usual', async () => {
    for (const day of s.o.countedDays()) await checkJournalDay(s.c, s.o, day);
    const r = await checkJournalDay(s.c, s.o, '2023-05-01');
    assert.equal(r.digest?.stale, false);
    assert.equal(r.message_count, 19);
  });

  test('on_this_day and people', async () => {
    await checkOnThisDay(s.c, s.o, { date: '2026-07-25' });
    await checkSearchContacts(s.c, s.o, 'zoe');
    await checkGetContact(s.c, s.o, { contact_id: s.fx.contacts!.maya }, s.fx.contacts!.maya);
  });
});

describe('schema v10 (no journal tables)', () => {
  let s: Setup;
  journalFixture((x) => (s = x), 10);

  test('get_journal_day answers counts and messages, digest null with a note that digests need v11+', async () => {
    for (const day of ['2023-05-01', '2019-07-25', '2024-03-10']) {
      const r = await checkJournalDay(s.c, s.o, day);
      assert.equal(r.digest, null);
      assert.match(notesText(r), /v11|11/);
    }
    const msg = await s.c.err('get_journal_day', { day: '2022-06-15' });
    assert.ok(msg.includes('2021-07-25') && msg.includes('2023-05-01'), msg);
  });

  test('on_this_day, people, reactions (v6+) still work', async () => {
    await checkOnThisDay(s.c, s.o, { date: '2026-07-25' });
    await checkOnThisDay(s.c, s.o, { date: '2024-02-29' });
    await checkSearchContacts(s.c, s.o, '+1555000');
    await checkGetContact(s.c, s.o, { name: 'Maya' }, s.fx.contacts!.maya);
    const r = await s.c.ok<JournalDay>('get_journal_day', { day: '2023-05-01' });
    assert.equal(r.messages.find((m) => m.message_id === s.fx.marks.reacted.id)?.reactions?.length, 2);
  });
});

describe('schema v3 (contacts without facts, no reactions)', () => {
  let s: Setup;
  journalFixture((x) => (s = x), 3);

  test('get_contact: facts [] and fact_count 0; search_contacts still finds the merged contact', async () => {
    const r = await checkGetContact(s.c, s.o, { contact_id: s.fx.contacts!.maya }, s.fx.contacts!.maya);
    assert.deepEqual(r.facts, []);
    assert.equal(r.fact_count, 0);
    const found = await checkSearchContacts(s.c, s.o, 'maya@EXAMPLE');
    assert.equal(found.contacts[0]?.fact_count, 0);
    await checkSearchContacts(s.c, s.o, 'e');
  });

  test('get_journal_day without journal tables or reactions; on_this_day', async () => {
    const r = await checkJournalDay(s.c, s.o, '2023-05-01');
    assert.ok(r.messages.every((m) => m.reactions === undefined));
    assert.match(notesText(r), /v11|11/);
    await checkOnThisDay(s.c, s.o, { date: '2026-07-25' });
  });
});

describe('schema v1 (no contacts, no sources)', () => {
  let s: Setup;
  journalFixture((x) => (s = x), 1);

  test('get_contact is an error saying people need a newer schema', async () => {
    assert.match(await s.c.err('get_contact', { contact_id: 1 }), /schema|newer|version|v2/i);
    assert.match(await s.c.err('get_contact', { name: 'Maya' }), /schema|newer|version|v2/i);
  });

  test('search_contacts: an error (or an empty list with a note) about the schema', async () => {
    const r = await s.c.call('search_contacts', { query: 'maya' });
    if (r.isError) assert.match(textOf(r), /schema|newer|version|v2/i);
    else {
      const sc = r.structuredContent as { contacts: Contact[]; notes?: string[] };
      assert.deepEqual(sc.contacts, []);
      assert.match(notesText(sc), /schema|newer|version|v2/i);
    }
  });

  test('get_journal_day and on_this_day still answer from messages', async () => {
    for (const day of ['2023-05-01', '2019-07-25']) await checkJournalDay(s.c, s.o, day);
    await checkOnThisDay(s.c, s.o, { date: '2026-07-25' });
    await checkOnThisDay(s.c, s.o, { date: '2025-07-25', per_year: 1 });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The filters on the semantic half too (the fixture plus test-embed vectors for every embeddable message)
// ---------------------------------------------------------------------------------------------------------------

describe('search_messages has_attachment / has_link with the semantic half on', () => {
  let dir: string;
  let fx: JournalArchive;
  let o: Oracle;
  let embed: TestEmbedServer;
  let h: Harness;
  before(async () => {
    dir = tempDir('journal-people-hybrid');
    fx = buildJournalArchive(dir);
    const db = openWritable(fx.path);
    try {
      const w = new ArchiveWriter(db);
      db.transaction(() => {
        for (const m of fx.messages)
          if (!m.isSystem && m.body.trim() !== '')
            w.putEmbedding(m.hash, 'test-embed', embedText(embeddingInput(m.body), 8, 'test-embed'));
      })();
    } finally {
      db.close();
    }
    o = new Oracle(fx.path);
    embed = await startEmbedServer((req) => {
      const body = JSON.parse(req.body) as { input: string[] };
      return { body: { data: body.input.map((t, index) => ({ index, embedding: embedText(t, 8, 'test-embed') })) } };
    });
    h = await startHarness({ archivePath: fx.path, embed: { baseUrl: embed.baseUrl, model: 'test-embed' } });
    await h.client.listTools();
  });
  after(async () => {
    await h?.close();
    await embed?.close();
    o?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const withAtt = () =>
    new Set(
      (o.db.prepare('SELECT DISTINCT message_id AS id FROM attachments').all() as { id: number }[]).map((r) => r.id),
    );
  const withLink = () =>
    new Set((o.db.prepare('SELECT DISTINCT message_id AS id FROM links').all() as { id: number }[]).map((r) => r.id));
  for (const [query, f] of [
    ['photo from the hike', { has_attachment: true }],
    ['photo from the hike', { has_attachment: false }],
    ['trail map', { has_link: true }],
    ['trail map', { has_link: false }],
    ['the observatory', { has_attachment: false, has_link: false }],
  ] as [string, { has_attachment?: boolean; has_link?: boolean }][]) {
    test(`${query} ${JSON.stringify(f)}: every hit, keyword or semantic, satisfies the filter`, async () => {
      const r = await h.ok<{ hits: Hit[]; semantic: { used: boolean } }>('search_messages', { query, limit: 50, ...f });
      assert.equal(r.semantic.used, true);
      assert.ok(r.hits.length > 0);
      const att = withAtt();
      const lnk = withLink();
      for (const x of r.hits) {
        if (f.has_attachment !== undefined)
          assert.equal(att.has(x.message_id), f.has_attachment, `hit ${x.message_id} attachment`);
        if (f.has_link !== undefined) assert.equal(lnk.has(x.message_id), f.has_link, `hit ${x.message_id} link`);
      }
      if (f.has_attachment === true)
        assert.deepEqual(
          r.hits.map((x) => x.message_id),
          [...att],
        );
      if (f.has_link === true)
        assert.deepEqual(
          r.hits.map((x) => x.message_id),
          [...lnk],
        );
      if (f.has_attachment === false || f.has_link === false) {
        // semantic hits fill up with every other embeddable message that satisfies the filter
        const eligible = fx.messages.filter(
          (m) =>
            !m.isSystem &&
            m.body.trim() !== '' &&
            (f.has_attachment !== false || !att.has(m.id)) &&
            (f.has_link !== false || !lnk.has(m.id)),
        );
        assert.ok(
          r.hits.length >= Math.min(50, eligible.length),
          `${r.hits.length} hits of ${eligible.length} eligible`,
        );
      }
    });
  }
});
