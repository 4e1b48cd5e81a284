/**
 * Every Archive query against the curated archive, checked against oracles computed in JS from
 * what the fixture writer stored (not from SQL), plus msgbrowse's §10 scenarios.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  ArchiveError,
  buildFtsQuery,
  inThread,
  MAX_QUERY_TOKENS,
  planFtsQuery,
  openArchive,
  type Archive,
  type EmbeddingRecord,
  type MessageRow,
} from '../../src/archive';
import {
  ArchiveWriter,
  archivePathIn,
  buildArchive,
  buildCuratedArchive,
  buildMsgbrowseMcpFixture,
  dayStartUnix,
  decodeVector,
  isEmbeddable,
  openWritable,
  type CuratedArchive,
  type WrittenMessage,
} from '../fixtures';
import { linkStatements } from '../../src/archive/queries/links';
import { attachmentStatements } from '../../src/archive/queries/media';
import { keywordSearchSql, searchKeyword } from '../../src/archive/queries/search';
import { loadEngine } from '../../src/archive/wasm-engine';
import { detectSchema } from '../../src/archive/schema';
import { ArchiveConnection } from '../../src/archive/connection';
import { nativeSql } from '../fixtures/native-sql';
import { recordingSql } from '../fixtures/recording-sql';

let tmp: string;
let desc: CuratedArchive;
let a: Archive;

const byTsId = (x: { tsUnix: number; id: number }, y: { tsUnix: number; id: number }) =>
  x.tsUnix - y.tsUnix || x.id - y.id;
const ids = (rows: { id: number }[]) => rows.map((r) => r.id);
const convId = (source: string, name: string) => {
  const c = desc.conversations.find((x) => x.source === source && x.name === name);
  assert.ok(c, `${source}/${name}`);
  return c.id;
};
const msgsOf = (cid: number): WrittenMessage[] => desc.messages.filter((m) => m.conversationId === cid).sort(byTsId);

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-queries-'));
  desc = buildCuratedArchive(path.join(tmp, 'curated'));
  a = await openArchive(path.join(tmp, 'curated'));
});
after(() => {
  a?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('conversations', () => {
  it('listConversations: every field, msgbrowse order (last_unix DESC, name ASC, then source, id)', () => {
    const rows = a.listConversations();
    assert.equal(rows.length, desc.conversations.length);
    const expected = [...desc.conversations].sort(
      (x, y) =>
        y.lastUnix - x.lastUnix ||
        (x.name < y.name ? -1 : x.name > y.name ? 1 : 0) ||
        (x.source < y.source ? -1 : x.source > y.source ? 1 : 0) ||
        x.id - y.id,
    );
    assert.deepEqual(
      rows.map((r) => `${r.source}/${r.name}`),
      expected.map((c) => `${c.source}/${c.name}`),
    );
    for (const c of desc.conversations) {
      const r = rows.find((x) => x.id === c.id);
      assert.ok(r);
      assert.deepEqual(
        { ...r },
        {
          id: c.id,
          name: c.name,
          source: c.source,
          messageCount: c.messageCount,
          firstTs: c.firstTs,
          lastTs: c.lastTs,
          lastUnix: c.lastUnix,
          images: c.images,
          files: c.files,
          videos: c.videos,
          links: c.distinctUrls,
        },
        `${c.source}/${c.name}`,
      );
    }
    const empty = rows[rows.length - 1];
    assert.equal(empty.name, desc.emptyConversation.name);
    assert.equal(empty.messageCount, 0);
    assert.equal(empty.firstTs, '');
  });

  it('listConversations filters: source and case-insensitive name substring', () => {
    assert.deepEqual(
      a.listConversations({ source: 'imessage' }).map((c) => c.source),
      desc.conversations.filter((c) => c.source === 'imessage').map(() => 'imessage'),
    );
    assert.deepEqual(
      a.listConversations({ nameContains: 'ZOË' }).map((c) => c.name),
      ['Zoë'],
    );
    assert.deepEqual(
      a.listConversations({ nameContains: 'zoe' }).map((c) => c.name),
      ['Zoë'],
      'diacritics folded',
    );
    assert.deepEqual(
      a.listConversations({ nameContains: 'trip' }).map((c) => c.name),
      ['Group Trip'],
    );
    assert.deepEqual(
      a
        .listConversations({ nameContains: 'mj' })
        .map((c) => `${c.source}/${c.name}`)
        .sort(),
      ['imessage/MJ', 'whatsapp/MJ'],
    );
    assert.deepEqual(a.listConversations({ nameContains: 'mj', source: 'whatsapp' }).length, 1);
    assert.deepEqual(a.listConversations({ source: 'telegram' }), []);
  });

  it('conversationById', () => {
    const id = convId('signal', 'Harper');
    assert.equal(a.conversationById(id)?.name, 'Harper');
    assert.equal(a.conversationById(99999), undefined);
  });

  it('resolveConversation: exact, case-insensitive/trimmed, ambiguous across sources, not found with suggestions', () => {
    const harper = a.resolveConversation('Harper');
    assert.equal(harper.kind, 'found');
    assert.equal(harper.kind === 'found' && harper.conversation.id, convId('signal', 'Harper'));
    const loose = a.resolveConversation('  harper ');
    assert.equal(loose.kind === 'found' && loose.conversation.id, convId('signal', 'Harper'));
    const zoe = a.resolveConversation('zoe');
    assert.equal(zoe.kind === 'found' && zoe.conversation.name, 'Zoë');
    const mj = a.resolveConversation('MJ');
    assert.equal(mj.kind, 'ambiguous');
    assert.deepEqual(mj.kind === 'ambiguous' && mj.candidates.map((c) => c.source).sort(), ['imessage', 'whatsapp']);
    const mjWa = a.resolveConversation('MJ', 'whatsapp');
    assert.equal(mjWa.kind === 'found' && mjWa.conversation.id, convId('whatsapp', 'MJ'));
    const wrongSource = a.resolveConversation('Harper', 'whatsapp');
    assert.equal(wrongSource.kind, 'not_found');
    assert.equal(wrongSource.kind === 'not_found' && wrongSource.suggestions[0]?.name, 'Harper');
    const typo = a.resolveConversation('Hraper');
    assert.equal(typo.kind, 'not_found');
    assert.ok(typo.kind === 'not_found' && typo.suggestions.some((c) => c.name === 'Harper'));
    const sub = a.resolveConversation('Group');
    assert.equal(sub.kind === 'not_found' && sub.suggestions[0]?.name, 'Group Trip');
    const nothing = a.resolveConversation('zzzzzzzzzzzzzzzz');
    assert.equal(nothing.kind, 'not_found');
    assert.ok(nothing.kind === 'not_found' && nothing.suggestions.length <= 5);
  });
});

describe('transcript', () => {
  it('chronological (ts_unix, id), all pages walk the whole conversation forwards and backwards', () => {
    const cid = convId('signal', 'Group Trip');
    const all = msgsOf(cid);
    const seen: MessageRow[] = [];
    let page = a.transcript({ conversationId: cid, limit: 37 });
    seen.push(...page.messages);
    while (page.next) {
      page = a.transcript({ conversationId: cid, limit: 37, after: page.next });
      seen.push(...page.messages);
    }
    assert.deepEqual(ids(seen), ids(all));
    const back: MessageRow[] = [];
    const last = all[all.length - 1];
    let p = a.transcript({ conversationId: cid, limit: 40, before: { tsUnix: last.tsUnix, id: last.id + 1 } });
    back.unshift(...p.messages);
    while (p.next) {
      p = a.transcript({ conversationId: cid, limit: 40, before: p.next });
      back.unshift(...p.messages);
    }
    assert.deepEqual(ids(back), ids(all));
  });

  it('row fields, system messages included, same-second order by id', () => {
    const cid = convId('signal', 'Harper');
    const page = a.transcript({ conversationId: cid, limit: 500 });
    assert.equal(page.next, undefined);
    const m = desc.marks.systemEmpty;
    const row = page.messages.find((r) => r.id === m.id);
    assert.deepEqual(row, {
      id: m.id,
      hash: m.hash,
      conversationId: cid,
      conversation: 'Harper',
      source: 'signal',
      sender: 'No-Sender',
      ts: m.ts,
      tsUnix: m.tsUnix,
      body: '',
      isSystem: true,
      seq: 0,
    });
    const i = ids(page.messages);
    assert.ok(i.indexOf(desc.marks.sameSecondA.id) < i.indexOf(desc.marks.sameSecondB.id));
    assert.equal(page.messages.find((r) => r.id === desc.marks.duplicateSeq1.id)?.seq, 1);
  });

  it('inclusive date bounds and the `next` cursor only when more rows exist', () => {
    const cid = convId('signal', 'Harper');
    const start = dayStartUnix('2022-03-02');
    const inRange = msgsOf(cid).filter((m) => m.tsUnix >= start && m.tsUnix <= desc.marks.linkYelp.tsUnix);
    const page = a.transcript({
      conversationId: cid,
      startUnix: start,
      endUnix: desc.marks.linkYelp.tsUnix,
      limit: 100,
    });
    assert.deepEqual(ids(page.messages), ids(inRange));
    assert.equal(page.next, undefined);
    const exact = a.transcript({
      conversationId: cid,
      startUnix: start,
      endUnix: desc.marks.linkYelp.tsUnix,
      limit: inRange.length,
    });
    assert.equal(exact.next, undefined, 'no cursor when the page ends exactly at the last row');
    const short = a.transcript({ conversationId: cid, startUnix: start, limit: 1 });
    assert.deepEqual(short.next, { tsUnix: inRange[0].tsUnix, id: inRange[0].id });
    assert.deepEqual(a.transcript({ conversationId: 99999, limit: 10 }), { messages: [] });
  });

  it('rejects a non-positive limit with a clear error', () => {
    assert.throws(
      () => a.transcript({ conversationId: 1, limit: 0 }),
      (e: unknown) => e instanceof ArchiveError && /limit must be a positive integer/.test(e.message),
    );
  });
});

describe('searchKeyword', () => {
  it('buildFTSQuery matches msgbrowse exactly', () => {
    assert.equal(buildFtsQuery('lease'), '"lease"*');
    assert.equal(buildFtsQuery('lease terms'), '"lease"* "terms"*');
    assert.equal(buildFtsQuery('a"b'), '"a""b"*');
    assert.equal(buildFtsQuery('OR AND'), '"OR"* "AND"*');
    assert.equal(buildFtsQuery(' \t\n\u00a0\u3000 '), '');
    assert.equal(buildFtsQuery('x\u2003y\u0085z'), '"x"* "y"* "z"*', 'Go unicode.IsSpace separators');
    assert.equal(buildFtsQuery('x\ufeffy'), '"x\ufeffy"*', 'U+FEFF is not a space in Go');
    assert.equal(buildFtsQuery('a\0b'), '"a"* "b"*');
    assert.equal(buildFtsQuery('\ud800x'), '"\ufffdx"*');
  });

  it('the token list is bounded: FTS5-equal repeats once, no-term tokens left out, at most 32 tokens', () => {
    const rep = planFtsQuery(Array(999).fill('a').join(' '));
    assert.deepEqual([rep.match, rep.tokens, rep.total, rep.duplicates, rep.overCap], ['"a"*', ['a'], 999, 998, 0]);
    const folded = planFtsQuery('Café cafe CAFÉ lease ? ? -- 🥶');
    assert.deepEqual(folded.tokens, ['Café', 'lease']);
    assert.equal(folded.duplicates, 3);
    assert.deepEqual(folded.ignored, ['?', '--', '🥶']);
    const many = planFtsQuery(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '));
    assert.equal(many.tokens.length, MAX_QUERY_TOKENS);
    assert.equal(many.overCap, 100 - MAX_QUERY_TOKENS);
    assert.deepEqual(many.tokens.slice(0, 2), ['w0', 'w1']);
  });

  it('scope counts and vector coverage agree with the fixture', () => {
    const model = 'test-embed';
    const all = desc.messages;
    // The curated archive embeds every embeddable message with test-embed.
    const vec = new Set(all.filter(isEmbeddable).map((m) => m.hash));
    const check = (f: {
      conversationId?: number;
      source?: string;
      sender?: string;
      startUnix?: number;
      endUnix?: number;
    }) => {
      const inScope = all.filter(
        (m) =>
          (f.conversationId === undefined || m.conversationId === f.conversationId) &&
          (f.source === undefined || m.source === f.source) &&
          (f.sender === undefined || m.sender === f.sender) &&
          (f.startUnix === undefined || m.tsUnix >= f.startUnix) &&
          (f.endUnix === undefined || m.tsUnix <= f.endUnix),
      );
      const got = a.scopeCounts(f, model);
      assert.deepEqual(
        got,
        { messages: inScope.length, withVectors: inScope.filter((m) => vec.has(m.hash)).length, model },
        JSON.stringify(f),
      );
    };
    const harper = desc.conversations.find((c) => c.name === 'Harper' && c.source === 'signal')!;
    check({});
    check({ conversationId: harper.id });
    check({ source: 'whatsapp' });
    check({ sender: 'Me' });
    check({ sender: 'Me', source: 'signal', startUnix: dayStartUnix('2022-03-01') });
    check({ sender: 'Harper', conversationId: harper.id });
    check({ startUnix: dayStartUnix('2024-01-01'), endUnix: dayStartUnix('2024-12-31') + 86399 });
    check({ sender: 'nobody' });
    assert.deepEqual(a.scopeCounts({ conversationId: harper.id }), { messages: harper.messageCount });
  });

  it('senders resolve like conversations: folded, owner synonyms, scoped, suggestions', () => {
    const harper = desc.conversations.find((c) => c.name === 'Harper' && c.source === 'signal')!;
    assert.deepEqual(a.resolveSender('Me'), { kind: 'found', sender: 'Me', messages: all('Me'), via: 'exact' });
    assert.equal((a.resolveSender('  harper ') as { sender?: string }).sender, 'Harper');
    assert.deepEqual(a.resolveSender('myself', { conversationId: harper.id }), {
      kind: 'found',
      sender: 'Me',
      messages: desc.messages.filter((m) => m.conversationId === harper.id && m.sender === 'Me').length,
      via: 'owner',
    });
    const miss = a.resolveSender('MJ', { conversationId: harper.id });
    assert.equal(miss.kind, 'not_found');
    if (miss.kind === 'not_found') {
      assert.deepEqual(miss.elsewhere, [{ name: 'MJ', messages: all('MJ') }]);
      assert.ok(miss.inScope?.some((s) => s.name === 'Harper'));
    }
    const typo = a.resolveSender('Harpr');
    assert.ok(typo.kind === 'not_found' && typo.suggestions[0].name === 'Harper');
    function all(sender: string): number {
      return desc.messages.filter((m) => m.sender === sender).length;
    }
  });

  it('hits, snippet markers, rank order then id', () => {
    const hits = a.searchKeyword({ query: 'lease', limit: 50 });
    assert.ok(hits.length >= 3);
    for (let i = 1; i < hits.length; i++) {
      assert.ok(hits[i - 1].rank < hits[i].rank || (hits[i - 1].rank === hits[i].rank && hits[i - 1].id < hits[i].id));
    }
    const la = hits.find((h) => h.id === desc.marks.leaseAgreement.id);
    assert.ok(la);
    assert.equal(la.snippet, 'the \u0002lease\u0003 agreement is ready');
    assert.equal(la.conversation, 'Harper');
    assert.equal(la.source, 'signal');
    assert.ok(hits.some((h) => h.id === desc.marks.fileLease.id));
    const expected = desc.messages
      .filter((m) => /\blease/i.test(m.body))
      .map((m) => m.id)
      .sort((x, y) => x - y);
    assert.deepEqual(
      ids(hits).sort((x, y) => x - y),
      expected,
    );
  });

  it('diacritics fold, CJK and prefix match', () => {
    assert.deepEqual(ids(a.searchKeyword({ query: 'cafe creme', limit: 5 })), [desc.marks.diacritics.id]);
    assert.deepEqual(ids(a.searchKeyword({ query: 'zurich', limit: 5 })), [desc.marks.emoji.id]);
    assert.ok(ids(a.searchKeyword({ query: '東京の天気はどうですか', limit: 5 })).includes(desc.marks.cjk.id));
    assert.equal(
      a.searchKeyword({ query: 'lea', limit: 200 }).length >= a.searchKeyword({ query: 'lease', limit: 200 }).length,
      true,
    );
  });

  it('every filter', () => {
    const harper = convId('signal', 'Harper');
    const all = a.searchKeyword({ query: 'lease', limit: 200 });
    const check = (opts: Parameters<Archive['searchKeyword']>[0], pred: (m: WrittenMessage) => boolean) => {
      const got = ids(a.searchKeyword(opts)).sort((x, y) => x - y);
      const want = all
        .map((h) => desc.messages.find((m) => m.id === h.id) as WrittenMessage)
        .filter(pred)
        .map((m) => m.id)
        .sort((x, y) => x - y);
      assert.deepEqual(got, want, JSON.stringify(opts));
    };
    check({ query: 'lease', limit: 200, conversationId: harper }, (m) => m.conversationId === harper);
    check({ query: 'lease', limit: 200, source: 'imessage' }, (m) => m.source === 'imessage');
    check({ query: 'lease', limit: 200, sender: 'MJ' }, (m) => m.sender === 'MJ');
    check(
      { query: 'lease', limit: 200, startUnix: dayStartUnix('2022-03-15') },
      (m) => m.tsUnix >= dayStartUnix('2022-03-15'),
    );
    check(
      { query: 'lease', limit: 200, endUnix: dayStartUnix('2022-03-31') },
      (m) => m.tsUnix <= dayStartUnix('2022-03-31'),
    );
    check({ query: 'lease', limit: 200, hasAttachment: true }, (m) => m.attachments.length > 0);
    check({ query: 'lease', limit: 200, hasLink: true }, (m) => m.links.length > 0);
    assert.equal(a.searchKeyword({ query: 'maps', limit: 50, hasLink: true }).length > 0, true);
    assert.equal(a.searchKeyword({ query: 'lease', limit: 2 }).length, 2);
  });

  it('hostile input never raises an FTS5 error', () => {
    const inputs = [
      '"',
      'lease OR',
      'lease)',
      '*',
      'NEAR(',
      '^foo',
      '""',
      '  ',
      'a"b',
      'body:lease',
      'col:value',
      '(((',
      'AND',
      'NOT lease',
      '-minus',
      '+',
      '\0',
      'x\0y',
      '\ud800',
      '\udfff\ud800',
      "'; DROP TABLE messages; --",
      '"quoted" AND NEAR(x y) OR lease* ^start -minus col:value',
      '\u0002\u0003',
      '🥶',
      '{body}: x',
      '?',
      '$',
      '\\',
    ];
    for (const q of inputs) {
      assert.doesNotThrow(() => a.searchKeyword({ query: q, limit: 10 }), JSON.stringify(q));
    }
    assert.deepEqual(a.searchKeyword({ query: ' \t ', limit: 10 }), []);
    // Property: any string (with FTS5 syntax, control chars, lone surrogates) searches without error.
    const piece = fc.oneof(
      fc.constantFrom(
        '"',
        '*',
        '(',
        ')',
        'NEAR',
        'OR',
        'AND',
        'NOT',
        ':',
        '^',
        '-',
        '+',
        '\0',
        '\ud800',
        '\udc00',
        ' ',
        '\u3000',
        'body:',
        '{',
        '}',
        ',',
        "'",
        '\\',
      ),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.constantFrom('lease', 'café', '東京', 'the'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
        const q = parts.join('');
        const hits = a.searchKeyword({ query: q, limit: 5 });
        return Array.isArray(hits) && (buildFtsQuery(q) !== '' || hits.length === 0);
      }),
      { numRuns: 300, seed: 42 },
    );
    assert.ok(ids(a.searchKeyword({ query: 'NEAR(x', limit: 10 })).includes(desc.marks.ftsSyntax.id));
  });
});

describe('context', () => {
  it('msgbrowse GetContext: window before (incl. target) and after, chronological, within the conversation', () => {
    const cid = convId('signal', 'Group Trip');
    const all = msgsOf(cid);
    for (const [idx, w] of [
      [0, 3],
      [10, 5],
      [all.length - 1, 2],
      [5, 0],
    ] as const) {
      const target = all[idx];
      const want = all.slice(Math.max(0, idx - w), idx + w + 1);
      assert.deepEqual(ids(a.context(target.id, w) ?? []), ids(want), `idx ${idx} w ${w}`);
    }
    assert.deepEqual(ids(a.context(all[3].id, -4) ?? []), [all[3].id]);
    assert.equal(a.context(987654, 5), undefined);
  });

  it('same-second neighbours are ordered by id', () => {
    const ctx = a.context(desc.marks.sameSecondA.id, 1) ?? [];
    assert.deepEqual(ids(ctx).slice(-2), [desc.marks.sameSecondA.id, desc.marks.sameSecondB.id]);
  });
});

describe('attachments', () => {
  const allAtts = () => desc.messages.flatMap((m) => m.attachments.map((att) => ({ att, m })));

  it('kinds, newest first (ts_unix DESC, id DESC), fields, hasMore pagination by limit', () => {
    const want = allAtts()
      .filter((x) => x.att.kind === 'image')
      .sort((p, q) => q.att.tsUnix - p.att.tsUnix || q.att.id - p.att.id);
    const got = a.attachments({ kinds: ['image'], limit: 1000 });
    assert.equal(got.hasMore, false);
    assert.deepEqual(
      ids(got.items),
      want.map((x) => x.att.id),
    );
    const first = got.items[0];
    const w = want[0];
    assert.deepEqual(first, {
      id: w.att.id,
      messageId: w.m.id,
      conversationId: w.m.conversationId,
      conversation: w.m.conversation,
      source: w.m.source,
      kind: 'image',
      relPath: w.att.relPath,
      originalName: w.att.originalName,
      ts: w.m.ts,
      tsUnix: w.m.tsUnix,
      messageHash: w.m.hash,
    });
    for (const x of got.items)
      assert.equal(
        x.messageHash,
        desc.messages.find((m) => m.id === x.messageId)?.hash,
        'each attachment carries its message hash',
      );
    const page = a.attachments({ kinds: ['image'], limit: 3 });
    assert.equal(page.hasMore, true);
    assert.deepEqual(
      ids(page.items),
      want.slice(0, 3).map((x) => x.att.id),
    );
    const videos = a.attachments({ kinds: ['video'], limit: 100 });
    assert.deepEqual(
      videos.items.map((v) => v.originalName).sort(),
      allAtts()
        .filter((x) => x.att.kind === 'video')
        .map((x) => x.att.originalName)
        .sort(),
    );
    const mixed = a.attachments({ kinds: ['image', 'file', 'video'], limit: 1000 });
    assert.equal(mixed.items.length, allAtts().length);
  });

  it('filters: conversation, source, dates', () => {
    const harper = convId('signal', 'Harper');
    assert.deepEqual(
      a.attachments({ kinds: ['image'], conversationId: harper, limit: 10 }).items.map((x) => x.originalName),
      ['cabin.jpg'],
    );
    assert.deepEqual(
      a.attachments({ kinds: ['image'], source: 'imessage', limit: 10 }).items.map((x) => x.originalName),
      ['IMG_0042.jpeg'],
    );
    assert.deepEqual(
      a
        .attachments({ kinds: ['image'], endUnix: dayStartUnix('2022-03-02') - 1, limit: 10 })
        .items.map((x) => x.originalName),
      allAtts()
        .filter((x) => x.att.kind === 'image' && x.att.tsUnix < dayStartUnix('2022-03-02'))
        .sort((p, q) => q.att.tsUnix - p.att.tsUnix)
        .map((x) => x.att.originalName),
    );
    assert.equal(a.attachments({ kinds: ['image'], source: 'telegram', limit: 10 }).items.length, 0);
  });
});

describe('links', () => {
  type Agg = {
    url: string;
    domain: string;
    count: number;
    first: { tsUnix: number; messageId: number; m: WrittenMessage };
  };
  const oracle = (pred: (l: { domain: string; conversationId: number }) => boolean = () => true): Agg[] => {
    const map = new Map<string, Agg>();
    for (const m of desc.messages) {
      for (const l of m.links) {
        if (!pred(l)) continue;
        const cur = map.get(l.url);
        if (!cur)
          map.set(l.url, { url: l.url, domain: l.domain, count: 1, first: { tsUnix: l.tsUnix, messageId: m.id, m } });
        else {
          cur.count++;
          if (l.tsUnix < cur.first.tsUnix || (l.tsUnix === cur.first.tsUnix && m.id < cur.first.messageId))
            cur.first = { tsUnix: l.tsUnix, messageId: m.id, m };
        }
      }
    }
    return [...map.values()].sort(
      (x, y) =>
        (x.domain < y.domain ? -1 : x.domain > y.domain ? 1 : 0) ||
        y.count - x.count ||
        x.first.tsUnix - y.first.tsUnix ||
        (x.url < y.url ? -1 : x.url > y.url ? 1 : 0),
    );
  };

  it('one row per URL: count, earliest occurrence, order domain/count/ts/url, fields', () => {
    const want = oracle();
    const got = a.links({ limit: 1000 });
    assert.equal(got.hasMore, false);
    assert.deepEqual(
      got.items.map((l) => [l.url, l.count, l.messageId, l.messageHash]),
      want.map((w) => [w.url, w.count, w.first.messageId, w.first.m.hash]),
    );
    const maps = got.items.find((l) => l.url === 'https://maps.example.com/a');
    assert.deepEqual(maps, {
      url: 'https://maps.example.com/a',
      domain: 'maps.example.com',
      count: 2,
      messageId: desc.marks.linkMapsFirst.id,
      messageHash: desc.marks.linkMapsFirst.hash,
      conversationId: convId('signal', 'Harper'),
      conversation: 'Harper',
      source: 'signal',
      ts: '2022-03-01 09:04:00',
      tsUnix: desc.marks.linkMapsFirst.tsUnix,
    });
  });

  it('domain filter includes subdomains (and is normalised), pagination with limit+1', () => {
    const got = a.links({ domain: 'example.com', limit: 1000 }).items;
    const want = oracle((l) => l.domain === 'example.com' || l.domain.endsWith('.example.com'));
    assert.deepEqual(
      got.map((l) => l.url),
      want.map((w) => w.url),
    );
    assert.ok(got.some((l) => l.domain === 'maps.example.com'));
    assert.ok(!got.some((l) => l.domain === 'evil.example'));
    assert.deepEqual(
      a.links({ domain: 'WWW.Example.COM', limit: 1000 }).items.map((l) => l.url),
      got.map((l) => l.url),
    );
    assert.deepEqual(a.links({ domain: 'ample.com', limit: 1000 }).items, [], 'suffix must be a whole label');
    const p1 = a.links({ limit: 2 });
    assert.equal(p1.hasMore, true);
    assert.deepEqual(
      p1.items.map((l) => l.url),
      oracle()
        .slice(0, 2)
        .map((w) => w.url),
    );
  });

  it('conversation and source filters count only the scoped occurrences', () => {
    const gt = convId('signal', 'Group Trip');
    const got = a.links({ conversationId: gt, limit: 1000 }).items;
    assert.deepEqual(
      got.map((l) => [l.url, l.count]),
      oracle((l) => l.conversationId === gt).map((w) => [w.url, w.count]),
    );
    const wa = a.links({ source: 'whatsapp', limit: 1000 }).items;
    assert.deepEqual(
      wa.map((l) => [l.url, l.count]),
      [['https://recipes.example.com/tiramisu', 2]],
    );
  });
});

describe('point lookups', () => {
  it('messageById, messageByHash, hitMessagesBundle messages (input order, unknown skipped)', () => {
    const m = desc.marks.longBody;
    const row = a.messageById(m.id);
    assert.equal(row?.body, m.body);
    assert.ok((row?.body.length ?? 0) > 20000);
    assert.deepEqual(a.messageByHash(m.hash), row);
    assert.equal(a.messageById(-1), undefined);
    assert.equal(a.messageByHash('nope'), undefined);
    const want = [desc.marks.cjk.id, desc.marks.leaseAgreement.id, 424242, desc.marks.emoji.id];
    assert.deepEqual(ids(a.hitMessagesBundle(want).messages), [
      desc.marks.cjk.id,
      desc.marks.leaseAgreement.id,
      desc.marks.emoji.id,
    ]);
    assert.deepEqual(a.hitMessagesBundle([]).messages, []);
  });

  it("hitExtras: the messages' attachments and reactions", () => {
    const atts = a.hitExtras([], [desc.marks.imageCabin.id, desc.marks.fileLease.id, desc.marks.cjk.id]).attachments;
    assert.deepEqual(
      atts.map((x) => x.originalName),
      ['cabin.jpg', 'lease.pdf'],
    );
    const r = a.hitExtras([desc.marks.reactionTarget.hash, desc.marks.whatsappVideo.hash, 'none'], []).reactions;
    assert.deepEqual(
      r.map((x) => `${x.messageHash === desc.marks.reactionTarget.hash ? 'T' : 'V'}:${x.emoji}:${x.actor}`).sort(),
      ['T:❤️:Me', 'T:👍:Harper', 'T:👍:Me', 'V:😂:Me'],
    );
    assert.deepEqual(a.hitExtras([], []), { reactions: [], attachments: [] });
  });
});

describe('searchKeywordBundle', () => {
  it('is searchKeyword + hitExtras of its hits + scopeCounts, in one call, also with conversations hidden', () => {
    const m = desc.marks;
    const hidden = desc.conversations.find((c) => c.id === m.reactionTarget.conversationId)!;
    const cases: [
      Parameters<Archive['searchKeyword']>[0],
      Parameters<Archive['scopeCounts']>[0],
      string | undefined,
    ][] = [
      [{ query: 'the', limit: 50 }, {}, undefined],
      [{ query: 'the', limit: 50 }, {}, 'test-embed'],
      [
        { query: 'lease', limit: 5, conversationId: m.leaseAgreement.conversationId },
        { conversationId: m.leaseAgreement.conversationId },
        'other-embed',
      ],
      [{ query: 'the', limit: 20, hasAttachment: true }, { hasAttachment: true }, undefined],
      [{ query: 'zzzz-nothing', limit: 5 }, { sender: 'Me' }, 'test-embed'],
    ];
    let withExtras = 0;
    for (const view of [a, a.excluding([{ name: hidden.name, source: hidden.source }])]) {
      for (const [opts, scope, model] of cases) {
        const hits = view.searchKeyword(opts);
        const extras = view.hitExtras(
          hits.map((h) => h.hash),
          [...new Set(hits.map((h) => h.id))],
        );
        withExtras += extras.reactions.length + extras.attachments.length;
        assert.deepEqual(
          view.searchKeywordBundle(opts, scope, model),
          { hits, extras, counts: view.scopeCounts(scope, model) },
          JSON.stringify([opts, scope, model]),
        );
      }
    }
    assert.ok(withExtras > 0, 'some hits carry reactions or attachments');
    const noScope = a.searchKeywordBundle({ query: 'the', limit: 5 });
    assert.equal(noScope.counts, undefined, 'without a scope nothing is counted');
    assert.deepEqual(noScope.hits, a.searchKeyword({ query: 'the', limit: 5 }));
  });
});

describe('hitMessagesBundle', () => {
  it("is messageById of each id + hitExtras of those messages + scopeCounts, in one call; a hidden conversation's messages and extras are left out", () => {
    const m = desc.marks;
    const hidden = desc.conversations.find((c) => c.id === m.reactionTarget.conversationId)!;
    const ids = [m.reactionTarget.id, m.imageCabin.id, 987654, m.fileLease.id, m.leaseAgreement.id, m.imageCabin.id];
    const cases: [number[], Parameters<Archive['scopeCounts']>[0] | undefined, string | undefined][] = [
      [ids, undefined, undefined],
      [ids, {}, 'test-embed'],
      [ids, { conversationId: m.leaseAgreement.conversationId }, 'other-embed'],
      [[], { sender: 'Me' }, 'test-embed'],
    ];
    let withExtras = 0;
    for (const view of [a, a.excluding([{ name: hidden.name, source: hidden.source }])]) {
      for (const [ask, scope, model] of cases) {
        const messages = [...new Set(ask)].flatMap((id) => view.messageById(id) ?? []);
        const extras = view.hitExtras(
          messages.map((x) => x.hash),
          [...new Set(messages.map((x) => x.id))],
        );
        withExtras += extras.reactions.length + extras.attachments.length;
        const got = view.hitMessagesBundle(ask, scope, model);
        assert.deepEqual(
          got,
          { messages, extras, ...(scope ? { counts: view.scopeCounts(scope, model) } : {}) },
          JSON.stringify([ask, scope, model]),
        );
      }
    }
    assert.ok(withExtras > 0, 'some messages carry reactions or attachments');
    const shown = a.excluding([{ name: hidden.name, source: hidden.source }]).hitMessagesBundle([m.reactionTarget.id]);
    assert.deepEqual(
      shown,
      { messages: [], extras: { reactions: [], attachments: [] } },
      "a hidden conversation's message answers as an unknown id",
    );
    assert.ok(
      a.hitMessagesBundle([m.reactionTarget.id]).extras.reactions.length > 0,
      'that message has reactions when shown',
    );
  });
});

describe('embeddings', () => {
  it('embeddingModels: model, count (orphans included), dim', () => {
    assert.deepEqual(
      a.embeddingModels(),
      [...desc.embeddings]
        .sort((x, y) => (x.model < y.model ? -1 : 1))
        .map((e) => ({ model: e.model, count: e.count, dim: e.dim })),
    );
  });

  it('embeddingModels: one model (its count from the row count), then a second model written into the open archive', async () => {
    const file = archivePathIn(path.join(tmp, 'one-model'));
    const conv = {
      source: 'signal',
      name: 'Ada',
      messages: [0, 1, 2, 3, 4].map((i) => ({
        sender: i % 2 ? 'Ada' : 'Me',
        body: `message number ${i}`,
        ts: `2025-03-0${i + 1} 10:00:00`,
      })),
    };
    const built = buildArchive({
      file,
      conversations: [conv],
      embeddings: [{ model: 'zeta-embed', dim: 6, orphans: [{ hash: 'f'.repeat(64), text: 'gone' }] }],
    });
    const one = await openArchive(file);
    try {
      assert.deepEqual(one.embeddingModels(), [{ model: 'zeta-embed', count: built.embeddings[0].count, dim: 6 }]);
      assert.equal(built.embeddings[0].count, 6, 'five messages and one orphan');
      // A second, smaller model sorts first by name: the grouped path (names ascending, each its own dim).
      const db = openWritable(file);
      try {
        const w = new ArchiveWriter(db);
        for (const m of built.messages.slice(0, 2)) w.putEmbedding(m.hash, 'alpha-embed', new Float32Array([1, 0, 0]));
      } finally {
        db.close();
      }
      assert.deepEqual(one.embeddingModels(), [
        { model: 'alpha-embed', count: 2, dim: 3 },
        { model: 'zeta-embed', count: 6, dim: 6 },
      ]);
    } finally {
      one.close();
    }
  });

  it('streams decoded float32 vectors joined to messages (orphans skipped)', () => {
    const facts = desc.embeddings.find((e) => e.model === 'test-embed');
    assert.ok(facts);
    const it = a.embeddings('test-embed');
    const recs: EmbeddingRecord[] = [...it];
    assert.equal(recs.length, facts.count - facts.orphanHashes.length);
    assert.ok(!recs.some((r) => facts.orphanHashes.includes(r.hash)));
    const db = openWritable(desc.path);
    try {
      const stmt = db.prepare('SELECT vec FROM embeddings WHERE model = ? AND message_hash = ?');
      for (const r of recs.slice(0, 20)) {
        const m = desc.messages.find((x) => x.hash === r.hash) as WrittenMessage;
        assert.equal(r.messageId, m.id);
        assert.equal(r.conversationId, m.conversationId);
        assert.equal(r.tsUnix, m.tsUnix);
        assert.equal(r.sender, m.sender);
        assert.equal(r.source, m.source);
        const blob = (stmt.get('test-embed', r.hash) as { vec: Buffer }).vec;
        assert.deepEqual([...r.vec], [...decodeVector(blob)]);
        assert.equal(r.vec.length, 8);
      }
    } finally {
      db.close();
    }
    assert.deepEqual([...a.embeddings('no-such-model')], []);
  });
});

/**
 * The curated archive built under `name` and damaged by `damage` (through a writable handle, closed before anything
 * reads it), then open in our engine and natively with its schema: `gone` is what `damage` says was lost.
 */
