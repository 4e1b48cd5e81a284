import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import {
  ArchiveWriter,
  buildCuratedArchive,
  buildDemoArchive,
  buildLegacyArchive,
  buildMsgbrowseMcpFixture,
  buildScaleArchive,
  contentDigest,
  cosine,
  createArchive,
  CURATED_MODELS,
  CURATED_ORPHAN_HASH,
  decodeVector,
  embedText,
  encodeVector,
  formatLegacyImessageTs,
  isEmbeddable,
  LEGACY_VERSIONS,
  leaveRowsInWal,
  legacyMessageHash,
  linkDomain,
  MCP_FIXTURE_QUERY_VECTOR,
  messageHash,
  messagesOf,
  migrate,
  migrationChecksum,
  MIGRATIONS,
  parseTsUnix,
  SCHEMA_VERSION,
  spawnLiveWriter,
  writeNewerSchemaArchive,
  writeNonMsgbrowseSqlite,
  writeRandomBytesFile,
  writeTruncatedArchive,
  type CuratedArchive,
} from '../fixtures/index';

let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-fixtures-'));
});
after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});
const sub = (name: string) => path.join(tmp, name);

function cols(db: Database.Database, table: string): string[] {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
}
function tables(db: Database.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map(
    (r) => r.name,
  );
}
/** FTS5 integrity-check is an INSERT, so it needs a writable handle (it changes nothing). */
function ftsIntegrity(db: Database.Database): void {
  const rw = db.readonly ? new Database(db.name) : db;
  try {
    rw.prepare("INSERT INTO messages_fts(messages_fts) VALUES('integrity-check')").run();
  } finally {
    if (rw !== db) rw.close();
  }
}

describe('message hash (reference §5 check vectors)', () => {
  const args = ['signal', 'Harper', '2022-03-01 09:00:00', 'Harper', 'the lease agreement is ready'] as const;
  it('seq 0', () => {
    assert.equal(messageHash(...args, 0), 'eb8a4d9f03c2ad5d05cd3fb031c44f70596ed3147d2545e8bd114d67284be09a');
  });
  it('seq 1', () => {
    assert.equal(messageHash(...args, 1), 'd1a9133fd2e4d906996423a4dfd79ddfc5c41f1ff18c92e9740e201ac3552c5d');
  });
  it('legacy hash drops the source prefix and differs', () => {
    const legacy = legacyMessageHash('Harper', '2022-03-01 09:00:00', 'Harper', 'the lease agreement is ready', 0);
    assert.match(legacy, /^[0-9a-f]{64}$/);
    assert.notEqual(legacy, messageHash(...args, 0));
  });
});

describe('timestamps, domains, vectors', () => {
  it('parses canonical and legacy iMessage ts as UTC wall clock', () => {
    assert.equal(parseTsUnix('2022-03-01 09:00:00'), 1646125200);
    assert.equal(parseTsUnix('2022-03-02 10:00:00'), 1646215200);
    assert.equal(parseTsUnix('Nov 13, 2015 5:53:29 AM'), Date.UTC(2015, 10, 13, 5, 53, 29) / 1000);
    assert.equal(parseTsUnix('Apr 01, 2017 12:00:00 PM'), Date.UTC(2017, 3, 1, 12, 0, 0) / 1000);
    assert.equal(parseTsUnix('Jan 2, 2006 12:04:05 AM'), Date.UTC(2006, 0, 2, 0, 4, 5) / 1000);
    assert.equal(formatLegacyImessageTs(parseTsUnix('Nov 13, 2015 5:53:29 AM')), 'Nov 13, 2015 5:53:29 AM');
    assert.throws(() => parseTsUnix('2022-02-30 00:00:00'), /invalid timestamp/);
    assert.throws(() => parseTsUnix('yesterday'), /unparseable/);
  });
  it('computes link domains like msgbrowse', () => {
    assert.equal(linkDomain('https://WWW.Example.com:8443/x'), 'example.com');
    assert.equal(linkDomain('https://www.yelp.com/biz/foo'), 'yelp.com');
    assert.equal(linkDomain('https://maps.example.com/a'), 'maps.example.com');
    assert.equal(linkDomain('http://user:pw@www.x.org/p'), 'x.org');
    assert.equal(linkDomain('https://[::1]:8080/'), '::1');
    assert.equal(linkDomain('not a url'), '');
    assert.equal(linkDomain('mailto:a@b.c'), '');
  });
  it('encodes float32 little-endian (reference §3 check vector) and round-trips', () => {
    assert.equal(encodeVector([1.0, 0.1]).toString('hex'), '0000803fcdcccc3d');
    const v = [0, 1, -1, 3.14159, 1e-7];
    assert.deepEqual([...decodeVector(encodeVector(v), 5)], v.map(Math.fround));
    assert.throws(() => decodeVector(encodeVector(v), 6), /does not match dim 6/);
  });
  it('embedText is deterministic, float32-exact and similarity-bearing', () => {
    const a = embedText('the lease agreement is ready', 8);
    assert.deepEqual(a, embedText('the lease agreement is ready', 8));
    assert.deepEqual(a, a.map(Math.fround));
    assert.notDeepEqual(a, embedText('the lease agreement is ready', 8, 'other-embed'));
    assert.ok(cosine(embedText('café crème', 16), embedText('CAFE creme', 16)) > 0.999);
    assert.ok(cosine(a, embedText('lease agreement', 8)) > cosine(a, embedText('sunset photo tomorrow', 8)));
  });
});

