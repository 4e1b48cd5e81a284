/**
 * Index builds split between two build threads (src/engine/index-build.ts) on real archives: the same parts as one
 * build thread, byte for byte, for one model and for each of two; orphans, NaN vectors and a damaged row; the
 * fallback to one thread when the archive holds more rows than were counted; cancellation.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { after, before, describe, it } from 'node:test';
import { openArchive } from '../../src/archive';
import type { Archive } from '../../src/archive/types';
import { buildInWorker } from '../../src/engine/index-build';
import { splitPlacements, type IndexParts } from '../../src/search/vector';
import { buildScaleArchive } from '../fixtures';
import { assertSameParts } from './same-parts';

let dir: string;
let file: string;
let archive: Archive;
/** One model only: its rowid span is the table's ends. */
let single: string;
let singleArchive: Archive;
const MODEL = 'bench-embed';
const OTHER = 'second-embed';

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'split-build-'));
  file = path.join(dir, 'msgbrowse.sqlite');
  buildScaleArchive(file, { messages: 3000, dim: 16, model: MODEL, seed: 7, progress: false });
  const db = new Database(file);
  // A second model, embedded later (its rows after the first model's), for half the messages; a NaN vector in
  // each model; orphans: messages deleted after they were embedded.
  db.exec(`INSERT INTO embeddings (message_hash, model, dim, vec)
           SELECT message_hash, '${OTHER}', 4, substr(vec, 1, 16) FROM embeddings WHERE model = '${MODEL}' AND rowid % 2 = 0`);
  const nan = Buffer.alloc(64);
  nan.writeFloatLE(Number.NaN, 8);
  db.prepare('UPDATE embeddings SET vec = ? WHERE rowid = (SELECT rowid FROM embeddings WHERE model = ? ORDER BY rowid LIMIT 1 OFFSET 2500)').run(nan, MODEL);
  db.exec(`DELETE FROM messages WHERE id IN (SELECT id FROM messages ORDER BY id LIMIT 40 OFFSET 100)`);
  db.exec(`DELETE FROM messages WHERE id IN (SELECT id FROM messages ORDER BY id DESC LIMIT 40 OFFSET 10)`);
  db.close();
  archive = await openArchive(file);
  single = path.join(dir, 'single.sqlite');
  buildScaleArchive(single, { messages: 2500, dim: 24, model: MODEL, seed: 11, progress: false });
  singleArchive = await openArchive(single);
});

