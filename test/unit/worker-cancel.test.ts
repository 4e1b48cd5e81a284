/**
 * The engine worker keeps the main thread free and stops cancelled work: a long FTS query on a generated
 * archive runs while the main event loop keeps ticking; aborting it rejects at once, the worker stops the
 * statement (the next query is answered long before the long one would have finished), and the connection
 * keeps working. Requests are answered in FIFO order.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startEngineWorker, type EngineClient } from '../../src/search/worker';
import { CANCEL_SLOTS } from '../../src/search/worker/protocol';
import { generateArchive } from './worker-fixture';

let dir: string;
let engine: EngineClient;
/** 40 broad prefix tokens: FTS5 expands and intersects each one; takes seconds on this archive in WASM. */
const LONG_QUERY = Array.from({ length: 40 }, () => 'k').join(' ');
let fullQueryMs = 0;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-cancel-'));
  generateArchive(dir, { messages: 40000, conversations: 16 });
  engine = await startEngineWorker({ archivePath: dir });
});

after(async () => {
  await engine?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function isAbort(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

describe('engine worker: responsiveness and cancellation', () => {
  it('the main event loop keeps ticking every ~10 ms while the worker runs a long query', async () => {
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 10);
    const t0 = performance.now();
    const hits = await engine.searchKeyword({ query: LONG_QUERY, limit: 20 });
    fullQueryMs = performance.now() - t0;
    clearInterval(timer);
    assert.equal(hits.length, 20);
    assert.ok(fullQueryMs > 500, `the long query must be long enough to matter (took ${fullQueryMs.toFixed(0)} ms)`);
    let maxGap = 0;
    for (let i = 1; i < ticks.length; i++) maxGap = Math.max(maxGap, ticks[i] - ticks[i - 1]);
    assert.ok(ticks.length >= (fullQueryMs / 10) * 0.5, `only ${ticks.length} ticks in ${fullQueryMs.toFixed(0)} ms`);
    assert.ok(maxGap < 100, `the main thread stalled for ${maxGap.toFixed(0)} ms`);
  });

  it('aborting a long query rejects at once, stops it in the worker, and the next query works', async () => {
    assert.ok(fullQueryMs > 0, 'needs the timing of the uncancelled query');
    const ac = new AbortController();
    const pending = engine.searchKeyword({ query: LONG_QUERY, limit: 20 }, ac.signal);
    await new Promise((r) => setTimeout(r, 100));
    const abortedAt = performance.now();
    ac.abort();
    await assert.rejects(pending, isAbort);
    const rejectMs = performance.now() - abortedAt;
    assert.ok(rejectMs < 20, `rejection took ${rejectMs.toFixed(1)} ms`);
    const hits = await engine.searchKeyword({ query: 'kalo', limit: 5 });
    const nextMs = performance.now() - abortedAt;
    assert.ok(Array.isArray(hits));
    assert.ok(
      nextMs < fullQueryMs / 3,
      `the next query was answered ${nextMs.toFixed(0)} ms after the abort; the long query takes ${fullQueryMs.toFixed(0)} ms, so it was not stopped`,
    );
    // Same connection, same answers as before.
    const again = await engine.searchKeyword({ query: 'kalo', limit: 5 });
    assert.deepStrictEqual(again, hits);
  });

  it('rejects with the signal reason when one was given', async () => {
    const ac = new AbortController();
    const reason = new Error('chat turn stopped');
    const pending = engine.searchKeyword({ query: LONG_QUERY, limit: 20 }, ac.signal);
    setTimeout(() => ac.abort(reason), 30);
    await assert.rejects(pending, (e) => e === reason);
    assert.equal((await engine.summary()).messages, 40000);
  });

  it('an already-aborted signal rejects without running the query', async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(engine.summary(ac.signal), isAbort);
    await assert.rejects(engine.searchKeyword({ query: 'k', limit: 1 }, ac.signal), isAbort);
  });

  it('a request cancelled while queued behind a long one is skipped, and later requests still run', async () => {
    const longAc = new AbortController();
    const queuedAc = new AbortController();
    const long = engine.searchKeyword({ query: LONG_QUERY, limit: 20 }, longAc.signal);
    const queued = engine.searchKeyword({ query: LONG_QUERY, limit: 20 }, queuedAc.signal);
    const after = engine.messageById(1);
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
          ? engine.searchKeyword({ query: 'ka lo', limit: 10 })
          : i % 3 === 1
            ? engine.messageById(i + 1)
            : engine.listConversations();
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
    const rows = await Promise.all(ids.map((id) => engine.messageById(id)));
    assert.deepEqual(
      rows.map((r) => r?.id),
      ids,
    );
    // After that burst, cancellation still works (a slot is available and honoured).
    const ac = new AbortController();
    const pending = engine.searchKeyword({ query: LONG_QUERY, limit: 20 }, ac.signal);
    setTimeout(() => ac.abort(), 30);
    await assert.rejects(pending, isAbort);
    const t0 = performance.now();
    await engine.summary();
    assert.ok(performance.now() - t0 < fullQueryMs / 3);
  });
});