describe('schema v1..v16', () => {
  it('fresh v16 archive: user_version, WAL, tables, triggers, ledger', () => {
    const file = path.join(sub('v16'), 'a.sqlite');
    createArchive(file).close();
    const db = new Database(file, { readonly: true });
    try {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      for (const t of ['conversations', 'messages', 'attachments', 'links', 'embeddings', 'reactions', 'contacts',
        'contact_identifiers', 'contact_facts', 'fact_state', 'journal_days', 'journal_digests', 'journal_runs',
        'embed_runs', 'contact_links', 'contact_merge_rules', 'paired_devices', 'sync_state', 'schema_migrations',
        'messages_fts', 'messages_fts_data', 'messages_fts_idx', 'messages_fts_docsize', 'messages_fts_config']) {
        assert.ok(tables(db).includes(t), `missing table ${t}`);
      }
      assert.deepEqual(cols(db, 'conversations'), ['id', 'source', 'name', 'contact_id', 'is_group', 'pinned']);
      assert.deepEqual(cols(db, 'messages'), ['id', 'hash', 'conversation_id', 'ts', 'ts_unix', 'sender', 'body', 'is_system', 'seq', 'source']);
      assert.deepEqual(cols(db, 'attachments'), ['id', 'message_id', 'kind', 'rel_path', 'original_name', 'conversation_id', 'ts_unix']);
      assert.deepEqual(cols(db, 'links'), ['id', 'message_id', 'url', 'domain', 'conversation_id', 'ts_unix']);
      assert.deepEqual(cols(db, 'embeddings'), ['message_hash', 'model', 'dim', 'vec']);
      assert.deepEqual(cols(db, 'journal_digests'), ['day', 'model', 'prompt_version', 'body', 'structured', 'mood', 'updated_at', 'message_count']);
      const fts = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'messages_fts'").get() as { sql: string };
      assert.match(fts.sql, /fts5\(\s*body,\s*content='messages',\s*content_rowid='id',\s*tokenize='unicode61 remove_diacritics 2'\s*\)/);
      const triggers = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
      assert.deepEqual(triggers, ['messages_ad', 'messages_ai', 'messages_au']);
      const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'idx_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
      for (const i of ['idx_messages_conv_ts', 'idx_messages_sender', 'idx_messages_ts_unix', 'idx_attachments_message',
        'idx_attachments_kind', 'idx_attachments_conv_kind', 'idx_attachments_kind_ts', 'idx_links_message',
        'idx_links_domain', 'idx_links_conv', 'idx_links_gallery', 'idx_reactions_message_hash', 'idx_contact_identifiers_contact']) {
        assert.ok(indexes.includes(i), `missing index ${i}`);
      }
      const ledger = db.prepare('SELECT version, checksum, applied_at FROM schema_migrations ORDER BY version').all() as { version: number; checksum: string; applied_at: string }[];
      assert.deepEqual(ledger.map((r) => r.version), Array.from({ length: 16 }, (_, i) => i + 1));
      for (const r of ledger) assert.equal(r.checksum, migrationChecksum(r.version));
      assert.equal(MIGRATIONS[14], MIGRATIONS[11] + MIGRATIONS[12] + MIGRATIONS[13]);
      assert.match(migrationChecksum(1), /^[0-9a-f]{64}$/);
    } finally {
      db.close();
    }
  });

  it('FTS triggers keep messages_fts consistent through insert, update and delete', () => {
    const db = createArchive(path.join(sub('fts'), 'a.sqlite'));
    try {
      const w = new ArchiveWriter(db);
      const c = w.importConversation('signal', 'Harper', [
        { ts: '2022-03-01 09:00:00', sender: 'Harper', body: 'the lease agreement is ready' },
        { ts: '2022-03-01 09:01:00', sender: 'Me', body: 'Café crème in Zürich' },
      ]);
      const count = (q: string) => (db.prepare('SELECT COUNT(*) AS n FROM messages_fts WHERE messages_fts MATCH ?').get(q) as { n: number }).n;
      assert.equal(count('lease'), 1);
      assert.equal(count('cafe'), 1);
      assert.equal(count('zurich'), 1);
      db.prepare('UPDATE messages SET body = ? WHERE id = ?').run('renamed text', c.messages[0].id);
      assert.equal(count('lease'), 0);
      assert.equal(count('renamed'), 1);
      ftsIntegrity(db);
      w.replaceConversationMessages(c.id, 'signal', 'Harper', [{ ts: '2022-03-01 09:05:00', sender: 'Me', body: 'only one left' }]);
      assert.equal(count('cafe'), 0);
      assert.equal(count('left'), 1);
      ftsIntegrity(db);
    } finally {
      db.close();
    }
  });

  it('v2 and v8 archives have exactly the older column sets', () => {
    const v2 = createArchive(path.join(sub('cols'), 'v2.sqlite'), { version: 2 });
    const v8 = createArchive(path.join(sub('cols'), 'v8.sqlite'), { version: 8 });
    try {
      assert.equal(v2.pragma('user_version', { simple: true }), 2);
      assert.deepEqual(cols(v2, 'attachments'), ['id', 'message_id', 'kind', 'rel_path', 'original_name']);
      assert.deepEqual(cols(v2, 'links'), ['id', 'message_id', 'url', 'domain']);
      assert.deepEqual(cols(v2, 'conversations'), ['id', 'source', 'name', 'contact_id', 'is_group']);
      assert.ok(!tables(v2).includes('embeddings'));
      assert.ok(!tables(v2).includes('reactions'));
      assert.ok(!tables(v2).includes('schema_migrations'), 'pre-ledger builds had no ledger');
      assert.equal(v8.pragma('user_version', { simple: true }), 8);
      assert.deepEqual(cols(v8, 'attachments'), ['id', 'message_id', 'kind', 'rel_path', 'original_name', 'conversation_id', 'ts_unix']);
      assert.ok(tables(v8).includes('embeddings'));
      assert.ok(!tables(v8).includes('journal_days'));
      assert.equal(v8.pragma('journal_mode', { simple: true }), 'wal');
    } finally {
      v2.close();
      v8.close();
    }
  });

  it('v1 → v16 bootstraps contacts; v7/v8 backfill; v16 reclassifies videos', () => {
    const db = createArchive(path.join(sub('mig'), 'a.sqlite'), { version: 1 });
    try {
      const w1 = new ArchiveWriter(db);
      w1.importConversation('signal', 'Harper', [
        { ts: '2022-03-01 09:00:00', sender: 'Harper', body: '[clip.mp4](media/clip.mp4)', attachments: [{ kind: 'video', relPath: 'media/clip.mp4', originalName: 'clip.mp4' }] },
        { ts: '2022-03-02 10:00:00', sender: 'Me', body: '[doc.pdf](media/doc.pdf) https://x.example/a', attachments: [{ kind: 'file', relPath: 'media/scene.MOV', originalName: 'scene.MOV' }, { kind: 'file', relPath: 'media/doc.pdf', originalName: 'doc.pdf' }], links: ['https://x.example/a'] },
      ]);
      migrate(db, 16);
      assert.equal(db.pragma('user_version', { simple: true }), 16);
      const conv = db.prepare('SELECT source, contact_id FROM conversations').get() as { source: string; contact_id: number };
      assert.equal(conv.source, 'signal');
      assert.ok(conv.contact_id > 0);
      assert.deepEqual(db.prepare('SELECT source, identifier FROM contact_identifiers').all(), [{ source: 'signal', identifier: 'Harper' }]);
      const atts = db.prepare('SELECT original_name, kind, ts_unix, conversation_id FROM attachments ORDER BY id').all();
      assert.deepEqual(atts, [
        { original_name: 'clip.mp4', kind: 'video', ts_unix: 1646125200, conversation_id: 1 },
        { original_name: 'scene.MOV', kind: 'video', ts_unix: 1646215200, conversation_id: 1 },
        { original_name: 'doc.pdf', kind: 'file', ts_unix: 1646215200, conversation_id: 1 },
      ]);
      assert.deepEqual(db.prepare('SELECT ts_unix, conversation_id FROM links').get(), { ts_unix: 1646215200, conversation_id: 1 });
      ftsIntegrity(db);
    } finally {
      db.close();
    }
  });
});

