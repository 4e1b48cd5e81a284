/**
 * The link gallery's fast statements (what `links()` runs: grouped by URL, domain by domain, or the window ranking
 * with a late join) against its definition, the window statement (`general`), both run natively over random link
 * tables: URLs shared across messages and conversations, a URL whose links disagree on its domain, text domains
 * that are not UTF-8, blob domains, NULLs where a hand-made schema allows them, ties in time broken by message id
 * and then link id, links whose message or conversation is gone, every filter and hidden conversations. Every schema
 * shape: msgbrowse's v8+ links (own conversation and time, NOT NULL columns, the gallery index), the same without the
 * index or with nullable columns, and pre-v7 links that take conversation and time from their message.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { links, linkStatements } from '../../src/archive/queries/links';
import { detectSchema } from '../../src/archive/schema';
import type { LinkOptions } from '../../src/archive/types';
import { nativeSql } from '../fixtures/native-sql';
import { recordingSql } from '../fixtures/recording-sql';

interface Msg {
  conv: number;
  ts: number | null;
}
/** A domain as text, as text whose bytes are not UTF-8 (`{ text: bytes }`), as a blob (Buffer), or NULL. */
type Domain = string | { text: Buffer } | Buffer | null;
interface Link {
  msg: number;
  url: string;
  domain: Domain;
  conv: number;
  ts: number | null;
}
interface Shape {
  /** Links carry conversation_id and ts_unix (v7/v8+). */
  ownColumns: boolean;
  /** idx_links_gallery exists (v8+). */
  galleryIndex: boolean;
  /** url, domain and ts_unix are NOT NULL, as msgbrowse declares them. */
  notNull: boolean;
  /** id is the INTEGER PRIMARY KEY (else a plain column) and idx_links_domain exists, as in every msgbrowse schema. */
  keyed: boolean;
}

const msgArb = fc.record({
  conv: fc.integer({ min: 1, max: 3 }),
  ts: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 6 }),
});
const linkArb = (messages: number) =>
  fc.record({
    // One message past the last does not exist: the late join's and the grouped statement's fallback case. Rare.
    msg: fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: messages }), weight: 30 },
      { arbitrary: fc.constant(messages + 1), weight: 1 },
    ),
    url: fc.constantFrom(
      'https://a.example/1',
      'https://a.example/2',
      'https://b.example/',
      'http://y.org/x',
      'weird',
      'https://z.net/',
    ),
    // Many domains, so that broad listings take several steps; text that is not UTF-8 (the round trip through JS
    // would mangle it); a blob sorts after every text.
    domain: fc.option(
      fc.constantFrom<Domain>(
        '',
        'a.example',
        'x.a.example',
        'b.example',
        'c.example',
        'd.example',
        'e.example',
        'y.org',
        'z.net',
        { text: Buffer.from([0x7a, 0xff]) },
        Buffer.from('blob.example'),
      ),
      { freq: 8 },
    ),
    // Conversation 4 does not exist: such a link's first occurrence cannot be joined. Rare, so that most cases check
    // the fast statements' own rows.
    conv: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 3 }), weight: 15 }, { arbitrary: fc.constant(4), weight: 1 }),
    ts: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 6 }),
  });
const shapeArb: fc.Arbitrary<Shape> = fc.oneof(
  // msgbrowse's own shape most often: it is the one the domain steps and the grouping serve.
  { arbitrary: fc.constant({ ownColumns: true, galleryIndex: true, notNull: true, keyed: true }), weight: 3 },
  {
    arbitrary: fc.record({
      ownColumns: fc.boolean(),
      galleryIndex: fc.boolean(),
      notNull: fc.boolean(),
      keyed: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
    }),
    weight: 2,
  },
);
const archiveArb = fc
  .array(msgArb, { minLength: 1, maxLength: 10 })
  .chain((msgs) =>
    fc.record({
      msgs: fc.constant(msgs),
      links: fc.array(linkArb(msgs.length), { maxLength: 40, size: 'medium' }),
      shape: shapeArb,
    }),
  )
  // NOT NULL columns hold values.
  .map((a) =>
    a.shape.notNull
      ? { ...a, links: a.links.map((l) => ({ ...l, domain: l.domain ?? 'a.example', ts: l.ts ?? 0 })) }
      : a,
  );
