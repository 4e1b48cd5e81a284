/**
 * Broken archives: each damage gives a specific error (naming the problem) for exactly the calls it
 * affects, and everything else keeps working — in the same server process, without a restart.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  buildCuratedArchive,
  writeArchiveWithoutColumn,
  writeNonMsgbrowseSqlite,
  writeRandomBytesFile,
  writeTruncatedArchive,
  type CuratedArchive,
} from '../fixtures/index';
import { checkToolResult, textOf, trapUnhandled, withTimeout } from './harness/checks';
import { corruptTablePages, damageEmbedding } from './harness/corrupt';
import { diffSnapshots, snapshotDir } from './harness/fs-snapshot';
import { connectInMemory, startRuntime, type Connected } from './harness/server';
import type { Runtime } from '../../src/core/index';

type Call = [tool: string, args: Record<string, unknown>];

function allCalls(messageId = 1, conversationId = 1): Call[] {
  return [
    ['list_conversations', {}],
    ['get_conversation', { conversation_id: conversationId }],
    ['search_messages', { query: 'lease' }],
    ['semantic_search', { query: 'the lease agreement is ready' }],
    ['get_context', { message_id: messageId }],
    ['list_media', {}],
    ['list_links', {}],
  ];
}

let root: string;
const open: { runtime: Runtime; conn: Connected }[] = [];

async function serve(file: string): Promise<Connected> {
  const runtime = startRuntime({
    archivePath: file,
    embedModel: 'test-embed',
    embedDim: 8,
    extra: { closeGraceMs: 10 },
  });
  const conn = await connectInMemory(runtime);
  open.push({ runtime, conn });
  return conn;
}

async function call(conn: Connected, [tool, args]: Call) {
  const label = `${tool} ${JSON.stringify(args)}`;
  const res = await withTimeout(
    conn.client.callTool({ name: tool, arguments: args }, { timeout: 30_000 }),
    32_000,
    label,
  );
  return { verdict: checkToolResult(res, label), text: textOf(res), res, label };
}

/** Every call fails with a message matching `expected` (the same specific diagnosis for every tool). */
async function expectAllFail(file: string, expected: RegExp): Promise<void> {
  const before = snapshotDir(path.dirname(file));
  const conn = await serve(file);
  for (const c of allCalls()) {
    const r = await call(conn, c);
    assert.equal(r.verdict.kind, 'error', `${r.label}: succeeded on a broken archive: ${r.text.slice(0, 200)}`);
    assert.match(r.text, expected, `${r.label}: unspecific error`);
  }
  assert.deepEqual(diffSnapshots(before, snapshotDir(path.dirname(file))), [], 'the broken file was touched');
}

function fresh(name: string): string {
  const d = path.join(root, name);
  fs.mkdirSync(d, { recursive: true });
  return path.join(d, 'msgbrowse.sqlite');
}

