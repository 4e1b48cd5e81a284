/**
 * A build thread started ahead of its build (index-build.ts's prepareBuildThread; the engine worker starts one
 * beside its own start when the CLI prewarms an index that no cache file holds): the build it runs is the build a
 * new thread runs, byte for byte; a change of the archive after it prepared its join to messages is built from
 * (the new message's vector is in the index, not dropped as an orphan of an older join); a thread for another
 * archive, or one nobody claims, ends; and the engine worker starts one only when the cache does not hold the index.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { after, before, describe, it } from 'node:test';
import { openArchive } from '../../src/archive';
import type { Archive } from '../../src/archive/types';
import { startEngineWorker } from '../../src/engine';
import { buildInWorker, discardBuildThread, hasStandbyBuildThread, prepareBuildThread } from '../../src/engine/index-build';
import type { IndexParts } from '../../src/search/vector';
import { buildScaleArchive } from '../fixtures';
import { assertSameParts } from './same-parts';

const MODEL = 'bench-embed';
const WORKER = path.resolve(__dirname, '../../src/engine/host.ts');
let dir: string;
let file: string;
let archive: Archive;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'standby-build-'));
  file = path.join(dir, 'msgbrowse.sqlite');
  buildScaleArchive(file, { messages: 2000, dim: 16, model: MODEL, seed: 5, progress: false });
  archive = await openArchive(file);
});

after(() => {
  discardBuildThread();
  archive?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function build(archivePath: string, logs: string[] = []): Promise<IndexParts> {
  const a = archivePath === file ? archive : undefined;
  const m = a?.embeddingModels().find((x) => x.model === MODEL);
  return buildInWorker({ archivePath, model: MODEL, dim: m?.dim ?? 16, total: m?.count, threads: 1, log: (s) => logs.push(s) });
}

const AHEAD = /building in the thread started ahead of the build/;

/** A fresh copy of the test archive, named `name`, for a test that changes it. */
function copyOf(name: string): string {
  const copy = path.join(dir, name);
  fs.copyFileSync(file, copy);
  return copy;
}

/** `fn` over the archive at `target`, opened for it and closed afterwards. */
async function withArchive(target: string, fn: (a: Archive) => void | Promise<void>): Promise<void> {
  const a = await openArchive(target);
  try {
    await fn(a);
  } finally {
    a.close();
  }
}


/** Adds one message and its vector to `target` (written by better-sqlite3, as msgbrowse would); returns its id. */
function addMessage(target: string, hash: string): number {
  const db = new Database(target);
  try {
    const cols = (db.prepare('PRAGMA table_info(messages)').all() as { name: string }[]).map((c) => c.name);
    const id = (db.prepare('SELECT max(id) + 1 AS id FROM messages').get() as { id: number }).id;
    const pick = cols.map((c) => (c === 'id' ? String(id) : c === 'hash' ? `'${hash}'` : c)).join(', ');
    db.exec(`INSERT INTO messages (${cols.join(', ')}) SELECT ${pick} FROM messages ORDER BY id LIMIT 1`);
    db.prepare(`INSERT INTO embeddings (message_hash, model, dim, vec) SELECT ?, model, dim, vec FROM embeddings WHERE model = ? ORDER BY rowid LIMIT 1`).run(hash, MODEL);
    return id;
  } finally {
    db.close();
  }
}

describe('the join an index build prepares ahead (Archive.prepareEmbeddingJoin)', () => {
  it('streams the same records as a stream that scans for its own join', async () => {
    const fresh = [...archive.embeddings(MODEL)].map((r) => [r.rowid, r.messageId, r.conversationId, r.tsUnix, r.sender, r.source, r.hash]);
    archive.prepareEmbeddingJoin();
    const prepared = [...archive.embeddings(MODEL)].map((r) => [r.rowid, r.messageId, r.conversationId, r.tsUnix, r.sender, r.source, r.hash]);
    assert.ok(fresh.length > 1900);
    assert.deepEqual(prepared, fresh);
  });

  it('is dropped when the files change before the stream: a message added meanwhile is joined, not an orphan', async () => {
    const copy = copyOf('changed-join.sqlite');
    await withArchive(copy, (a) => {
      a.prepareEmbeddingJoin();
      const id = addMessage(copy, 'added-after-the-join');
      const ids = [...a.embeddings(MODEL)].map((r) => r.messageId);
      assert.ok(ids.includes(id), 'the vector of the message added after the join was prepared is streamed');
    });
  });
});

