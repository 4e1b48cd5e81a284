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
import type { IndexParts } from '../../src/search/vector';
import { buildScaleArchive } from '../fixtures';

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

function build(model: string, threads: number, extra: { total?: number; signal?: AbortSignal; log?: (m: string) => void } = {}): Promise<IndexParts> {
  const { total, dim } = countOf(model);
  return buildInWorker({ archivePath: file, model, dim, total, threads, span: () => archive.embeddingSpan(model), ...extra });
}

const SPLIT = /building \d+ vectors in two threads/;
const FELL_BACK = /building again in one thread/;

function assertSameParts(got: IndexParts, want: IndexParts): void {
  assert.equal(got.n, want.n);
  assert.deepEqual(got.meta, want.meta);
  const rows = (p: IndexParts) => Buffer.from(new Uint8Array(p.memory.buffer, p.layout.matrixOff, p.n * p.layout.stride));
  assert.ok(rows(got).equals(rows(want)), 'int8 rows');
  for (const k of ['scale', 'err', 'qnorm', 'rowids', 'ids', 'conv', 'ts', 'sender', 'source'] as const) {
    assert.deepEqual(Array.from(got[k]), Array.from(want[k]), k);
  }
  assert.deepEqual([got.senders, got.sources, got.stats], [want.senders, want.sources, want.stats]);
}

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
      assert.ok(logs.some((m) => SPLIT.test(m)) && !logs.some((m) => FELL_BACK.test(m)), logs.join('\n'));
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
    assert.ok(logs.some((x) => SPLIT.test(x)) && !logs.some((x) => FELL_BACK.test(x)), logs.join('\n'));
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
      damage.run(Buffer.alloc(10), last - 5);
      // In the lower half too: a one-thread build meets that one first, and so must the split build's answer.
      if (where === 'both halves') damage.run(Buffer.alloc(12), first + 30);
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

  it('a cancelled split build rejects with an AbortError', async () => {
    const abort = new AbortController();
    const building = build(MODEL, 2, { signal: abort.signal });
    setTimeout(() => abort.abort(), 5);
    await assert.rejects(building, (e: Error) => e.name === 'AbortError');
  });

  it('cancelled while the upper range waits for the lower one: the upper range sees it and ends', { timeout: 15_000 }, async () => {
    // Each build thread blocks outright before it answers, so the lower range is still holding its part while the
    // upper range, its rows in, waits for it.
    process.env.MSGBROWSE_TEST_BUILD_STALL_MS = '3000';
    const logs: string[] = [];
    const abort = new AbortController();
    let building: Promise<IndexParts>;
    const ended = new Promise<void>((resolve) => {
      building = build(MODEL, 2, {
        signal: abort.signal,
        log: (m) => {
          logs.push(m);
          if (/cancelled while the upper range waited/.test(m)) resolve();
        },
      });
    });
    delete process.env.MSGBROWSE_TEST_BUILD_STALL_MS;
    // The upper range's rows are in well before the lower range wakes from its stall.
    setTimeout(() => abort.abort(), 1500);
    await assert.rejects(building!, (e: Error) => e.name === 'AbortError');
    // Without its look at the cancel flag the waiting thread would be killed silently at the 2 s grace instead.
    await ended;
    assert.ok(logs.some((m) => SPLIT.test(m)), logs.join('\n'));
  });
});
