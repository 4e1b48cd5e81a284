/**
 * The link gallery's grouped statement (what `links()` runs) against its definition, the window statement
 * (`general`), both run natively over random link tables: URLs shared across messages and conversations, a URL whose
 * rows disagree on its domain, NULL domains and times where a hand-made archive allows them, ties in time broken by
 * message id and then link id, links whose conversation is gone, every filter and hidden conversations. Both schema
 * shapes: links with their own conversation and time (v8+), and links that take them from their message (pre-v7).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import type { Param } from '../../src/archive/connection';
import { domainsPast, links, linkStatements } from '../../src/archive/queries/links';
import { detectSchema } from '../../src/archive/schema';
import type { LinkOptions } from '../../src/archive/types';
import { nativeSql } from '../fixtures/native-sql';

interface Msg {
  conv: number;
  ts: number | null;
}
interface Link {
  msg: number;
  url: string;
  domain: string | Buffer | null;
  conv: number;
  ts: number | null;
}

const msgArb = fc.record({ conv: fc.integer({ min: 1, max: 3 }), ts: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 6 }) });
const linkArb = (messages: number) =>
  fc.record({
    msg: fc.integer({ min: 1, max: messages }),
    url: fc.constantFrom('https://a.example/1', 'https://a.example/2', 'https://b.example/', 'http://y.org/x', 'weird'),
    // Several domains, so that the broad listings look at more than one domain; a blob sorts after every text.
    domain: fc.option(fc.constantFrom<string | Buffer>('', 'a.example', 'x.a.example', 'b.example', 'c.example', 'd.example', 'y.org', 'z.net', Buffer.from('blob.example')), { freq: 8 }),
    // Conversation 4 does not exist: such a link's first occurrence cannot be joined (the fallback's case). Rare, so
    // that most cases check the grouped statement's own rows.
    conv: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 3 }), weight: 15 }, { arbitrary: fc.constant(4), weight: 1 }),
    ts: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 6 }),
  });
const archiveArb = fc
  .array(msgArb, { minLength: 1, maxLength: 10 })
  .chain((msgs) =>
    fc.record({ msgs: fc.constant(msgs), links: fc.array(linkArb(msgs.length), { maxLength: 40, size: 'medium' }), ownColumns: fc.boolean(), domainNotNull: fc.boolean() }),
  )
  // Where domain is NOT NULL (every msgbrowse archive), broad listings go domain by domain.
  .map((a) => (a.domainNotNull ? { ...a, links: a.links.map((l) => ({ ...l, domain: l.domain ?? 'a.example' })) } : a));
// Each filter in one case of four, so that most cases still have rows to compare.
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: arb, weight: 1 });
const optsArb: fc.Arbitrary<{ opts: LinkOptions; hidden: number[] }> = fc.record({
  opts: fc
    .record({
      limit: fc.integer({ min: 1, max: 8 }),
      domain: maybe(fc.constantFrom('a.example', 'b.example', 'y.org', 'x.a.example')),
      conversationId: maybe(fc.integer({ min: 1, max: 4 })),
      source: maybe(fc.constantFrom('signal', 'whatsapp')),
      startUnix: maybe(fc.integer({ min: 0, max: 3 })),
      endUnix: maybe(fc.integer({ min: 0, max: 3 })),
    })
    .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as unknown as LinkOptions),
  hidden: maybe(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 2 })).map((h) => h ?? []),
});

/**
 * An archive with only what the gallery reads; no NOT NULL on the columns a hand-made archive might leave empty
 * (the domain's, as msgbrowse declares it, when `domainNotNull`).
 */
