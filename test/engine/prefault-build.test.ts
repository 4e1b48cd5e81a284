/**
 * A one-thread index build whose memory the engine worker made and committed ahead (src/engine/index-build.ts,
 * src/search/vector/prefault.ts): the build writes into that memory, and its parts are byte for byte those of a
 * build that made its own, orphans and a NaN row included.
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
import { wholeBuildMemory } from '../../src/search/vector';
import { TOUCH_PAGE } from '../../src/search/vector/prefault';
import { buildScaleArchive } from '../fixtures';
import { assertSameParts } from './same-parts';

const MODEL = 'bench-embed';
let dir: string;
let file: string;
let archive: Archive;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefault-build-'));
  file = path.join(dir, 'msgbrowse.sqlite');
  buildScaleArchive(file, { messages: 3000, dim: 96, model: MODEL, seed: 5, progress: false });
  const db = new Database(file);
  const nan = Buffer.alloc(96 * 4);
  nan.writeFloatLE(Number.NaN, 40);
  db.prepare('UPDATE embeddings SET vec = ? WHERE rowid = (SELECT rowid FROM embeddings ORDER BY rowid LIMIT 1 OFFSET 1200)').run(nan);
  db.exec('DELETE FROM messages WHERE id IN (SELECT id FROM messages ORDER BY id LIMIT 30 OFFSET 500)');
  db.close();
  archive = await openArchive(file);
});

after(() => {
  archive?.close();
  delete process.env.MSGBROWSE_TEST_PREFAULT_MIN_ROWS;
  fs.rmSync(dir, { recursive: true, force: true });
});

const COMMITTED = /vector index for model bench-embed: (\d+) pages of its memory committed ahead of the build/;

function build(prefaultFrom: number | undefined, log?: (m: string) => void) {
  if (prefaultFrom === undefined) delete process.env.MSGBROWSE_TEST_PREFAULT_MIN_ROWS;
  else process.env.MSGBROWSE_TEST_PREFAULT_MIN_ROWS = String(prefaultFrom);
  const m = archive.embeddingModels().find((x) => x.model === MODEL)!;
  return { count: m, parts: buildInWorker({ archivePath: file, model: MODEL, dim: m.dim, total: m.count, threads: 1, log }) };
}

describe('one-thread builds into a memory committed ahead of them', () => {
  it('writes its rows into the memory made ahead, and builds what a build with its own memory builds', async () => {
    const logs: string[] = [];
    const own = await build(undefined, (m) => logs.push(m)).parts;
    assert.ok(!logs.some((m) => COMMITTED.test(m)), 'below the threshold: no memory made ahead');
    const { count, parts } = build(1, (m) => logs.push(m));
    const ahead = await parts;
    const said = logs.map((m) => COMMITTED.exec(m)).find(Boolean);
    assert.ok(said, logs.join('\n'));
    assert.ok(logs.some((m) => /the rows of model bench-embed went into the memory made ahead/.test(m)), logs.join('\n'));
    // Every page of the memory the build starts with: what wholeBuildMemory makes for these rows.
    const { bytes } = wholeBuildMemory(count.dim, count.count);
    assert.ok(Number(said[1]) > 0 && Number(said[1]) <= Math.ceil(bytes / TOUCH_PAGE), said[0]);
    assert.equal(ahead.memory.buffer.byteLength, Math.ceil(bytes / 65536) * 65536, 'the parts live in the memory made ahead');
    assert.ok(ahead.n > 0 && ahead.n < count.count, 'orphans and the NaN row are left out');
    assertSameParts(ahead, own);
  });

  it('more rows than were counted: the memory made ahead grows, and the parts are still the same', async () => {
    const own = await build(undefined).parts;
    process.env.MSGBROWSE_TEST_PREFAULT_MIN_ROWS = '1';
    const m = archive.embeddingModels().find((x) => x.model === MODEL)!;
    const logs: string[] = [];
    const ahead = await buildInWorker({ archivePath: file, model: MODEL, dim: m.dim, total: 1100, threads: 1, log: (x) => logs.push(x) });
    assert.ok(logs.some((x) => COMMITTED.test(x)), logs.join('\n'));
    // Made for 1100 rows, the memory holds only part of them; the builder grows it as rows arrive.
    assert.ok(logs.some((x) => /the rows of model bench-embed went into the memory made ahead/.test(x)), logs.join('\n'));
    assertSameParts(ahead, own);
  });

  it('a build that would be split (here: one that fell back to one thread) gets no memory made ahead: no core is idle', async () => {
    process.env.MSGBROWSE_TEST_PREFAULT_MIN_ROWS = '1';
    process.env.MSGBROWSE_TEST_SPLIT_MIN_ROWS = '100';
    try {
      const m = archive.embeddingModels().find((x) => x.model === MODEL)!;
      const logs: string[] = [];
      await buildInWorker({ archivePath: file, model: MODEL, dim: m.dim, total: m.count, threads: 1, log: (x) => logs.push(x) });
      assert.ok(!logs.some((x) => COMMITTED.test(x) || /memory made ahead/.test(x)), logs.join('\n'));
    } finally {
      delete process.env.MSGBROWSE_TEST_SPLIT_MIN_ROWS;
    }
  });

  it('no memory is made ahead past the 4 GiB a memory can hold', () => {
    assert.throws(() => wholeBuildMemory(16384, 300_000), /past the 4 GiB a memory can hold/);
  });
});