describe('writer', () => {
  it('mirrors ReplaceConversationMessages: seq, stamping, reactions, cascade, stable hashes', () => {
    const db = createArchive(path.join(sub('writer'), 'a.sqlite'));
    try {
      const w = new ArchiveWriter(db);
      const msgs = [
        { ts: '2022-03-01 09:00:00', sender: 'Me', body: 'ok' },
        { ts: '2022-03-01 09:00:00', sender: 'Me', body: 'ok', reactions: [{ emoji: '👍', actor: 'MJ' }, { emoji: '👍', actor: 'MJ' }] },
        { ts: '2022-03-01 09:01:00', sender: 'MJ', body: 'see https://WWW.Example.com:8443/x twice https://WWW.Example.com:8443/x', links: ['https://WWW.Example.com:8443/x', 'https://WWW.Example.com:8443/x'], attachments: [{ kind: 'image' as const, relPath: 'media/a.jpg', originalName: 'a.jpg' }] },
      ];
      const first = w.importConversation('signal', 'MJ', msgs);
      assert.deepEqual(first.messages.map((m) => m.seq), [0, 1, 0]);
      assert.equal(first.messages[1].hash, messageHash('signal', 'MJ', '2022-03-01 09:00:00', 'Me', 'ok', 1));
      assert.deepEqual(db.prepare('SELECT url, domain, conversation_id AS c, ts_unix AS t FROM links').all(), [
        { url: 'https://WWW.Example.com:8443/x', domain: 'example.com', c: first.id, t: 1646125260 },
      ]);
      assert.deepEqual(db.prepare('SELECT message_hash AS h, emoji, actor FROM reactions').all(), [{ h: first.messages[1].hash, emoji: '👍', actor: 'MJ' }]);
      // Same name in another source is a separate conversation with its own contact.
      const other = w.importConversation('whatsapp', 'MJ', [{ ts: '2024-01-01 00:00:00', sender: 'MJ', body: 'hi' }]);
      assert.notEqual(other.id, first.id);
      assert.equal((db.prepare('SELECT COUNT(*) AS n FROM contacts').get() as { n: number }).n, 2);
      // Re-import: same hashes, attachments/links/reactions replaced, not duplicated.
      const again = w.importConversation('signal', 'MJ', msgs);
      assert.equal(again.id, first.id);
      assert.deepEqual(again.messages.map((m) => m.hash), first.messages.map((m) => m.hash));
      assert.equal((db.prepare('SELECT COUNT(*) AS n FROM reactions').get() as { n: number }).n, 1);
      assert.equal((db.prepare('SELECT COUNT(*) AS n FROM attachments').get() as { n: number }).n, 1);
      // Append continues seq from identical rows already stored and earlier in the batch.
      const appended = w.appendMessages(first.id, 'signal', 'MJ', [
        { ts: '2022-03-01 09:00:00', sender: 'Me', body: 'ok' },
        { ts: '2022-03-01 09:00:00', sender: 'Me', body: 'ok' },
      ]);
      assert.deepEqual(appended.map((m) => m.seq), [2, 3]);
      assert.equal(appended[0].hash, messageHash('signal', 'MJ', '2022-03-01 09:00:00', 'Me', 'ok', 2));
      // Re-import with fewer messages cascades attachments and links away.
      w.importConversation('signal', 'MJ', msgs.slice(0, 1));
      assert.equal((db.prepare('SELECT COUNT(*) AS n FROM attachments').get() as { n: number }).n, 0);
      assert.equal((db.prepare('SELECT COUNT(*) AS n FROM links').get() as { n: number }).n, 0);
      assert.equal((db.prepare('SELECT COUNT(*) AS n FROM reactions').get() as { n: number }).n, 0);
      assert.equal((db.prepare('SELECT COUNT(*) AS n FROM contacts').get() as { n: number }).n, 2, 'no new contact on re-import');
      ftsIntegrity(db);
    } finally {
      db.close();
    }
  });
});