async function damagedArchive<T>(name: string, damage: (db: ReturnType<typeof openWritable>) => T) {
  const d = buildCuratedArchive(path.join(tmp, name));
  const db = openWritable(d.path);
  let gone: T;
  try {
    gone = damage(db);
  } finally {
    db.close();
  }
  const archive = await openArchive(d.path);
  const native = openWritable(d.path);
  return {
    archive,
    native,
    schema: detectSchema(nativeSql(native)),
    gone,
    close: () => {
      native.close();
      archive.close();
    },
  };
}

describe('keyword search over a stale full-text index', () => {
  // Index rows whose message was deleted behind the triggers' back (the snippet has nothing to quote), or whose
  // message lost its conversation (joined, then dropped): both only the general statement (join, then rank) answers.
  const damages = {
    'messages deleted': (db: ReturnType<typeof openWritable>, ranked: number[]) => {
      db.exec('DROP TRIGGER messages_ad');
      db.prepare('DELETE FROM messages WHERE id IN (?, ?)').run(ranked[0], ranked[2]);
      return [ranked[0], ranked[2]];
    },
    'a conversation deleted': (db: ReturnType<typeof openWritable>, ranked: number[]) => {
      db.pragma('foreign_keys = OFF');
      const conv = (
        db.prepare('SELECT conversation_id AS c FROM messages WHERE id = ?').get(ranked[1]) as { c: number }
      ).c;
      db.prepare('DELETE FROM conversations WHERE id = ?').run(conv);
      return (db.prepare('SELECT id FROM messages WHERE conversation_id = ?').all(conv) as { id: number }[]).map(
        (r) => r.id,
      );
    },
  };
  it('on a healthy archive the ranked-first statement answers alone: the general one never runs', async () => {
    const conn = new ArchiveConnection(await loadEngine(), desc.path);
    try {
      for (const [query, limit] of [
        ['the', 5],
        ['the', 1000],
        ['lease', 50],
        ['zzzqqq', 5],
      ] as const) {
        let ran: string[] = [];
        const hits = conn.run((sql) => {
          const recording = recordingSql(sql);
          const found = searchKeyword(recording.sql, detectSchema(sql), { query, limit });
          ran = recording.ran.map((r) => r.q);
          return found;
        });
        assert.ok(
          ran.some((q) => q.includes('m.id = t.rid')),
          `${query}/${limit}: ranked first`,
        );
        assert.ok(
          !ran.some((q) => q.includes('m.id = messages_fts.rowid')),
          `${query}/${limit}: the general statement ran: ${ran.length} statements`,
        );
        assert.deepEqual(
          hits.map((h) => h.id),
          a.searchKeyword({ query, limit }).map((h) => h.id),
        );
      }
    } finally {
      conn.close();
    }
  });

  for (const [kind, damage] of Object.entries(damages)) {
    it(`${kind}: the best-ranked index rows without one give the general statement's answer, row for row`, async () => {
      const word = 'the';
      const {
        archive: b,
        native,
        schema,
        gone,
        close,
      } = await damagedArchive(`stale-fts-${kind.replace(/ /g, '-')}`, (db) => {
        const ranked = (
          db
            .prepare('SELECT rowid AS id FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank, rowid')
            .all(buildFtsQuery(word)) as { id: number }[]
        ).map((r) => r.id);
        assert.ok(ranked.length > 12, 'the word is common in the fixture');
        return damage(db, ranked);
      });
      try {
        assert.ok(gone.length > 0);
        for (const limit of [1, 2, 4, 5, 10, 1000]) {
          const q = keywordSearchSql(schema, { query: word, limit });
          assert.ok(q);
          const want = (native.prepare(q.sql).all(...q.params) as { id: number; snippet: string; rank: number }[]).map(
            (r) => [r.id, r.snippet, r.rank],
          );
          const got = b.searchKeyword({ query: word, limit }).map((h) => [h.id, h.snippet, h.rank]);
          assert.deepEqual(got, want, `limit ${limit}`);
          assert.ok(!got.some(([id]) => gone.includes(id as number)));
          assert.equal(got.length, Math.min(limit, want.length));
        }
      } finally {
        close();
      }
    });
  }
});