// Each filter in one case of four, so that most cases still have rows to compare.
const maybe = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: arb, weight: 1 });
const filteredArb = fc.record({
  opts: fc
    .record({
      limit: fc.integer({ min: 1, max: 8 }),
      domain: maybe(fc.constantFrom('a.example', 'b.example', 'y.org', 'x.a.example', '')),
      conversationId: maybe(fc.integer({ min: 1, max: 4 })),
      source: maybe(fc.constantFrom('signal', 'whatsapp')),
      startUnix: maybe(fc.integer({ min: 0, max: 3 })),
      endUnix: maybe(fc.integer({ min: 0, max: 3 })),
    })
    .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as unknown as LinkOptions),
  hidden: maybe(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 2 })).map((h) => h ?? []),
});
// Half the cases list everything (maybe without hidden conversations): the broad listings, domain by domain.
const optsArb: fc.Arbitrary<{ opts: LinkOptions; hidden: number[] }> = fc.oneof(
  filteredArb,
  fc.record({
    opts: fc.record({ limit: fc.integer({ min: 1, max: 8 }) }),
    hidden: maybe(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 2 })).map((h) => h ?? []),
  }),
);

/** An archive with only what the gallery reads, in the given shape. */
function build(a: { msgs: Msg[]; links: Link[]; shape: Shape }): Database.Database {
  const { ownColumns, galleryIndex, notNull, keyed } = a.shape;
  const nn = notNull ? ' NOT NULL' : '';
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE conversations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL);
    CREATE TABLE messages (id INTEGER PRIMARY KEY, conversation_id INTEGER NOT NULL, ts TEXT, ts_unix INTEGER, hash TEXT);
    CREATE TABLE links (id INTEGER${keyed ? ' PRIMARY KEY' : ''}, message_id INTEGER NOT NULL, url TEXT${nn}, domain TEXT${nn}
      ${ownColumns ? `, conversation_id INTEGER NOT NULL DEFAULT 0, ts_unix INTEGER${nn}` : ''});
    CREATE INDEX idx_links_message ON links(message_id);
    ${keyed ? 'CREATE INDEX idx_links_domain ON links(domain);' : ''}
    ${ownColumns && galleryIndex ? 'CREATE INDEX idx_links_gallery ON links(url, ts_unix, domain, conversation_id, message_id);' : ''}`);
  for (const [id, source] of [
    [1, 'signal'],
    [2, 'whatsapp'],
    [3, 'signal'],
  ] as const) {
    db.prepare('INSERT INTO conversations VALUES (?, ?, ?)').run(id, `c${id}`, source);
  }
  for (const [i, m] of a.msgs.entries()) {
    db.prepare('INSERT INTO messages VALUES (?, ?, ?, ?, ?)').run(i + 1, m.conv, `t${m.ts}`, m.ts, `h${i + 1}`);
  }
  // Link ids out of insertion order, so the tie on (time, message) falls to the link id, not to the scan's order.
  a.links.forEach((l, i) => {
    const id = ((i * 7) % 31) + 1 + 31 * Math.floor(i / 31);
    const bad = l.domain !== null && typeof l.domain === 'object' && !Buffer.isBuffer(l.domain);
    const domain = bad ? (l.domain as { text: Buffer }).text : l.domain;
    const cast = bad ? 'CAST(? AS TEXT)' : '?';
    if (ownColumns)
      db.prepare(`INSERT INTO links VALUES (?, ?, ?, ${cast}, ?, ?)`).run(id, l.msg, l.url, domain, l.conv, l.ts);
    else db.prepare(`INSERT INTO links VALUES (?, ?, ?, ${cast})`).run(id, l.msg, l.url, domain);
  });
  return db;
}

const text = (v: unknown) =>
  v === null || v === undefined ? '' : v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : String(v);

describe("the link gallery's fast statements", () => {
  it("give the window statement's rows, in its order, for random links, shapes, filters and hidden conversations", () => {
    let fastCases = 0;
    let allCases = 0;
    let rowCases = 0;
    let broadCases = 0;
    let stepped = 0;
    fc.assert(
      fc.property(archiveArb, fc.array(optsArb, { minLength: 1, maxLength: 4 }), (a, cases) => {
        const db = build(a);
        try {
          const native = nativeSql(db);
          const schema = detectSchema(native);
          assert.equal(
            schema.linkGallery,
            a.shape.ownColumns && a.shape.galleryIndex && a.shape.notNull && a.shape.keyed,
          );
          for (const { opts, hidden } of cases) {
            const q = linkStatements(schema, opts, hidden);
            const want = db.prepare(q.general).all(...q.params) as Record<string, unknown>[];
            const msg = JSON.stringify({ opts, hidden, shape: a.shape });
            allCases++;
            if (want.length > 1) rowCases++;
            // The fast statement's own rows, when it could join them all (otherwise links() falls back).
            const fast = (
              q.grouped ? db.prepare(q.grouped).all(...q.groupedParams) : db.prepare(q.lateJoin).all(...q.params)
            ) as Record<string, unknown>[];
            if (fast.every((r) => r.joined === 1)) {
              fastCases++;
              assert.deepEqual(
                fast.map(({ joined: _j, ...r }) => r),
                want,
                msg,
              );
            }
            if (q.upTo) {
              broadCases++;
              const domains = db.prepare('SELECT count(DISTINCT domain) FROM links').pluck().get() as number;
              // Each step's rows are the general statement's first rows, as far as the step reaches.
              for (const k of [1, 2, 4]) {
                const placed = db.prepare(q.upTo).all(...q.upToParams(k)) as Record<string, unknown>[];
                const more = (db.prepare(q.beyond).pluck().get(k) as number) === 1;
                assert.equal(more, k < domains, `${msg}: a domain after the first ${k} of ${domains}`);
                if (k === 1 && placed.length <= opts.limit && more) stepped++;
                if (!placed.every((r) => r.joined === 1)) continue;
                assert.deepEqual(
                  placed.map(({ joined: _j, ...r }) => r),
                  more ? want.slice(0, placed.length) : want,
                  `${msg} step ${k}`,
                );
              }
            }
            const rec = recordingSql(native, { limit: 50 });
            const got = links(rec.sql, schema, opts, hidden);
            assert.ok(rec.ran.length <= 2 * 4 + 2, `a bounded number of statements (${rec.ran.length})`);
            assert.deepEqual(
              got.items.map((l) => [
                l.url,
                l.domain,
                l.count,
                l.messageId,
                l.conversationId,
                l.conversation,
                l.source,
                l.ts,
                l.tsUnix,
                l.messageHash,
              ]),
              want
                .slice(0, opts.limit)
                .map((r) => [
                  text(r.url),
                  text(r.domain),
                  r.cnt,
                  r.message_id,
                  r.conversation_id,
                  r.conversation,
                  r.source,
                  r.ts ?? '',
                  r.ts_unix ?? 0,
                  r.message_hash ?? '',
                ]),
              msg,
            );
            assert.equal(got.hasMore, want.length > opts.limit, msg);
          }
        } finally {
          db.close();
        }
      }),
      { numRuns: 500 },
    );
    // The generator's reach, so that the property cannot pass by comparing empty answers.
    assert.ok(
      fastCases > allCases * 0.7,
      `most cases check the fast statements' rows themselves (${fastCases} of ${allCases})`,
    );
    assert.ok(rowCases > allCases * 0.3, `many cases have several rows to order (${rowCases} of ${allCases})`);
    assert.ok(broadCases > allCases * 0.15, `many cases go domain by domain (${broadCases} of ${allCases})`);
    assert.ok(stepped > broadCases * 0.3, `many broad cases need more than one step (${stepped} of ${broadCases})`);
  });

  it('ends on a last domain that is not UTF-8 (its bound never passes through JavaScript)', () => {
    const db = build({
      msgs: [{ conv: 1, ts: 1 }],
      links: [
        { msg: 1, url: 'https://a.com/', domain: 'a.com', conv: 1, ts: 1 },
        { msg: 1, url: 'u2', domain: { text: Buffer.from([0x7a, 0xff]) }, conv: 1, ts: 1 },
      ],
      shape: { ownColumns: true, galleryIndex: true, notNull: true, keyed: true },
    });
    try {
      const native = nativeSql(db);
      const { sql, ran } = recordingSql(native, { limit: 50 });
      const got = links(sql, detectSchema(native), { limit: 50 });
      assert.deepEqual(
        got.items.map((l) => l.url),
        ['https://a.com/', 'u2'],
      );
      assert.equal(got.hasMore, false);
      assert.equal(
        ran.length,
        4,
        `two steps (1 domain, then 4) and their checks for a domain beyond: ${ran.length} statements`,
      );
    } finally {
      db.close();
    }
  });

  it('takes every step on many domains, then groups them all when 64 domains are not enough', () => {
    // 100 domains of one URL each, the first ones with two links: the first 64 domains hold 64 URLs.
    const db = build({
      msgs: [
        { conv: 1, ts: 1 },
        { conv: 2, ts: 2 },
      ],
      links: Array.from({ length: 100 }, (_, i) => [
        {
          msg: 1,
          url: `https://d${String(i).padStart(3, '0')}.example/`,
          domain: `d${String(i).padStart(3, '0')}.example`,
          conv: 1,
          ts: 1,
        },
        ...(i < 10
          ? [
              {
                msg: 2,
                url: `https://d${String(i).padStart(3, '0')}.example/`,
                domain: `d${String(i).padStart(3, '0')}.example`,
                conv: 2,
                ts: 2,
              },
            ]
          : []),
      ]).flat(),
      shape: { ownColumns: true, galleryIndex: true, notNull: true, keyed: true },
    });
    try {
      const native = nativeSql(db);
      const schema = detectSchema(native);
      for (const [limit, steps, grouped] of [
        [3, 2, false], // 4 domains hold 4 URLs: more than 3
        [10, 3, false], // 16 domains
        [50, 4, false], // 64 domains
        [64, 4, true], // 64 URLs on 64 domains are not more than 64: every URL grouped
        [99, 4, true],
        [500, 4, true],
      ] as const) {
        const { sql, ran } = recordingSql(native, { limit: 50 });
        const got = links(sql, schema, { limit });
        const q = linkStatements(schema, { limit });
        const want = db.prepare(q.general).all(...q.params) as { url: string; cnt: number }[];
        assert.deepEqual(
          got.items.map((l) => [l.url, l.count]),
          want.slice(0, limit).map((r) => [r.url, r.cnt]),
          `limit ${limit}`,
        );
        assert.equal(got.hasMore, want.length > limit, `limit ${limit}`);
        assert.equal(ran.filter((r) => r.q === q.upTo).length, steps, `limit ${limit}: domain steps`);
        assert.equal(
          ran.some((r) => r.q === q.grouped),
          grouped,
          `limit ${limit}: grouped at the end`,
        );
      }
    } finally {
      db.close();
    }
  });

  it("group in the gallery index's order, step through idx_links_domain, and never scan the links per row", () => {
    const db = build({
      msgs: [{ conv: 1, ts: 1 }],
      links: [],
      shape: { ownColumns: true, galleryIndex: true, notNull: true, keyed: true },
    });
    try {
      const schema = detectSchema(nativeSql(db));
      assert.ok(schema.linkGallery);
      const plan = (q: string, p: readonly unknown[]) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${q}`).all(...p) as { detail: string }[]).map((r) => r.detail);
      const noScanPerRow = (rows: string[]) =>
        assert.ok(
          !rows.some((d) => /^SCAN (l|x)\b(?! USING COVERING INDEX idx_links_gallery)/.test(d)),
          rows.join('\n'),
        );
      const q = linkStatements(schema, { limit: 50 });
      const grouped = plan(q.grouped!, q.groupedParams);
      assert.ok(grouped.includes('SCAN l USING COVERING INDEX idx_links_gallery'), grouped.join('\n'));
      assert.ok(
        grouped.some((d) => /^SEARCH l USING COVERING INDEX idx_links_gallery \(url=\?/.test(d)),
        grouped.join('\n'),
      );
      assert.ok(!grouped.some((d) => /GROUP BY/.test(d)), `the grouping needs no sort: ${grouped.join('\n')}`);
      noScanPerRow(grouped.filter((d) => d !== 'SCAN l USING COVERING INDEX idx_links_gallery'));
      assert.ok(q.upTo, 'an unfiltered listing goes domain by domain');
      const upTo = plan(q.upTo, q.upToParams(4));
      assert.ok(
        upTo.some((d) => /^SEARCH l USING INDEX idx_links_domain \(domain<\?\)$/.test(d)),
        upTo.join('\n'),
      );
      assert.ok(
        upTo.some((d) => /^SEARCH l USING COVERING INDEX idx_links_gallery \(url=\?\)$/.test(d)),
        upTo.join('\n'),
      );
      assert.ok(
        upTo.some((d) => /^SEARCH x USING COVERING INDEX idx_links_domain \(domain>\?\)$/.test(d)),
        upTo.join('\n'),
      );
      noScanPerRow(upTo);
      noScanPerRow(plan(q.beyond, [4]));
      // Hidden conversations keep the steps; any other filter groups at once.
      assert.ok(linkStatements(schema, { limit: 50 }, [1]).upTo);
      for (const f of [
        { source: 'signal' },
        { startUnix: 1 },
        { endUnix: 1 },
        { conversationId: 1 },
        { domain: 'a.com' },
      ]) {
        assert.equal(linkStatements(schema, { limit: 50, ...f }).upTo, undefined, JSON.stringify(f));
      }
    } finally {
      db.close();
    }
    // Without the gallery index (or before v8), no statement searches links by URL per row: one ranking, late join.
    for (const shape of [
      { ownColumns: true, galleryIndex: false, notNull: true, keyed: true },
      { ownColumns: false, galleryIndex: false, notNull: true, keyed: true },
      { ownColumns: true, galleryIndex: true, notNull: true, keyed: false },
    ]) {
      const old = build({ msgs: [{ conv: 1, ts: 1 }], links: [], shape });
      try {
        const schema = detectSchema(nativeSql(old));
        assert.equal(schema.linkGallery, false);
        const q = linkStatements(schema, { limit: 50 });
        assert.equal(q.grouped, undefined);
        assert.equal(q.upTo, undefined);
        const p = (old.prepare(`EXPLAIN QUERY PLAN ${q.lateJoin}`).all(...q.params) as { detail: string }[]).map(
          (r) => r.detail,
        );
        assert.ok(!p.some((d) => /CORRELATED/.test(d)), p.join('\n'));
      } finally {
        old.close();
      }
    }
  });
});