describe('curated archive', () => {
  let d: CuratedArchive;
  let db: Database.Database;
  before(() => {
    d = buildCuratedArchive(sub('curated'));
    db = new Database(d.path, { readonly: true });
  });
  after(() => db.close());

  it('is small, multi-source, with a paginable conversation and an empty one', () => {
    assert.equal(path.basename(d.path), 'msgbrowse.sqlite');
    assert.ok(d.messages.length < 300);
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n, d.messages.length);
    assert.deepEqual([...new Set(d.conversations.map((c) => c.source))].sort(), ['imessage', 'signal', 'whatsapp']);
    assert.ok(d.conversations.some((c) => c.messageCount >= 250));
    const mj = d.conversations.filter((c) => c.name === 'MJ').map((c) => c.source).sort();
    assert.deepEqual(mj, ['imessage', 'whatsapp']);
    assert.ok(d.conversations.some((c) => c.name === d.emptyConversation.name && c.messageCount === 0));
    ftsIntegrity(db);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  });

  it('description facts agree with the stored rows', () => {
    for (const c of d.conversations) {
      const row = db.prepare(
        `SELECT COUNT(*) AS n, COALESCE(MAX(ts_unix), 0) AS last,
                (SELECT COUNT(*) FROM attachments WHERE conversation_id = ? AND kind = 'image') AS images,
                (SELECT COUNT(*) FROM attachments WHERE conversation_id = ? AND kind = 'video') AS videos,
                (SELECT COUNT(*) FROM links WHERE conversation_id = ?) AS links
           FROM messages WHERE conversation_id = ?`,
      ).get(c.id, c.id, c.id, c.id) as { n: number; last: number; images: number; videos: number; links: number };
      assert.deepEqual(row, { n: c.messageCount, last: c.lastUnix, images: c.images, videos: c.videos, links: c.linkRows }, c.name);
      const firstRow = db.prepare('SELECT ts FROM messages WHERE conversation_id = ? ORDER BY ts_unix, id LIMIT 1').get(c.id) as { ts: string } | undefined;
      assert.equal(firstRow?.ts ?? '', c.firstTs);
      assert.deepEqual(messagesOf(d, c.id).map((m) => m.id), (db.prepare('SELECT id FROM messages WHERE conversation_id = ? ORDER BY ts_unix, id').all(c.id) as { id: number }[]).map((r) => r.id));
    }
    for (const m of d.messages) {
      for (const a of m.attachments) {
        assert.deepEqual(db.prepare('SELECT conversation_id AS c, ts_unix AS t, rel_path AS r FROM attachments WHERE id = ?').get(a.id), { c: m.conversationId, t: m.tsUnix, r: a.relPath });
      }
    }
  });

  it('contains the required edge cases', () => {
    const k = d.marks;
    assert.equal(k.duplicateSeq0.body, k.duplicateSeq1.body);
    assert.deepEqual([k.duplicateSeq0.seq, k.duplicateSeq1.seq], [0, 1]);
    assert.equal(k.systemEmpty.body, '');
    assert.ok(k.systemEmpty.isSystem && k.systemEmpty.sender === 'No-Sender');
    assert.deepEqual(k.whatsappMissingMedia.attachments.map((a) => [a.relPath, a.originalName]), [['', 'The media is missing']]);
    assert.equal(k.pathEscape.attachments[0].relPath, '../../etc/passwd');
    assert.equal(k.linkWwwUpperPort.links[0].domain, 'example.com');
    assert.equal(k.linkMapsAgain.links[0].url, k.linkMapsFirst.links[0].url);
    assert.ok(Buffer.byteLength(k.longBody.body) >= 20000);
    assert.equal(k.legacy2015.ts, 'Nov 13, 2015 5:53:29 AM');
    assert.equal(k.scriptBody.body, '<script>alert(1)</script>');
    assert.match(k.promptInjection.body, /^ignore previous instructions/);
    assert.match(k.ftsSyntax.body, /NEAR\(x y\)/);
    const kinds = (db.prepare('SELECT DISTINCT kind FROM attachments ORDER BY kind').all() as { kind: string }[]).map((r) => r.kind);
    assert.deepEqual(kinds, ['file', 'image', 'video']);
    assert.equal(k.reactionTarget.reactions.length, 3);
    const match = (q: string) => (db.prepare('SELECT rowid AS id FROM messages_fts WHERE messages_fts MATCH ?').all(q) as { id: number }[]).map((r) => r.id);
    assert.ok(match('cafe').includes(k.diacritics.id));
    assert.ok(match('creme').includes(k.diacritics.id));
    assert.ok(match('"END-OF-LONG-MESSAGE"').includes(k.longBody.id));
  });

  it('embeddings: both models for every embeddable message, none for system rows, one orphan', () => {
    const embeddable = d.messages.filter(isEmbeddable);
    for (const { model, dim } of CURATED_MODELS) {
      const rows = db.prepare('SELECT message_hash AS h, dim, vec FROM embeddings WHERE model = ? ORDER BY rowid').all(model) as { h: string; dim: number; vec: Buffer }[];
      const orphans = model === 'test-embed' ? 1 : 0;
      assert.equal(rows.length, embeddable.length + orphans);
      assert.deepEqual(d.embeddings.find((e) => e.model === model)?.count, rows.length);
      for (const r of rows) {
        assert.equal(r.dim, dim);
        assert.equal(r.vec.length, dim * 4);
      }
      const byHash = new Map(rows.map((r) => [r.h, r]));
      const lease = d.marks.leaseAgreement;
      assert.deepEqual([...decodeVector(byHash.get(lease.hash)!.vec, dim)], embedText(lease.body, dim, model));
      for (const m of d.messages.filter((x) => !isEmbeddable(x))) assert.ok(!byHash.has(m.hash), `system/blank ${m.id} embedded`);
      // Written newest first, like `msgbrowse embed`.
      const newest = [...embeddable].sort((a, b) => b.tsUnix - a.tsUnix || b.id - a.id)[0];
      assert.equal(rows[0].h, newest.hash);
    }
    const orphan = db.prepare('SELECT COUNT(*) AS n FROM messages WHERE hash = ?').get(CURATED_ORPHAN_HASH) as { n: number };
    assert.equal(orphan.n, 0);
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM embeddings WHERE message_hash = ?').get(CURATED_ORPHAN_HASH) as { n: number }).n, 1);
  });

  it('is deterministic: a second build has the same content digest', () => {
    const again = buildCuratedArchive(sub('curated2'));
    assert.equal(contentDigest(again.path), contentDigest(d.path));
    assert.deepEqual(again.marks.promptInjection, d.marks.promptInjection);
  });
});