describe('the link gallery over a damaged archive', () => {
  it("links whose message or conversation is gone give the general statement's answer, row for row", async () => {
    const {
      archive: b,
      native,
      schema,
      gone,
      close,
    } = await damagedArchive('dangling-links', (db) => {
      db.pragma('foreign_keys = OFF');
      // The gallery's first rows (domain, then most shared): the first URL loses its first message, the third
      // URL's first message loses its conversation.
      const top = db
        .prepare(
          `SELECT url, (SELECT message_id FROM links x WHERE x.url = l.url ORDER BY ts_unix, message_id, id LIMIT 1) AS first
           FROM links l GROUP BY url ORDER BY domain, count(*) DESC, min(ts_unix), url LIMIT 3`,
        )
        .all() as { url: string; first: number }[];
      assert.equal(top.length, 3, 'the fixture has links');
      db.prepare('DELETE FROM messages WHERE id = ?').run(top[0].first);
      const conv = (
        db.prepare('SELECT conversation_id AS c FROM messages WHERE id = ?').get(top[2].first) as { c: number }
      ).c;
      db.prepare('DELETE FROM conversations WHERE id = ?').run(conv);
      return [top[0].url, top[2].url];
    });
    try {
      for (const opts of [
        { limit: 1 },
        { limit: 2 },
        { limit: 5 },
        { limit: 1000 },
        { limit: 3, domain: 'example.com' },
      ]) {
        const q = linkStatements(schema, opts);
        const want = (
          native.prepare(q.general).all(...q.params) as { url: string; cnt: number; message_id: number }[]
        ).map((r) => [r.url, r.cnt, r.message_id]);
        const got = b.links(opts);
        assert.deepEqual(
          got.items.map((l) => [l.url, l.count, l.messageId]),
          want.slice(0, opts.limit),
          JSON.stringify(opts),
        );
        assert.equal(got.hasMore, want.length > opts.limit);
        assert.ok(!got.items.some((l) => gone.includes(l.url)));
      }
    } finally {
      close();
    }
  });
});