function build(a: { msgs: Msg[]; links: Link[]; ownColumns: boolean; domainNotNull: boolean }): Database.Database {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE conversations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL);
    CREATE TABLE messages (id INTEGER PRIMARY KEY, conversation_id INTEGER NOT NULL, ts TEXT, ts_unix INTEGER, hash TEXT);
    CREATE TABLE links (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL, url TEXT NOT NULL, domain TEXT${a.domainNotNull ? ' NOT NULL' : ''}
      ${a.ownColumns ? ', conversation_id INTEGER, ts_unix INTEGER' : ''});
    CREATE INDEX idx_links_message ON links(message_id);
    CREATE INDEX idx_links_domain ON links(domain);
    ${a.ownColumns ? 'CREATE INDEX idx_links_gallery ON links(url, ts_unix, domain, conversation_id, message_id);' : ''}`);
  for (const [id, source] of [[1, 'signal'], [2, 'whatsapp'], [3, 'signal']] as const) {
    db.prepare('INSERT INTO conversations VALUES (?, ?, ?)').run(id, `c${id}`, source);
  }
  a.msgs.forEach((m, i) => db.prepare('INSERT INTO messages VALUES (?, ?, ?, ?, ?)').run(i + 1, m.conv, `t${m.ts}`, m.ts, `h${i + 1}`));
  // Link ids out of insertion order, so the tie on (time, message) falls to the link id, not to the scan's order.
  a.links.forEach((l, i) => {
    const id = ((i * 7) % 31) + 1 + 31 * Math.floor(i / 31);
    if (a.ownColumns) db.prepare('INSERT INTO links VALUES (?, ?, ?, ?, ?, ?)').run(id, l.msg, l.url, l.domain, l.conv, l.ts);
    else db.prepare('INSERT INTO links VALUES (?, ?, ?, ?)').run(id, l.msg, l.url, l.domain);
  });
  return db;
}

const text = (v: unknown) => (v === null || v === undefined ? '' : v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : String(v));

describe("the link gallery's grouped statement", () => {
  it('gives the window statement\'s rows, in its order, for random links, filters and hidden conversations', () => {
    let joinedCases = 0;
    let allCases = 0;
    let rowCases = 0;
    let broadCases = 0;
    fc.assert(
      fc.property(archiveArb, fc.array(optsArb, { minLength: 1, maxLength: 4 }), (a, cases) => {
        const db = build(a);
        try {
          const sql = nativeSql(db);
          const schema = detectSchema(sql);
          assert.equal(schema.linkTsUnix, a.ownColumns);
          assert.equal(schema.linkDomainNotNull, a.domainNotNull);
          for (const { opts, hidden } of cases) {
            const q = linkStatements(schema, opts, hidden);
            const want = db.prepare(q.general).all(...q.params) as Record<string, unknown>[];
            const msg = JSON.stringify({ opts, hidden });
            const grouped = db.prepare(q.grouped).all(...q.groupedParams) as Record<string, unknown>[];
            allCases++;
            if (want.length > 1) rowCases++;
            if (q.upTo) broadCases++;
            // The grouped statement's own rows, when it could join them all (otherwise links() falls back).
            if (grouped.every((r) => r.joined === 1)) {
              joinedCases++;
              assert.deepEqual(grouped.map(({ joined: _j, ...r }) => r), want, msg);
            }
            const got = links(sql, schema, opts, hidden);
            assert.deepEqual(
              got.items.map((l) => [l.url, l.domain, l.count, l.messageId, l.conversationId, l.conversation, l.source, l.ts, l.tsUnix, l.messageHash]),
              want.slice(0, opts.limit).map((r) => [r.url, text(r.domain), r.cnt, r.message_id, r.conversation_id, r.conversation, r.source, r.ts ?? '', r.ts_unix ?? 0, r.message_hash ?? '']),
              msg,
            );
            assert.equal(got.hasMore, want.length > opts.limit, msg);
          }
        } finally {
          db.close();
        }
      }),
      { numRuns: 400 },
    );
    // The generator's reach, so that the property cannot pass by comparing empty answers.
    assert.ok(joinedCases > allCases * 0.7, `most cases check the grouped rows themselves (${joinedCases} of ${allCases})`);
    assert.ok(rowCases > allCases * 0.3, `many cases have several rows to order (${rowCases} of ${allCases})`);
    assert.ok(broadCases > allCases * 0.2, `many cases go domain by domain (${broadCases} of ${allCases})`);
  });

  it('groups in the gallery index\'s order and searches it for the first occurrences (no window, no sort of every link)', () => {
    const db = build({ msgs: [{ conv: 1, ts: 1 }], links: [], ownColumns: true, domainNotNull: true });
    try {
      const schema = detectSchema(nativeSql(db));
      const q = linkStatements(schema, { limit: 50 });
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${q.grouped}`).all(...q.groupedParams) as { detail: string }[]).map((r) => r.detail);
      assert.ok(plan.includes('SCAN l USING COVERING INDEX idx_links_gallery'), plan.join('\n'));
      assert.ok(plan.some((d) => /^SEARCH l USING COVERING INDEX idx_links_gallery \(url=\?/.test(d)), plan.join('\n'));
      assert.ok(!plan.some((d) => /GROUP BY/.test(d)), `the grouping needs no sort: ${plan.join('\n')}`);
      // Domain by domain: the URLs from idx_links_domain's range, then only their groups, each a search by URL.
      assert.ok(q.upTo, 'an unfiltered listing goes domain by domain');
      const upTo = (db.prepare(`EXPLAIN QUERY PLAN ${q.upTo}`).all(...q.upToParams('a.example')) as { detail: string }[]).map((r) => r.detail);
      assert.ok(upTo.includes('SEARCH l USING INDEX idx_links_domain (domain<?)'), upTo.join('\n'));
      assert.ok(upTo.some((d) => /^SEARCH l USING COVERING INDEX idx_links_gallery \(url=\?\)$/.test(d)), upTo.join('\n'));
      assert.ok(!upTo.some((d) => /^SCAN l\b/.test(d)), `no scan of every link: ${upTo.join('\n')}`);
    } finally {
      db.close();
    }
  });

  it('steps through the domains in their order, one index search each, blobs after text, none past the last', () => {
    const db = build({
      msgs: [{ conv: 1, ts: 1 }],
      links: ['b.example', '', 'a.example', 'b.example', Buffer.from('blob')].map((domain) => ({ msg: 1, url: 'u', domain, conv: 1, ts: 1 })),
      ownColumns: true,
      domainNotNull: true,
    });
    try {
      const seen: string[] = [];
      const native = nativeSql(db);
      const sql = { ...native, value: (q: string, p?: readonly Param[]) => (seen.push(q), native.value(q, p)) };
      const past = (after: Param | undefined, n: number) => {
        const v = domainsPast(sql, after, n);
        return v instanceof Uint8Array ? `blob:${Buffer.from(v).toString()}` : v;
      };
      assert.equal(past(undefined, 1), '');
      assert.equal(past(undefined, 2), 'a.example');
      assert.equal(past('', 2), 'b.example');
      assert.equal(past('a.example', 9), 'blob:blob', 'the last domain when fewer are left');
      assert.equal(past('b.example', 1), 'blob:blob');
      assert.equal(past(Buffer.from('blob'), 1), undefined, 'none past the last');
      for (const q of new Set(seen)) {
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${q}`).all(...(q.includes('l.domain > ?') ? ['a', 2] : [2])) as { detail: string }[]).map((r) => r.detail);
        assert.ok(plan.filter((d) => /^SEARCH l USING COVERING INDEX idx_links_domain \(domain>\?\)$/.test(d)).length >= 1, plan.join('\n'));
        assert.ok(!plan.some((d) => /^SCAN l\b/.test(d)), plan.join('\n'));
      }
    } finally {
      db.close();
    }
  });
});
