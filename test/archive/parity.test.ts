/**
 * Parity with native SQLite: the identical SQL (the same query functions, fed through a
 * better-sqlite3 adapter) must give the same ids, order, snippets and ranks as the WASM engine.
 * Native SQLite opens a COPY (even `readonly` it creates -shm next to a WAL database).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openArchive, type Archive, type KeywordSearchOptions } from '../../src/archive';
import type { Sql } from '../../src/archive/connection';
import { context } from '../../src/archive/queries/message-context';
import { listConversations } from '../../src/archive/queries/conversations';
import { MessageMeta, readEmbeddingBatch } from '../../src/archive/queries/embeddings';
import { links, linkStatements } from '../../src/archive/queries/links';
import { attachments, attachmentStatements } from '../../src/archive/queries/media';
import { keywordSearchSql, searchKeyword } from '../../src/archive/queries/search';
import { transcript } from '../../src/archive/queries/transcript';
import { detectSchema, type SchemaInfo } from '../../src/archive/schema';
import { buildCuratedArchive, buildLegacyArchive, buildScaleArchive, dayStartUnix } from '../fixtures';
import { nativeSql } from '../fixtures/native-sql';

interface Pair {
  wasm: Archive;
  native: Database.Database;
  sql: Sql;
  schema: SchemaInfo;
  copyDir: string;
}

let tmp: string;
const pairs: Pair[] = [];

async function pair(file: string): Promise<Pair> {
  const copyDir = fs.mkdtempSync(path.join(tmp, 'copy-'));
  const copy = path.join(copyDir, 'msgbrowse.sqlite');
  fs.copyFileSync(file, copy);
  if (fs.existsSync(`${file}-wal`)) fs.copyFileSync(`${file}-wal`, `${copy}-wal`);
  const native = new Database(copy, { readonly: true });
  const sql = nativeSql(native);
  const p = { wasm: await openArchive(file), native, sql, schema: detectSchema(sql), copyDir };
  pairs.push(p);
  return p;
}

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-parity-'));
});
after(() => {
  for (const p of pairs) {
    p.wasm.close();
    p.native.close();
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

function compareSearch(p: Pair, opts: KeywordSearchOptions): number {
  const w = p.wasm.searchKeyword(opts);
  const n = searchKeyword(p.sql, p.schema, opts);
  assert.deepEqual(
    w.map((h) => [h.id, h.snippet]),
    n.map((h) => [h.id, h.snippet]),
    JSON.stringify(opts),
  );
  for (let i = 0; i < w.length; i++) assert.ok(Math.abs(w[i].rank - n[i].rank) < 1e-9, `rank ${JSON.stringify(opts)}`);
  // The statement, as written, gives the same rows natively (no hidden JS post-processing).
  const q = keywordSearchSql(p.schema, opts);
  if (q)
    assert.deepEqual(
      p.native
        .prepare(q.sql)
        .all(...q.params)
        .map((r) => (r as { id: number }).id),
      w.map((h) => h.id),
    );
  return w.length;
}

describe('native SQLite parity', () => {
  it('curated archive: FTS queries (common word, prefix, diacritics, CJK, filters, hostile input)', async () => {
    const dir = path.join(tmp, 'curated');
    const desc = buildCuratedArchive(dir);
    const p = await pair(desc.path);
    const harper = desc.conversations.find((c) => c.name === 'Harper' && c.source === 'signal')?.id;
    const queries: KeywordSearchOptions[] = [
      { query: 'the', limit: 200 },
      { query: 'the', limit: 7 },
      { query: 'lea', limit: 50 },
      { query: 'lease terms', limit: 50 },
      { query: 'cafe', limit: 50 },
      { query: 'creme brulee', limit: 50 },
      { query: 'Zurich fondue', limit: 50 },
      { query: '東京の天気はどうですか', limit: 50 },
      { query: '明日は雨です', limit: 50 },
      { query: 'مرحبا', limit: 50 },
      { query: '🥶', limit: 50 },
      { query: 'e-mail', limit: 50 },
      { query: '"quoted" AND NEAR(x y) OR lease* ^start -minus col:value', limit: 50 },
      { query: 'x"y', limit: 50 },
      { query: 'the', limit: 200, conversationId: harper },
      { query: 'the', limit: 200, source: 'signal', sender: 'Me' },
      { query: 'the', limit: 200, startUnix: dayStartUnix('2022-03-05'), endUnix: dayStartUnix('2022-04-01') },
      { query: 'the', limit: 200, hasAttachment: true },
      { query: 'example', limit: 200, hasLink: true },
      { query: 'media', limit: 200, hasAttachment: true, hasLink: false },
    ];
    let total = 0;
    for (const q of queries) total += compareSearch(p, q);
    assert.ok(total > 100, `compared ${total} hits`);
  });

  it('scale archive (Zipf text, three sources): common/medium/rare/special words, prefixes, filters', async () => {
    const s = buildScaleArchive(path.join(tmp, 'scale', 'msgbrowse.sqlite'), {
      messages: 4000,
      seed: 11,
      progress: false,
    });
    const p = await pair(s.path);
    const words = [
      ...s.sampleWords.frequent.slice(0, 3),
      ...s.sampleWords.medium.slice(0, 3),
      ...s.sampleWords.rare.slice(0, 3),
      ...s.sampleWords.special.slice(0, 6),
    ];
    let total = 0;
    for (const w of words) {
      total += compareSearch(p, { query: w, limit: 200 });
      total += compareSearch(p, { query: w.slice(0, Math.max(1, Math.ceil([...w].length / 2))), limit: 50 });
      total += compareSearch(p, { query: w, limit: 50, source: 'whatsapp' });
      total += compareSearch(p, { query: w, limit: 50, hasLink: true });
      total += compareSearch(p, {
        query: w,
        limit: 50,
        conversationId: s.largestConversation.id,
        startUnix: s.firstUnix + 86400 * 30,
      });
    }
    total += compareSearch(p, { query: `${s.sampleWords.frequent[0]} ${s.sampleWords.frequent[1]}`, limit: 200 });
    assert.ok(total > 500, `compared ${total} hits`);
  });

  it('every other query family gives identical rows natively (curated, scale, legacy v2 and v8)', async () => {
    const v2 = buildLegacyArchive(path.join(tmp, 'v2'), 2);
    const v8 = buildLegacyArchive(path.join(tmp, 'v8'), 8);
    for (const file of [
      path.join(tmp, 'curated', 'msgbrowse.sqlite'),
      path.join(tmp, 'scale', 'msgbrowse.sqlite'),
      v2.path,
      v8.path,
    ]) {
      const p = pairs.find((x) => x.wasm.path === file) ?? (await pair(file));
      const convs = p.wasm.listConversations();
      assert.deepEqual(convs, listConversations(p.sql, p.schema));
      for (const c of convs.slice(0, 5)) {
        const t = p.wasm.transcript({ conversationId: c.id, limit: 50 });
        assert.deepEqual(t, transcript(p.sql, p.schema, { conversationId: c.id, limit: 50 }));
        if (t.next)
          assert.deepEqual(
            p.wasm.transcript({ conversationId: c.id, limit: 50, after: t.next }),
            transcript(p.sql, p.schema, { conversationId: c.id, limit: 50, after: t.next }),
          );
        const mid = t.messages[Math.floor(t.messages.length / 2)];
        if (mid) assert.deepEqual(p.wasm.context(mid.id, 4), context(p.sql, p.schema, mid.id, 4));
      }
      // msgbrowse's v8+ links take the grouped statement and the domain steps, older ones the late join.
      assert.equal(p.schema.linkGallery, p.schema.version >= 8, `${file} (v${p.schema.version})`);
      for (const opts of [
        { limit: 1000 },
        { limit: 5 },
        { limit: 1 },
        { limit: 50, domain: 'example.com' },
        { limit: 50, source: 'signal' },
      ]) {
        const got = p.wasm.links(opts);
        assert.deepEqual(got, links(p.sql, p.schema, opts), `${file} links ${JSON.stringify(opts)}`);
        // The general statement, natively: the fast statements must give its rows on every schema version.
        const q = linkStatements(p.schema, opts);
        const general = (p.native.prepare(q.general).all(...q.params) as { url: string; message_id: number }[]).map(
          (r) => [r.url, r.message_id],
        );
        assert.deepEqual(
          got.items.map((l) => [l.url, l.messageId]),
          general.slice(0, opts.limit),
          `${file} links (general) ${JSON.stringify(opts)}`,
        );
        assert.equal(got.hasMore, general.length > opts.limit);
      }
      for (const m of p.wasm.embeddingModels()) {
        // Native: same records, same order, same floats.
        const native = readEmbeddingBatch(p.sql, m.model, -1, new MessageMeta(p.sql, p.schema)).items.map((x) =>
          'rec' in x ? x.rec : x.bad,
        );
        const wasm = [...p.wasm.embeddings(m.model)].slice(0, native.length);
        assert.deepEqual(
          wasm.map((r) => ({ ...r, hash: r.hash, vec: [...r.vec] })),
          native.map((r) => ('vec' in r ? { ...r, hash: r.hash, vec: [...r.vec] } : r)),
        );
      }
      for (const kinds of [['image'], ['file', 'video'], ['image', 'file', 'video']] as const) {
        const o = { kinds: [...kinds], limit: 100 };
        const got = p.wasm.attachments(o);
        assert.deepEqual(got, attachments(p.sql, p.schema, o));
        const q = attachmentStatements(p.schema, o);
        const general = (p.native.prepare(q.general).all(...q.params) as { id: number }[]).map((r) => r.id);
        assert.deepEqual(
          got.items.map((x) => x.id),
          general.slice(0, o.limit),
          `${file} attachments (general) ${JSON.stringify(o)}`,
        );
        assert.equal(got.hasMore, general.length > o.limit);
      }
    }
  });
});