describe('the media gallery over a damaged archive', () => {
  it("attachments whose message or conversation is gone give the general statement's answer, row for row", async () => {
    const {
      archive: b,
      native,
      schema,
      gone,
      close,
    } = await damagedArchive('dangling-media', (db) => {
      db.pragma('foreign_keys = OFF');
      const newest = db
        .prepare(
          'SELECT id, message_id AS mid, conversation_id AS cid FROM attachments ORDER BY ts_unix DESC, id DESC LIMIT 3',
        )
        .all() as { id: number; mid: number; cid: number }[];
      assert.equal(newest.length, 3, 'the fixture has attachments');
      db.prepare('DELETE FROM messages WHERE id = ?').run(newest[0].mid);
      db.prepare('DELETE FROM conversations WHERE id = ?').run(newest[2].cid);
      return [
        newest[0].id,
        ...(
          db.prepare('SELECT id FROM attachments WHERE conversation_id = ?').all(newest[2].cid) as { id: number }[]
        ).map((r) => r.id),
      ];
    });
    try {
      const cases = [
        { kinds: [], limit: 1 },
        { kinds: [], limit: 3 },
        { kinds: [], limit: 1000 },
        { kinds: ['image' as const], limit: 2 },
      ];
      for (const opts of cases) {
        const q = attachmentStatements(schema, opts);
        assert.ok(q.lateJoin, 'this schema takes the late-join path');
        const want = (native.prepare(q.general).all(...q.params) as { id: number }[]).map((r) => r.id);
        const got = b.attachments(opts);
        assert.deepEqual(
          got.items.map((x) => x.id),
          want.slice(0, opts.limit),
          JSON.stringify(opts),
        );
        assert.equal(got.hasMore, want.length > opts.limit);
        assert.ok(!got.items.some((x) => gone.includes(x.id)));
      }
    } finally {
      close();
    }
  });
});