describe('other archives', () => {
  it('msgbrowse MCP fixture reproduces seedStore and its computed cosines', () => {
    const d = buildMsgbrowseMcpFixture(sub('mcp'));
    assert.deepEqual([d.marks.lease.id, d.marks.link.id, d.marks.photo.id], [1, 2, 3]);
    const db = new Database(d.path, { readonly: true });
    try {
      const rows = db.prepare("SELECT m.id, e.vec FROM embeddings e JOIN messages m ON m.hash = e.message_hash WHERE e.model = 'test-embed' ORDER BY m.id").all() as { id: number; vec: Buffer }[];
      const scores = rows.map((r) => Math.round(cosine(MCP_FIXTURE_QUERY_VECTOR, decodeVector(r.vec, 2)) * 1e6) / 1e6);
      assert.deepEqual(scores, [0.995037, 0.099504, 0.196116]);
      assert.deepEqual(db.prepare('SELECT url, domain FROM links').all(), [{ url: 'https://maps.example.com/x', domain: 'maps.example.com' }]);
      assert.deepEqual(db.prepare('SELECT kind, rel_path, original_name FROM attachments').all(), [{ kind: 'image', rel_path: 'media/p.jpg', original_name: 'p.jpg' }]);
    } finally {
      db.close();
    }
  });

  for (const version of [2, 8]) {
    it(`legacy v${version} archive writes only that version's columns and still has content`, () => {
      const d = buildLegacyArchive(sub(`legacy${version}`), version);
      const db = new Database(d.path, { readonly: true });
      try {
        assert.equal(db.pragma('user_version', { simple: true }), version);
        assert.equal(cols(db, 'attachments').includes('ts_unix'), version >= 8);
        assert.equal(tables(db).includes('embeddings'), version >= 3);
        assert.equal((db.prepare("SELECT kind FROM attachments WHERE original_name = 'clip.mp4'").get() as { kind: string }).kind, 'file');
        assert.equal((db.prepare("SELECT COUNT(*) AS n FROM messages_fts WHERE messages_fts MATCH 'lease'").get() as { n: number }).n, 4);
        assert.equal((db.prepare('SELECT domain FROM links').get() as { domain: string }).domain, 'maps.example.com');
        assert.ok(d.conversations.some((c) => c.source === 'imessage' && c.firstTs === 'Nov 13, 2015 5:53:29 AM'));
        ftsIntegrity(db);
      } finally {
        db.close();
      }
    });
  }

  it('every supported schema version (1..16) can be built and searched', () => {
    for (const version of LEGACY_VERSIONS) {
      const d = buildLegacyArchive(sub(`every${version}`), version);
      const db = new Database(d.path, { readonly: true });
      try {
        assert.equal(db.pragma('user_version', { simple: true }), version);
        assert.equal((db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n, d.messages.length);
        assert.equal(tables(db).includes('schema_migrations'), version >= 14, `ledger at v${version}`);
        assert.equal(
          (db.prepare("SELECT COUNT(*) AS n FROM attachments WHERE kind = 'video'").get() as { n: number }).n,
          version >= 16 ? 1 : 0,
        );
        ftsIntegrity(db);
      } finally {
        db.close();
      }
    }
  });

  it('demo archive is believable and deterministic', () => {
    const d = buildDemoArchive(sub('demo'));
    assert.ok(d.messages.length >= 150 && d.messages.length <= 600, `${d.messages.length} messages`);
    const lines = d.messages.map((m) => `${m.sender}: ${m.body}`).filter((l) => !l.endsWith(": "));
    assert.equal(new Set(lines).size, lines.length, "no exchange repeats verbatim");
    assert.deepEqual([...new Set(d.conversations.map((c) => c.source))].sort(), ['imessage', 'signal', 'whatsapp']);
    assert.ok(d.conversations.reduce((n, c) => n + c.images, 0) >= 10);
    assert.ok(d.conversations.reduce((n, c) => n + c.linkRows, 0) >= 10);
    assert.equal(contentDigest(buildDemoArchive(sub('demo2')).path), contentDigest(d.path));
  });

  it('the demo archive shipped in the extension (media/demo) is the generator\'s current output', () => {
    const shippedDir = sub('shipped-demo');
    fs.mkdirSync(shippedDir, { recursive: true });
    const shipped = path.join(shippedDir, 'msgbrowse.sqlite');
    const gz = path.join(__dirname, '../../media/demo/msgbrowse.sqlite.gz');
    fs.writeFileSync(shipped, gunzipSync(fs.readFileSync(gz)));
    const fresh = buildDemoArchive(sub('fresh-demo'));
    assert.equal(contentDigest(shipped), contentDigest(fresh.path), 'regenerate it: npx tsx media/demo/generate.ts');
  });

  it('scale archive: stats match the rows, embeddings newest-first, deterministic', () => {
    const file = path.join(sub('scale'), 'scale.sqlite');
    const d = buildScaleArchive(file, { messages: 3000, conversations: 30, dim: 16, model: 'bench', seed: 5, progress: false });
    const db = new Database(file, { readonly: true });
    try {
      const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      assert.equal(n('SELECT COUNT(*) AS n FROM messages'), 3000);
      assert.equal(n('SELECT COUNT(*) AS n FROM conversations'), d.conversations);
      assert.equal(n('SELECT COUNT(*) AS n FROM messages WHERE is_system = 1'), d.systemMessages);
      assert.equal(n('SELECT COUNT(*) AS n FROM links'), d.links);
      assert.equal(n("SELECT COUNT(*) AS n FROM attachments WHERE kind = 'video'"), d.attachments.video);
      assert.equal(n('SELECT COUNT(*) AS n FROM reactions'), d.reactions);
      assert.equal(n("SELECT COUNT(*) AS n FROM embeddings WHERE model = 'bench' AND dim = 16 AND length(vec) = 64"), d.embeddings?.count);
      assert.equal(n("SELECT COUNT(*) AS n FROM messages WHERE is_system = 0 AND TRIM(body) <> ''"), d.embeddings?.count);
      const newest = db.prepare("SELECT hash FROM messages WHERE is_system = 0 AND TRIM(body) <> '' ORDER BY ts_unix DESC, id DESC LIMIT 1").get() as { hash: string };
      assert.equal((db.prepare('SELECT message_hash AS h FROM embeddings ORDER BY rowid LIMIT 1').get() as { h: string }).h, newest.hash);
      assert.equal(n('SELECT MAX(c) AS n FROM (SELECT COUNT(*) AS c FROM messages GROUP BY conversation_id)'), d.largestConversation.messages);
      assert.ok(d.largestConversation.messages > 3000 / d.conversations * 3, 'heavy-tailed sizes');
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      ftsIntegrity(db);
    } finally {
      db.close();
    }
    const file2 = path.join(sub('scale'), 'scale2.sqlite');
    buildScaleArchive(file2, { messages: 3000, conversations: 30, dim: 16, model: 'bench', seed: 5, progress: false });
    assert.equal(contentDigest(file2), contentDigest(file));
  });
});

describe('WAL, live writer and hostile files', () => {
  it('leaveRowsInWal: committed rows live only in the -wal file and a reader sees them', async () => {
    const d = buildMsgbrowseMcpFixture(sub('wal'));
    const r = await leaveRowsInWal(d.path, {
      source: 'signal',
      conversation: 'Harper',
      messages: [{ ts: '2022-03-03 10:00:00', sender: 'Harper', body: 'written only to the wal' }],
    });
    assert.ok(r.walBytes > 0);
    const db = new Database(d.path, { readonly: true });
    try {
      assert.equal((db.prepare('SELECT body FROM messages WHERE hash = ?').get(r.messages[0].hash) as { body: string }).body, 'written only to the wal');
      assert.equal((db.prepare("SELECT COUNT(*) AS n FROM messages_fts WHERE messages_fts MATCH 'wal'").get() as { n: number }).n, 1);
    } finally {
      db.close();
    }
  });

  it('live writer commits re-imports and appends, one JSON line per transaction', async () => {
    const d = buildMsgbrowseMcpFixture(sub('live'));
    const lw = spawnLiveWriter(d.path, { iterations: 5, intervalMs: 10, batch: 2, checkpointEvery: 2, conversation: 'Live' });
    const first = await lw.waitFor((e) => e.kind === 'reimport');
    assert.equal(first.kind === 'reimport' && first.messageCount, 2);
    const events = await lw.finished;
    const commits = events.filter((e) => e.kind === 'reimport' || e.kind === 'append');
    assert.equal(commits.length, 6);
    assert.deepEqual(commits.map((e) => e.kind), ['reimport', 'append', 'reimport', 'append', 'reimport', 'append']);
    assert.ok(events.some((e) => e.kind === 'checkpoint'));
    assert.equal(events[events.length - 1].kind, 'done');
    const last = commits[commits.length - 1];
    const db = new Database(d.path, { readonly: true });
    try {
      assert.ok(last.kind === 'append');
      assert.equal((db.prepare('SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ?').get(last.conversationId) as { n: number }).n, last.messageCount);
      for (const m of last.added) assert.equal((db.prepare('SELECT id FROM messages WHERE hash = ?').get(m.hash) as { id: number }).id, m.id);
      ftsIntegrity(db);
    } finally {
      db.close();
    }
  });

  it('hostile files are what they claim to be', () => {
    const dir = sub('hostile');
    const newer = new Database(writeNewerSchemaArchive(path.join(dir, 'newer.sqlite')), { readonly: true });
    assert.equal(newer.pragma('user_version', { simple: true }), 17);
    newer.close();
    const other = new Database(writeNonMsgbrowseSqlite(path.join(dir, 'other.sqlite')), { readonly: true });
    assert.equal(other.pragma('user_version', { simple: true }), 0);
    assert.ok(!tables(other).includes('messages_fts'));
    other.close();
    const rnd = writeRandomBytesFile(path.join(dir, 'random.sqlite'));
    assert.equal(fs.statSync(rnd).size, 65536);
    assert.throws(() => new Database(rnd, { readonly: true }).prepare('SELECT 1 FROM sqlite_master').all(), /not a database/);
    const trunc = writeTruncatedArchive(path.join(dir, 'trunc.sqlite'));
    assert.equal(fs.readFileSync(trunc).subarray(0, 15).toString('latin1'), 'SQLite format 3');
    assert.throws(() => {
      const t = new Database(trunc, { readonly: true });
      try {
        t.prepare('SELECT COUNT(*) FROM messages').get();
        t.prepare("INSERT INTO messages_fts(messages_fts) VALUES('integrity-check')").run();
      } finally {
        t.close();
      }
    }, /malformed|not a database|readonly/i);
  });
});