describe("the join a split build's lower range hands its upper range (Archive.shareEmbeddingJoin, embeddingsJoinedLater)", () => {
  const cols = (r: { rowid: number; messageId: number; conversationId: number; tsUnix: number; sender?: string; source?: string }) => [r.rowid, r.messageId, r.conversationId, r.tsUnix, r.sender, r.source];
  /** A stream joined later, read to its end and joined through `shared`: the records a joined stream gives. */
  function joinedLater(a: Archive, shared: ReturnType<Archive['shareEmbeddingJoin']> | null) {
    const stream = a.embeddingsJoinedLater(MODEL, { expected: 100 });
    const read = [...stream].map((r) => ({ rowid: r.rowid, key: r.joinKey!, hash: r.hash }));
    const joined = stream.join(shared);
    const rows = read.flatMap((r) => {
      const m = joined.messageOf(r.key);
      return m ? [cols({ rowid: r.rowid, ...m })] : [];
    });
    return { read, rows, through: joined.through };
  }

  it('another connection joins its rows through it, as a stream with a join of its own, over the same memory', async () => {
    const other = await openArchive(file, { readAhead: true });
    try {
      const want = [...other.embeddings(MODEL)].map(cols);
      const shared = archive.shareEmbeddingJoin();
      // As postMessage carries it to another thread: the map's memory is shared, not copied.
      const carried = structuredClone(shared);
      assert.ok(carried.tables.ids.buffer instanceof SharedArrayBuffer);
      // A value written through the carried tables is read through the original ones (then put back).
      const id0 = carried.tables.ids[0];
      carried.tables.ids[0] = -7;
      const seen = shared.tables.ids[0];
      carried.tables.ids[0] = id0;
      assert.ok(seen === -7, 'the same memory, not a copy');
      const got = joinedLater(other, carried);
      assert.equal(got.through, 'shared');
      assert.deepEqual(got.rows, want);
      // The archive that shared it still streams through it.
      assert.deepEqual([...archive.embeddings(MODEL)].map(cols), want);
    } finally {
      other.close();
    }
  });

  it('orphans are read, then dropped by the join; a damaged orphan is no error, a damaged row with a message is', async () => {
    const copy = copyOf('orphans-later.sqlite');
    const db = new Database(copy);
    const hashes = db.prepare('SELECT hash FROM messages ORDER BY id LIMIT 3 OFFSET 50').pluck().all() as string[];
    // Two orphans (their messages deleted), one of them damaged.
    db.prepare('UPDATE embeddings SET vec = x\'0000\' WHERE message_hash = ?').run(hashes[0]);
    db.prepare('DELETE FROM messages WHERE hash IN (?, ?)').run(hashes[0], hashes[1]);
    db.close();
    await withArchive(copy, async (a) => {
      const want = [...a.embeddings(MODEL)].map(cols);
      const got = joinedLater(a, a.shareEmbeddingJoin());
      assert.equal(got.read.length, want.length + 1, 'the undamaged orphan is read (the damaged one held back)');
      assert.deepEqual(got.rows, want);
      const d = new Database(copy);
      d.prepare('UPDATE embeddings SET vec = x\'0000\' WHERE message_hash = ?').run(hashes[2]);
      d.close();
      await assert.rejects(async () => joinedLater(a, null), (e: Error) => /damaged/.test(e.message) && e.message.includes(hashes[2]));
    });
  });

  it('is not used by an archive whose files changed since it was read, which joins through its own (the new message too)', async () => {
    const copy = copyOf('shared-join.sqlite');
    await withArchive(copy, async (a) => {
      const shared = a.shareEmbeddingJoin();
      const id = addMessage(copy, 'added-after-the-shared-join');
      await withArchive(copy, (b) => {
        const got = joinedLater(b, shared);
        assert.equal(got.through, 'own');
        assert.ok(got.rows.some((r) => r[1] === id), 'the vector of the message added after the join was read is joined');
      });
    });
  });
});