describe('the embeddings ⋈ messages join of an index build', () => {
  it("is SQL's `m.hash = e.message_hash`, row for row: an orphan joins to nothing, nor does a BLOB holding a TEXT hash's bytes", async () => {
    const d = buildMsgbrowseMcpFixture(path.join(tmp, 'collide'));
    const db = openWritable(d.path);
    const model = 'test-embed';
    let x = '';
    try {
      const embedded = db
        .prepare(
          'SELECT m.id, m.hash FROM embeddings e JOIN messages m ON m.hash = e.message_hash WHERE e.model = ? ORDER BY m.id',
        )
        .all(model) as { id: number; hash: string }[];
      assert.ok(embedded.length >= 1, 'the fixture embeds messages');
      x = embedded[0].hash;
      // An embedding whose hash no message has: an orphan.
      new ArchiveWriter(db).putRawEmbedding('f'.repeat(64), model, 8, Buffer.alloc(32));
      // The same bytes as an existing TEXT hash, stored as a BLOB: SQL's join does not match it, so neither may we.
      db.prepare('INSERT INTO embeddings(message_hash, model, dim, vec) VALUES (?, ?, 8, ?)').run(
        Buffer.from(x),
        model,
        Buffer.alloc(32),
      );
    } finally {
      db.close();
    }
    const native = openWritable(d.path);
    let expected: { rowid: number; id: number; hash: string; vec: number[] }[];
    try {
      expected = (
        native
          .prepare(
            'SELECT e.rowid AS rowid, m.id AS id, m.hash AS hash, e.vec AS vec FROM embeddings e JOIN messages m ON m.hash = e.message_hash WHERE e.model = ? ORDER BY e.rowid',
          )
          .all(model) as { rowid: number; id: number; hash: string; vec: Buffer }[]
      ).map((r) => ({ ...r, vec: [...decodeVector(r.vec)] }));
    } finally {
      native.close();
    }
    const b = await openArchive(d.path);
    try {
      const got = [...b.embeddings(model)].map((r) => ({
        rowid: r.rowid,
        id: r.messageId,
        hash: r.hash,
        vec: [...r.vec],
      }));
      assert.deepEqual(got, expected);
      assert.equal(got.filter((r) => r.hash === x).length, 1, `the message hashed ${x} keeps its one embedding`);
    } finally {
      b.close();
    }
  });
});

