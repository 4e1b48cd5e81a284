/**
 * The engine worker keeps the main thread free and stops cancelled work: a long FTS query on a generated
 * archive (30k messages, 256-d embeddings) runs while the main event loop keeps ticking; aborting it rejects at
 * once, the worker stops the statement (the next query is answered long before the long one would have
 * finished), and the connection keeps working. Requests are answered in FIFO order. A vector index build can be
 * cancelled (no cache file left behind) and keyword queries are answered while one runs.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startEngineWorker, type EngineClient } from '../../src/engine';
import { CANCEL_SLOTS } from '../../src/engine/protocol';
import { buildHeavyFtsArchive, buildScaleArchive, HEAVY_QUERY } from '../fixtures';

let dir: string;
let engine: EngineClient;
/**
 * 32 distinct broad prefixes (the cap) over an archive where each matches every message: FTS5 ranks and snippets
 * every message over 32 phrases, about a second in WASM. (Repeated tokens no longer make a query long: they are
 * searched once.)
 */
const LONG_QUERY = HEAVY_QUERY;
const HEAVY_MESSAGES = 12000;
let heavy: EngineClient;
const MESSAGES = 30000;
const MODEL = 'bench-embed';
let fullQueryMs = 0;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-cancel-'));
  buildScaleArchive(path.join(dir, 'msgbrowse.sqlite'), {
    messages: MESSAGES,
    dim: 256,
    model: MODEL,
    progress: false,
  });
  engine = await startEngineWorker({ archivePath: dir });
  buildHeavyFtsArchive(path.join(dir, 'heavy', 'msgbrowse.sqlite'), HEAVY_MESSAGES);
  heavy = await startEngineWorker({ archivePath: path.join(dir, 'heavy') });
});

after(async () => {
  await engine?.close();
  await heavy?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * The main loop stayed responsive: most 10 ms ticks arrived on time, and no stall came anywhere near the length
 * of the work (a query on the main thread would stall it for all of `durationMs`). Tolerant of a loaded machine.
 */
function assertResponsive(ticks: number[], durationMs: number): void {
  const gaps: number[] = [];
  for (let i = 1; i < ticks.length; i++) gaps.push(ticks[i] - ticks[i - 1]);
  gaps.sort((a, b) => a - b);
  assert.ok(gaps.length >= 5, `only ${ticks.length} ticks in ${durationMs.toFixed(0)} ms`);
  const median = gaps[Math.floor(gaps.length / 2)];
  const max = gaps[gaps.length - 1];
  assert.ok(median < 30, `ticks were late: median gap ${median.toFixed(1)} ms`);
  assert.ok(max < durationMs / 3, `the main thread stalled for ${max.toFixed(0)} ms of ${durationMs.toFixed(0)} ms`);
}

function isAbort(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

describe('engine worker: responsiveness and cancellation', () => {
  it('the main event loop keeps ticking every ~10 ms while the worker runs a long query', async () => {
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 10);
    const t0 = performance.now();
    const hits = await heavy.searchKeyword({ query: LONG_QUERY, limit: 20 });
    fullQueryMs = performance.now() - t0;
    clearInterval(timer);
    assert.equal(hits.length, 20);
    assert.ok(fullQueryMs > 500, `the long query must be long enough to matter (took ${fullQueryMs.toFixed(0)} ms)`);
    assertResponsive(ticks, fullQueryMs);
  });

  it('aborting a long query rejects at once, stops it in the worker, and the next query works', async () => {
    assert.ok(fullQueryMs > 0, 'needs the timing of the uncancelled query');
    const ac = new AbortController();
    const pending = heavy.searchKeyword({ query: LONG_QUERY, limit: 20 }, ac.signal);
    await new Promise((r) => setTimeout(r, 100));
    const abortedAt = performance.now();
    ac.abort();
    await assert.rejects(pending, isAbort);
    const rejectMs = performance.now() - abortedAt;
    assert.ok(rejectMs < 100, `rejection took ${rejectMs.toFixed(1)} ms`);
    const hits = await heavy.searchKeyword({ query: 'e', limit: 5 });
    const nextMs = performance.now() - abortedAt;
    assert.ok(Array.isArray(hits));
    assert.ok(
      nextMs < fullQueryMs / 3,
      `the next query was answered ${nextMs.toFixed(0)} ms after the abort; the long query takes ${fullQueryMs.toFixed(0)} ms, so it was not stopped`,
    );
    // Same connection, same answers as before.
    const again = await heavy.searchKeyword({ query: 'e', limit: 5 });
    assert.deepStrictEqual(again, hits);
  });

  it('rejects with the signal reason when one was given', async () => {
    const ac = new AbortController();
    const reason = new Error('chat turn stopped');
    const pending = heavy.searchKeyword({ query: LONG_QUERY, limit: 20 }, ac.signal);
    setTimeout(() => ac.abort(reason), 30);
    await assert.rejects(pending, (e) => e === reason);
    assert.equal((await heavy.summary()).messages, HEAVY_MESSAGES);
  });

  it('an already-aborted signal rejects without running the query', async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(heavy.summary(ac.signal), isAbort);
    await assert.rejects(heavy.searchKeyword({ query: 'k', limit: 1 }, ac.signal), isAbort);
  });

  it('a request cancelled while queued behind a long one is skipped, and later requests still run', async () => {
    const longAc = new AbortController();
    const queuedAc = new AbortController();
    const long = heavy.searchKeyword({ query: LONG_QUERY, limit: 20 }, longAc.signal);
    const queued = heavy.searchKeyword({ query: LONG_QUERY, limit: 20 }, queuedAc.signal);
    const after = heavy.messageById(1);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    queuedAc.abort();
    await assert.rejects(queued, isAbort);
    longAc.abort();
    await assert.rejects(long, isAbort);
    const msg = await after;
    assert.equal(msg?.id, 1);
    const ms = performance.now() - t0;
    assert.ok(ms < fullQueryMs / 3, `the request queued behind two cancelled ones waited ${ms.toFixed(0)} ms`);
  });

  it('answers requests in the order they were made', async () => {
    const order: number[] = [];
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i++) {
      const p =
        i % 3 === 0
          ? heavy.searchKeyword({ query: 'e a', limit: 10 })
          : i % 3 === 1
            ? heavy.messageById(i + 1)
            : heavy.listConversations();
      calls.push(p.then(() => order.push(i)));
    }
    await Promise.all(calls);
    assert.deepEqual(
      order,
      Array.from({ length: 30 }, (_, i) => i),
    );
  });

  it('more requests in flight than cancel slots all complete (and slots are recycled)', async () => {
    const n = CANCEL_SLOTS + 200;
    const ids = Array.from({ length: n }, (_, i) => (i % 1000) + 1);
    const rows = await Promise.all(ids.map((id) => heavy.messageById(id)));
    assert.deepEqual(
      rows.map((r) => r?.id),
      ids,
    );
    // After that burst, cancellation still works (a slot is available and honoured).
    const ac = new AbortController();
    const pending = heavy.searchKeyword({ query: LONG_QUERY, limit: 20 }, ac.signal);
    setTimeout(() => ac.abort(), 30);
    await assert.rejects(pending, isAbort);
    const t0 = performance.now();
    await heavy.summary();
    assert.ok(performance.now() - t0 < fullQueryMs / 3);
  });
});