after(() => {
  archive?.close();
  singleArchive?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function countOf(model: string): { total: number; dim: number } {
  const m = archive.embeddingModels().find((x) => x.model === model)!;
  return { total: m.count, dim: m.dim };
}

function build(
  model: string,
  threads: number,
  extra: { total?: number; signal?: AbortSignal; log?: (m: string) => void; onProgress?: (p: { done: number }) => void } = {},
): Promise<IndexParts> {
  const { total, dim } = countOf(model);
  return buildInWorker({ archivePath: file, model, dim, total, threads, span: () => archive.embeddingSpan(model), ...extra });
}

const SPLIT = /building \d+ vectors in two threads/;
/** The upper range did not stream through the lower range's join (it scanned `messages` itself). */
const OWN_JOIN = /upper range scans messages for its own join/;
const FELL_BACK = /building again in one thread/;


describe('index builds split between two build threads', () => {
  it("the rowid span: the table's ends for one model, the model's own rows among several", () => {
    const span = archive.embeddingSpan(MODEL)!;
    const other = archive.embeddingSpan(OTHER)!;
    assert.ok(span.first < span.last && span.last < other.first && other.first < other.last);
    const db = new Database(file, { readonly: true });
    const want = (m: string) => db.prepare('SELECT MIN(rowid) AS first, MAX(rowid) AS last FROM embeddings WHERE model = ?').get(m);
    assert.deepEqual([span, other], [want(MODEL), want(OTHER)]);
    db.close();
    assert.equal(archive.embeddingSpan('no-such-model'), undefined);
  });

  for (const model of [MODEL, OTHER]) {
    it(`${model}: the parts of two threads are those of one`, async () => {
      const logs: string[] = [];
      const one = await build(model, 1);
      const two = await build(model, 2, { log: (m) => logs.push(m) });
      assert.ok(logs.some((m) => SPLIT.test(m)) && !logs.some((m) => FELL_BACK.test(m) || OWN_JOIN.test(m)), logs.join('\n'));
      assert.ok(one.n > 0 && one.n < countOf(model).total, 'orphans (and the NaN row) are left out');
      assertSameParts(two, one);
    });
  }

  it('one model in the archive: its span is the table\'s ends, and two threads build what one does', async () => {
    const m = singleArchive.embeddingModels();
    assert.equal(m.length, 1);
    const db = new Database(single, { readonly: true });
    assert.deepEqual(singleArchive.embeddingSpan(MODEL), db.prepare('SELECT MIN(rowid) AS first, MAX(rowid) AS last FROM embeddings').get());
    db.close();
    const logs: string[] = [];
    const req = { archivePath: single, model: MODEL, dim: m[0].dim, total: m[0].count, span: () => singleArchive.embeddingSpan(MODEL) };
    const one = await buildInWorker({ ...req, threads: 1 });
    const two = await buildInWorker({ ...req, threads: 2, log: (x) => logs.push(x) });
    assert.ok(logs.some((x) => SPLIT.test(x)) && !logs.some((x) => FELL_BACK.test(x) || OWN_JOIN.test(x)), logs.join('\n'));
    assert.equal(one.n, m[0].count);
    assertSameParts(two, one);
  });

  it('more rows than were counted: the split build gives way to one thread, with the same parts', async () => {
    const logs: string[] = [];
    const { total } = countOf(MODEL);
    const want = await build(MODEL, 1);
    const got = await build(MODEL, 2, { total: total - 200, log: (m) => logs.push(m) });
    assert.ok(logs.some((m) => /outnumber the \d+ counted when the build started .* building again in one thread/.test(m)), logs.join('\n'));
    assertSameParts(got, want);
  });

  for (const where of ['the upper half', 'both halves'] as const) {
    it(`a damaged row in ${where} fails the split build with the archive error a one-thread build gives`, async () => {
      const copy = path.join(dir, `damaged-${where.replace(' ', '-')}.sqlite`);
      fs.copyFileSync(file, copy);
      const db = new Database(copy);
      const damage = db.prepare('UPDATE embeddings SET vec = ? WHERE rowid = ?');
      const { first, last } = archive.embeddingSpan(MODEL)!;
      // Where index-build.ts splits the span.
      const mid = first + Math.floor((last - first) / 2);
      // The upper range's row comes early in its half, the lower range's late in its own: the upper range fails
      // first, and the answer must still be the lower range's error, the one a one-thread build meets first.
      damage.run(Buffer.alloc(10), mid + 5);
      if (where === 'both halves') damage.run(Buffer.alloc(12), mid - 5);
      db.close();
      const { total, dim } = countOf(MODEL);
      const attempt = (threads: number) => buildInWorker({ archivePath: copy, model: MODEL, dim, total, threads, span: () => ({ first, last }) });
      const message = await attempt(1).then(
        () => assert.fail('the damaged row was not reported'),
        (e: Error) => e.message,
      );
      assert.match(message, where === 'both halves' ? /is damaged: 12 bytes but dim 16 needs 64 bytes/ : /is damaged: 10 bytes but dim 16 needs 64 bytes/);
      await assert.rejects(attempt(2), (e: Error) => e.message === message);
    });
  }

  it('skipped rows past the threshold: the merged index moves to a memory of its own size, with the same parts', async () => {
    // Wide rows and a fifth of them orphaned: the upper range's rows left past the merged index outweigh the planes
    // written after it, so something is left behind (here the threshold is 0; in use it is 16 MiB).
    const wide = path.join(dir, 'wide.sqlite');
    buildScaleArchive(wide, { messages: 2000, dim: 256, model: MODEL, seed: 5, progress: false });
    const db = new Database(wide);
    db.exec('DELETE FROM messages WHERE id % 5 = 0');
    const m = db.prepare('SELECT COUNT(*) AS n FROM embeddings').get() as { n: number };
    const span = db.prepare('SELECT MIN(rowid) AS first, MAX(rowid) AS last FROM embeddings').get() as { first: number; last: number };
    db.close();
    const req = { archivePath: wide, model: MODEL, dim: 256, total: m.n, span: () => span };
    const logs: string[] = [];
    process.env.MSGBROWSE_TEST_SPLIT_COMPACT_BYTES = '0';
    let two: IndexParts;
    try {
      two = await buildInWorker({ ...req, threads: 2, log: (x) => logs.push(x) });
    } finally {
      delete process.env.MSGBROWSE_TEST_SPLIT_COMPACT_BYTES;
    }
    assert.ok(logs.some((x) => /counted rows were skipped; the index moved to a memory of its own size/.test(x)), logs.join('\n'));
    const one = await buildInWorker({ ...req, threads: 1 });
    assert.ok(one.n < m.n * 0.9, 'orphans were skipped');
    assertSameParts(two, one);
    assert.ok(two.memory.buffer.byteLength < splitPlacements(MODEL, 256, m.n)[0].memory.buffer.byteLength, 'a memory of the index\'s own size');
  });

  it('negative rowids stay out of a split build as out of a one-thread build', async () => {
    const copy = path.join(dir, 'negative.sqlite');
    fs.copyFileSync(single, copy);
    const db = new Database(copy);
    // Spread far enough below 0 that the middle of the whole span is negative too.
    db.exec('UPDATE embeddings SET rowid = -rowid * 10 - 100 WHERE rowid <= 400');
    const raw = db.prepare('SELECT MIN(rowid) AS first, MAX(rowid) AS last FROM embeddings').get() as { first: number; last: number };
    const m = db.prepare('SELECT COUNT(*) AS n, MAX(dim) AS dim FROM embeddings').get() as { n: number; dim: number };
    db.close();
    assert.ok(raw.first + Math.floor((raw.last - raw.first) / 2) < -1, JSON.stringify(raw));
    const negative = await openArchive(copy);
    const span = negative.embeddingSpan(MODEL)!;
    negative.close();
    // The span starts where the archive's stream does, so no split can take in a row a one-thread build skips.
    assert.deepEqual(span, { first: 0, last: raw.last });
    const req = { archivePath: copy, model: MODEL, dim: m.dim, total: m.n, span: () => span };
    const one = await buildInWorker({ ...req, threads: 1 });
    const logs: string[] = [];
    const two = await buildInWorker({ ...req, threads: 2, log: (x) => logs.push(x) });
    assert.ok(logs.some((x) => SPLIT.test(x)) && !logs.some((x) => FELL_BACK.test(x) || OWN_JOIN.test(x)), logs.join('\n'));
    assert.ok(one.n > 0 && one.n <= m.n - 400);
    assertSameParts(two, one);
  });

  it('a cancelled split build rejects with an AbortError', async () => {
    const abort = new AbortController();
    const building = build(MODEL, 2, { signal: abort.signal });
    setTimeout(() => abort.abort(), 5);
    await assert.rejects(building, (e: Error) => e.name === 'AbortError');
  });

  it('cancelled while the upper range waits for the lower one: the upper range sees it and ends', { timeout: 30_000 }, async () => {
    // Every record both ranges read (a one-thread build reads the same): once progress reaches it, both ranges'
    // rows are in, the lower range is held by the stall below and the upper one waits for its part.
    const s = (await build(MODEL, 1)).stats;
    const read = s.indexed + s.skippedWrongLength + s.skippedNonFinite;
    // Each build thread blocks outright before it answers, so the lower range keeps its part.
    process.env.MSGBROWSE_TEST_BUILD_STALL_MS = '3000';
    const logs: string[] = [];
    const abort = new AbortController();
    let building: Promise<IndexParts>;
    const ended = new Promise<void>((resolve) => {
      building = build(MODEL, 2, {
        signal: abort.signal,
        onProgress: (p) => {
          if (p.done >= read) abort.abort();
        },
        log: (m) => {
          logs.push(m);
          if (/cancelled while the upper range waited/.test(m)) resolve();
        },
      });
    });
    delete process.env.MSGBROWSE_TEST_BUILD_STALL_MS;
    await assert.rejects(building!, (e: Error) => e.name === 'AbortError');
    // Without its look at the cancel flag the waiting thread would be killed silently at the 2 s grace instead.
    await ended;
    assert.ok(logs.some((m) => SPLIT.test(m)), logs.join('\n'));
  });
});