describe('damaged embeddings', () => {
  it('a blob whose length is not dim×4 raises bad_embedding naming hash and model; iteration can continue past it', async () => {
    const d = buildMsgbrowseMcpFixture(path.join(tmp, 'badvec'));
    const db = openWritable(d.path);
    try {
      new ArchiveWriter(db).putRawEmbedding(d.marks.link.hash, 'test-embed', 2, Buffer.alloc(7));
    } finally {
      db.close();
    }
    const b = await openArchive(d.path);
    try {
      const it = b.embeddings('test-embed');
      const got: number[] = [];
      const errors: ArchiveError[] = [];
      for (;;) {
        let r: IteratorResult<EmbeddingRecord>;
        try {
          r = it.next();
        } catch (e) {
          assert.ok(e instanceof ArchiveError);
          errors.push(e);
          continue;
        }
        if (r.done) break;
        got.push(r.value.messageId);
      }
      assert.equal(errors.length, 1);
      assert.equal(errors[0].code, 'bad_embedding');
      assert.ok(
        errors[0].message.includes(d.marks.link.hash) && errors[0].message.includes('"test-embed"'),
        errors[0].message,
      );
      assert.match(errors[0].message, /7 bytes but dim 2 needs 8 bytes/);
      assert.deepEqual(got.sort(), [d.marks.lease.id, d.marks.photo.id].sort(), 'the healthy rows are still delivered');
      assert.throws(
        () => [...b.embeddings('test-embed')],
        (e: unknown) => e instanceof ArchiveError && e.code === 'bad_embedding',
      );
    } finally {
      b.close();
    }
  });
});