describe('engine worker: vector index builds off the main thread', () => {
  let buildMs = 0;

  it('builds while the main loop ticks and keyword queries are answered during the build', async () => {
    const cacheDir = path.join(dir, 'cache-a');
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 10);
    const progress: { done: number; total?: number }[] = [];
    const t0 = performance.now();
    let builtAt = 0;
    const building = engine.vectorIndex(MODEL, { cacheDir, onProgress: (p) => progress.push(p) }).then((index) => {
      builtAt = performance.now();
      return index;
    });
    const answeredAt: number[] = [];
    for (let i = 0; i < 5; i++) {
      const hits = await engine.searchKeyword({ query: 'e', limit: 5 });
      assert.equal(hits.length, 5);
      answeredAt.push(performance.now());
    }
    const index = await building;
    clearInterval(timer);
    buildMs = builtAt - t0;
    assert.equal(index.size, (await engine.embeddingModels()).find((m) => m.model === MODEL)?.count);
    assert.equal(index.dim, 256);
    assert.ok(buildMs > 200, `the build must take a while to mean anything (took ${buildMs.toFixed(0)} ms)`);
    for (const at of answeredAt) assert.ok(at < builtAt, 'a keyword query waited for the whole index build');
    assertResponsive(ticks, buildMs);
    assert.ok(progress.length >= 2, 'progress is reported');
    assert.equal(progress[progress.length - 1].done, index.size);
    const q = new Float32Array(256).map((_, i) => Math.sin(i));
    const hits = await index.search(q, 10);
    assert.equal(hits.length, 10);
    index.dispose();
  });

  it('a cancelled build rejects at once, stops in the worker, leaves no cache file, and the next build works', async () => {
    assert.ok(buildMs > 0, 'needs the timing of a full build');
    const cacheDir = path.join(dir, 'cache-b');
    const ac = new AbortController();
    const building = engine.vectorIndex(MODEL, { cacheDir, signal: ac.signal });
    await new Promise((r) => setTimeout(r, 60));
    const abortedAt = performance.now();
    ac.abort();
    await assert.rejects(building, isAbort);
    assert.ok(performance.now() - abortedAt < 100, 'the build call did not reject at once');
    await engine.summary();
    const nextMs = performance.now() - abortedAt;
    assert.ok(nextMs < buildMs / 2, `the next query waited ${nextMs.toFixed(0)} ms: the cancelled build kept running`);
    const left = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [];
    assert.deepEqual(left, [], 'a cancelled build must not leave files behind');
    const index = await engine.vectorIndex(MODEL, { cacheDir });
    assert.equal(fs.readdirSync(cacheDir).length, 1);
    index.dispose();
  });

  it('closing the engine during a build stops it and leaves no cache file behind', async () => {
    const cacheDir = path.join(dir, 'cache-c');
    const other = await startEngineWorker({ archivePath: dir });
    const building = other.vectorIndex(MODEL, { cacheDir }).then(
      () => 'built',
      (e: unknown) => (e as Error).message,
    );
    await new Promise((r) => setTimeout(r, 80));
    const t0 = performance.now();
    await other.close();
    const closeMs = performance.now() - t0;
    assert.match(await building, /closed/);
    assert.ok(closeMs < buildMs, `close took ${closeMs.toFixed(0)} ms: it waited for the whole build`);
    const left = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [];
    assert.deepEqual(left, [], 'the cancelled build must remove its temporary file');
  });

  it('a search with an already-aborted signal rejects without running', async () => {
    const index = await engine.vectorIndex(MODEL, { cacheDir: path.join(dir, 'cache-a') });
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(index.search(new Float32Array(256).fill(1), 5, undefined, ac.signal), isAbort);
    assert.equal((await index.search(new Float32Array(256).fill(1), 5)).length, 5);
    index.dispose();
  });
});
