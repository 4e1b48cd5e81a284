/**
 * Committing a build's memory ahead of it (src/search/vector/prefault.ts): every page of the range is written once,
 * no byte changes (not even one another thread writes meanwhile), it yields between slices and stops when told.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { kernelMemory } from '../../src/search/kernel/kernel';
import { IndexBuilder } from '../../src/search/vector/accumulator';
import { wholeBuildMemory } from '../../src/search/vector';
import { prefault, TOUCH_PAGE } from '../../src/search/vector/prefault';
import { makeRecords } from '../fixtures/vector-records';

function randomMemory(pages64k: number): { memory: ReturnType<typeof kernelMemory>; bytes: Uint8Array } {
  const memory = kernelMemory(pages64k, pages64k);
  const bytes = new Uint8Array(memory.buffer);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
  return { memory, bytes };
}

describe('prefault: a build memory committed ahead of the build', () => {
  it('writes each page of the range once, changes no byte, and yields between slices of 32 pages', async () => {
    const { memory, bytes } = randomMemory(4);
    const before = Buffer.from(bytes);
    let turns = 0;
    const r = await prefault(memory, 0, bytes.length, () => false, async () => void turns++);
    assert.deepEqual(r, { pages: bytes.length / TOUCH_PAGE, complete: true });
    assert.equal(turns, Math.ceil(r.pages / 32));
    assert.ok(Buffer.from(bytes).equals(before), 'no byte changed');
  });

  it('a range inside the memory: from the page holding `from`, clamped at the memory\'s end', async () => {
    const { memory, bytes } = randomMemory(2);
    const r = await prefault(memory, TOUCH_PAGE + 100, bytes.length + 10 * TOUCH_PAGE, () => false, async () => undefined);
    assert.deepEqual(r, { pages: bytes.length / TOUCH_PAGE - 1, complete: true });
  });

  it('stops between slices once stop() says so', async () => {
    const { memory, bytes } = randomMemory(8); // 128 pages: four slices
    let turns = 0;
    const r = await prefault(memory, 0, bytes.length, () => turns >= 2, async () => void turns++);
    assert.deepEqual(r, { pages: 64, complete: false });
  });

  it('never undoes a write another thread makes meanwhile (the build writing its rows)', async () => {
    const pages = 16; // 1 MiB
    const memory = kernelMemory(pages, pages);
    const words = new Int32Array(memory.buffer);
    const control = new Int32Array(new SharedArrayBuffer(8)); // [started, done]
    // The writer stores rounds of distinct values at every page's first word (where prefault writes) and its
    // neighbour, from the moment it says it started until prefault has run beside it for a while.
    const writer = new Worker(
      `const { workerData } = require('node:worker_threads');
       const w = new Int32Array(workerData.memory.buffer);
       const c = new Int32Array(workerData.control);
       Atomics.store(c, 0, 1);
       let round = 0;
       const t = Date.now();
       while (Date.now() - t < 150) { round++; for (let i = 0; i < w.length; i += 1024) { w[i] = round * 7 + i; w[i + 1] = round; } }
       Atomics.store(c, 1, round);`,
      { eval: true, workerData: { memory, control: control.buffer } },
    );
    const failed = new Promise<never>((_, reject) => writer.once('error', reject));
    while (Atomics.load(control, 0) === 0) await Promise.race([new Promise((r) => setTimeout(r, 1)), failed]);
    let passes = 0;
    while (Atomics.load(control, 1) === 0) {
      await prefault(memory, 0, words.byteLength, () => false, async () => undefined);
      passes++;
    }
    await writer.terminate();
    const last = Atomics.load(control, 1);
    assert.ok(passes > 10, `prefault ran ${passes} times beside the writer`);
    for (let i = 0; i < words.length; i += 1024) {
      assert.equal(words[i], last * 7 + i, `the writer's last value at word ${i}`);
      assert.equal(words[i + 1], last);
    }
  });

  it('commits the pages: the process holds them afterwards (Linux)', { skip: process.platform !== 'linux' }, async () => {
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
    const memory = kernelMemory(1024, 1024); // 64 MiB, untouched
    const before = rss();
    await prefault(memory, 0, 64 << 20, () => false, async () => undefined);
    const grew = rss() - before;
    assert.ok(grew > 48 << 20, `RSS grew by ${(grew / 2 ** 20).toFixed(1)} MiB`);
  });

  it('a builder writes into the memory made ahead when it holds the expected rows, else makes its own; same parts', () => {
    const records = makeRecords(2500, 48, 3);
    const build = (memory?: ReturnType<typeof kernelMemory>, expected = 2500) => {
      const b = new IndexBuilder({ model: 'm', dim: 48, expected, ...(memory ? { memory } : {}) });
      for (const r of records) b.add(r);
      return b.finish()!;
    };
    const own = build();
    const { memory, bytes } = wholeBuildMemory(48, 2500);
    assert.ok(bytes <= memory.buffer.byteLength);
    const ahead = build(memory);
    assert.equal(ahead.memory, memory, 'the rows went into the memory made ahead');
    const rows = (p: typeof own) => Buffer.from(new Uint8Array(p.memory.buffer, p.layout.matrixOff, p.n * p.layout.stride));
    assert.ok(rows(ahead).equals(rows(own)));
    assert.deepEqual([Array.from(ahead.scale), Array.from(ahead.ids)], [Array.from(own.scale), Array.from(own.ids)]);
    // Made for fewer rows than the builder expects: too small, so the builder makes its own.
    const small = wholeBuildMemory(48, 10);
    assert.notEqual(build(small.memory, 60_000).memory, small.memory);
  });
});