describe('summary and async adapter', () => {
  it('summary: counts, sources, first/last, models, fingerprint', () => {
    const s = a.summary();
    assert.equal(s.path, desc.path);
    assert.equal(s.schemaVersion, 20);
    assert.equal(s.conversations, desc.conversations.length);
    assert.equal(s.messages, desc.messages.length);
    const perSource: Record<string, number> = {};
    for (const c of desc.conversations) perSource[c.source] = (perSource[c.source] ?? 0) + c.messageCount;
    assert.deepEqual(s.sources, perSource);
    const sorted = [...desc.messages].sort(byTsId);
    assert.equal(s.firstTs, sorted[0].ts);
    assert.equal(s.lastTs, sorted[sorted.length - 1].ts);
    assert.deepEqual(s.embeddingModels, a.embeddingModels());
    assert.match(s.fingerprint, /^\d+:\d+:\d+\|/);
    assert.equal(a.summary().fingerprint, s.fingerprint, 'stable while nothing changes');
  });

  it('inThread: same answers as promises; an aborted signal rejects before running', async () => {
    const aa = inThread(a);
    assert.equal(aa.path, a.path);
    assert.deepEqual(await aa.listConversations(), a.listConversations());
    assert.deepEqual(
      await aa.searchKeyword({ query: 'lease', limit: 5 }),
      a.searchKeyword({ query: 'lease', limit: 5 }),
    );
    assert.deepEqual(await aa.context(desc.marks.leaseAgreement.id, 2), a.context(desc.marks.leaseAgreement.id, 2));
    const ctl = new AbortController();
    assert.deepEqual(await aa.resolveConversation('Harper', undefined, ctl.signal), a.resolveConversation('Harper'));
    ctl.abort();
    await assert.rejects(aa.summary(ctl.signal), (e: unknown) => e instanceof Error && e.name === 'AbortError');
  });
});