describe('broken archives: specific errors, the rest keeps working', { timeout: 120_000 }, () => {
  let trap: ReturnType<typeof trapUnhandled>;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-broken-'));
    trap = trapUnhandled();
  });
  after(async () => {
    for (const { conn, runtime } of open) {
      await conn.close().catch(() => {});
      await runtime.dispose().catch(() => {});
    }
    trap.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a missing file and a directory without an archive are named as such', async () => {
    await expectAllFail(fresh('missing'), /does not exist|no such|not found|missing|no longer exists/i);
    const emptyDir = path.join(root, 'empty-dir');
    fs.mkdirSync(emptyDir);
    await expectAllFail(emptyDir, /no msgbrowse\.sqlite|no archive|does not contain|not found|missing/i);
  });

  it('random bytes → "not a SQLite database"', async () => {
    await expectAllFail(writeRandomBytesFile(fresh('random')), /not a SQLite database/i);
  });

  it('an empty (0-byte) file → not an archive', async () => {
    const f = fresh('zero');
    fs.writeFileSync(f, '');
    await expectAllFail(f, /not a msgbrowse archive|not a SQLite database|empty/i);
  });

  it('another application\'s SQLite file → "not a msgbrowse archive"', async () => {
    await expectAllFail(writeNonMsgbrowseSqlite(fresh('other')), /not a msgbrowse archive/i);
  });

  it('an archive without messages.sender → names the column and who writes it', async () => {
    await expectAllFail(
      writeArchiveWithoutColumn(fresh('nosender'), 'messages', 'sender'),
      /messages\.sender is missing \(msgbrowse v1–v20 have it\)/,
    );
    const conn = open[open.length - 1].conn;
    const r = await call(conn, ['list_conversations', {}]);
    assert.match(r.text, /messages\.sender/);
  });

  it('a truncated file → a damage diagnosis (malformed / corrupt), never a crash', async () => {
    await expectAllFail(writeTruncatedArchive(fresh('truncated')), /malformed|corrupt|damaged|truncated/i);
  });

  it('a corrupt FTS index page → only keyword search fails (naming the damage); reading, context, media, links and semantic search work', async () => {
    const dir = path.join(root, 'fts');
    const desc: CuratedArchive = buildCuratedArchive(dir);
    const pages = corruptTablePages(desc.path, 'messages_fts_data');
    assert.ok(pages.length > 0);
    const before = snapshotDir(dir);
    const conn = await serve(desc.path);
    const lease = desc.marks.leaseAgreement;
    for (const c of allCalls(lease.id, lease.conversationId)) {
      const r = await call(conn, c);
      if (c[0] === 'search_messages') {
        assert.equal(
          r.verdict.kind,
          'error',
          `keyword search on a corrupt FTS index must not pretend to work: ${r.text.slice(0, 200)}`,
        );
        assert.match(r.text, /malformed|corrupt|damaged/i);
      } else {
        assert.equal(r.verdict.kind, 'ok', `${r.label} should not depend on the FTS index: ${r.text.slice(0, 300)}`);
      }
    }
    // The results that work are the right ones, not empty placeholders.
    const conv = await call(conn, ['get_conversation', { conversation_id: lease.conversationId }]);
    const msgs = (conv.res.structuredContent as { messages: { message_id: number }[] }).messages;
    assert.ok(msgs.some((m) => m.message_id === lease.id));
    const sem = await call(conn, ['semantic_search', { query: 'the lease agreement is ready', k: 3 }]);
    assert.equal((sem.res.structuredContent as { hits: { message_id: number }[] }).hits[0]?.message_id, lease.id);
    assert.deepEqual(diffSnapshots(before, snapshotDir(dir)), []);
  });

  it('an embeddings blob whose length ≠ dim×4 → semantic search skips or names it; keyword search works and says why it is keyword-only', async () => {
    const dir = path.join(root, 'blob');
    const desc: CuratedArchive = buildCuratedArchive(dir);
    const victim = desc.marks.leaseAgreement;
    damageEmbedding(desc.path, victim.hash, 'test-embed', 30);
    const before = snapshotDir(dir);
    const conn = await serve(desc.path);
    const sem = await call(conn, ['semantic_search', { query: 'the lease agreement is ready', k: 100 }]);
    if (sem.verdict.kind === 'error') {
      assert.match(sem.text, /damaged|length|bytes|dim/i, 'the error names the damaged vector');
      assert.ok(sem.text.includes(victim.hash) || /30 bytes/.test(sem.text), 'the error identifies the row');
    } else {
      const hits = (sem.res.structuredContent as { hits: { message_id: number }[] }).hits;
      assert.ok(!hits.some((h) => h.message_id === victim.id), 'a damaged vector was scored');
      assert.match(sem.text, /skip|damaged|ignored/i, 'skipping the damaged vector is reported');
    }
    const kw = await call(conn, ['search_messages', { query: 'lease agreement' }]);
    assert.equal(kw.verdict.kind, 'ok', kw.text.slice(0, 300));
    const hits = (kw.res.structuredContent as { hits: { message_id: number }[] }).hits;
    assert.ok(
      hits.some((h) => h.message_id === victim.id),
      'keyword search still finds the message',
    );
    if (sem.verdict.kind === 'error') {
      const semantic = (kw.res.structuredContent as { semantic?: { used: boolean; reason?: string } }).semantic;
      assert.equal(semantic?.used, false);
      assert.match(
        semantic?.reason ?? '',
        /damaged|bytes|dim/i,
        'the hybrid result says why the semantic half is missing',
      );
    }
    for (const c of allCalls(victim.id, victim.conversationId).filter(
      ([t]) => t !== 'semantic_search' && t !== 'search_messages',
    )) {
      assert.equal((await call(conn, c)).verdict.kind, 'ok', c[0]);
    }
    assert.deepEqual(diffSnapshots(before, snapshotDir(dir)), []);
  });

  it('the same server recovers when a broken file is replaced by a good archive (no restart)', async () => {
    const dir = path.join(root, 'recover');
    const file = writeRandomBytesFile(path.join(dir, 'msgbrowse.sqlite'));
    const conn = await serve(file);
    assert.equal((await call(conn, ['list_conversations', {}])).verdict.kind, 'error');
    const good = buildCuratedArchive(path.join(root, 'good-source'));
    fs.copyFileSync(good.path, path.join(dir, 'incoming.sqlite'));
    fs.renameSync(path.join(dir, 'incoming.sqlite'), file);
    const r = await call(conn, ['list_conversations', {}]);
    assert.equal(r.verdict.kind, 'ok', `not picked up: ${r.text.slice(0, 200)}`);
    const n = (r.res.structuredContent as { conversations: unknown[] }).conversations.length;
    assert.equal(n, good.conversations.length);
    trap.assertNone();
  });
});