describe('an index-build thread started ahead of its build', () => {
  it('runs the build a new thread runs, byte for byte, and is taken by it', async () => {
    const want = await build(file);
    prepareBuildThread(file);
    assert.equal(hasStandbyBuildThread(), true);
    // Let it prepare (engine, archive, join) before the build is asked for, as at a server's start.
    await sleep(1500);
    const logs: string[] = [];
    const got = await build(file, logs);
    assert.ok(logs.some((l) => AHEAD.test(l)), logs.join('\n'));
    assert.equal(hasStandbyBuildThread(), false);
    assertSameParts(got, want);
    // The next build starts a thread of its own.
    const next: string[] = [];
    assertSameParts(await build(file, next), want);
    assert.ok(!next.some((l) => AHEAD.test(l)));
  });

  it('builds the archive as it is when the build starts, not as it was when the thread prepared', async () => {
    const copy = copyOf('changed-standby.sqlite');
    prepareBuildThread(copy);
    await sleep(1500);
    const id = addMessage(copy, 'added-while-the-thread-waited');
    const logs: string[] = [];
    const got = await build(copy, logs);
    assert.ok(logs.some((l) => AHEAD.test(l)));
    assert.ok(Array.from(got.ids).includes(id), 'the vector of the message added after the thread prepared is indexed');
    assert.equal(got.n, archive.embeddingModels().find((x) => x.model === MODEL)!.count + 1);
  });

  it('is not used for another archive, and ends when nobody takes it', async () => {
    const other = copyOf('other.sqlite');
    prepareBuildThread(other);
    const logs: string[] = [];
    await build(file, logs);
    assert.ok(!logs.some((l) => AHEAD.test(l)));
    assert.equal(hasStandbyBuildThread(), false, 'the thread for the other archive ended');

    prepareBuildThread(file, undefined, 200);
    assert.equal(hasStandbyBuildThread(), true);
    await sleep(600);
    assert.equal(hasStandbyBuildThread(), false, 'ended after its idle time');

    prepareBuildThread(file);
    discardBuildThread();
    assert.equal(hasStandbyBuildThread(), false);
  });

  it("a split build takes both threads started ahead (the upper range's prepares no join); a build in one thread ends the upper one", async () => {
    const m = archive.embeddingModels().find((x) => x.model === MODEL)!;
    const split = (logs: string[]) =>
      buildInWorker({ archivePath: file, model: MODEL, dim: m.dim, total: m.count, threads: 2, span: () => archive.embeddingSpan(MODEL), log: (l) => logs.push(l) });
    const want = await build(file);
    prepareBuildThread(file);
    prepareBuildThread(file, undefined, undefined, 'upper');
    await sleep(1500);
    const logs: string[] = [];
    assertSameParts(await split(logs), want);
    assert.ok(logs.some((l) => AHEAD.test(l)), logs.join('\n'));
    assert.ok(logs.some((l) => /the upper range builds in the thread started ahead of it/.test(l)), logs.join('\n'));
    assert.ok(!logs.some((l) => /scans messages for its own join/.test(l)), logs.join('\n'));
    assert.equal(hasStandbyBuildThread('upper'), false);

    prepareBuildThread(file, undefined, undefined, 'upper');
    assert.equal(hasStandbyBuildThread('upper'), true);
    assertSameParts(await build(file), want);
    assert.equal(hasStandbyBuildThread('upper'), false, 'a build in one thread ended the upper range\'s thread');
  });

  it('reports an archive it could not open when its build is asked for, as a new thread would', async () => {
    const gone = copyOf('gone.sqlite');
    prepareBuildThread(gone);
    fs.rmSync(gone);
    await sleep(300);
    await assert.rejects(build(gone), (e: Error) => /does not exist/.test(e.message));
  });
});

describe('the engine worker starts a build thread ahead (WorkerInit.standbyBuild)', () => {
  it('when no cache file holds the index, and not when one does', async () => {
    const cacheDir = fs.mkdtempSync(path.join(dir, 'cache-'));
    const run = async (): Promise<string[]> => {
      const logs: string[] = [];
      const client = await startEngineWorker({ archivePath: file, workerScript: WORKER, log: (_l, m) => logs.push(m), standbyBuild: { model: MODEL, cacheDir } });
      try {
        const index = await client.vectorIndex(MODEL, { cacheDir, name: file });
        assert.ok(index.size > 1900);
        index.dispose();
        // The cache file is written after the index answers.
        for (let i = 0; i < 100 && !logs.some((l) => /written/.test(l)) && !logs.some((l) => /from cache|loaded/.test(l)); i++) await sleep(50);
      } finally {
        await client.close();
      }
      return logs;
    };
    const first = await run();
    assert.ok(first.some((l) => AHEAD.test(l)), first.join('\n'));
    assert.ok(first.some((l) => /written/.test(l)), first.join('\n'));
    const second = await run();
    assert.ok(!second.some((l) => AHEAD.test(l)), second.join('\n'));
    assert.ok(!second.some((l) => /building/.test(l)), `loaded from the cache:\n${second.join('\n')}`);
  });
});