describe('msgbrowse §10 MCP fixture', () => {
  it('seedStore expectations', async () => {
    const d = buildMsgbrowseMcpFixture(path.join(tmp, 'mcp'));
    const b = await openArchive(d.path);
    try {
      const convs = b.listConversations();
      assert.equal(convs.length, 1);
      assert.deepEqual(
        {
          n: convs[0].messageCount,
          f: convs[0].firstTs,
          l: convs[0].lastTs,
          i: convs[0].images,
          fi: convs[0].files,
          li: convs[0].links,
        },
        { n: 3, f: '2022-03-01 09:00:00', l: '2022-03-01 09:02:00', i: 1, fi: 0, li: 1 },
      );
      assert.deepEqual(ids(b.searchKeyword({ query: 'lease', limit: 20 })), [d.marks.lease.id]);
      assert.equal(
        b.searchKeyword({ query: 'lease', limit: 20 })[0].snippet,
        'the \u0002lease\u0003 agreement is ready',
      );
      assert.deepEqual(ids(b.context(d.marks.lease.id, 1) ?? []), [d.marks.lease.id, d.marks.link.id]);
      assert.deepEqual(
        b.links({ domain: 'maps.example.com', limit: 10 }).items.map((l) => [l.url, l.count, l.ts, l.messageId]),
        [['https://maps.example.com/x', 1, '2022-03-01 09:01:00', d.marks.link.id]],
      );
      assert.deepEqual(
        b
          .attachments({ kinds: ['image'], limit: 10 })
          .items.map((x) => [x.conversation, x.source, x.kind, x.originalName, x.relPath, x.ts, x.messageId]),
        [['Harper', 'signal', 'image', 'p.jpg', 'media/p.jpg', '2022-03-01 09:02:00', d.marks.photo.id]],
      );
    } finally {
      b.close();
    }
  });
});
