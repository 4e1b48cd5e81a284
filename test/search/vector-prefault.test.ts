/**
 * Committing a build's memory ahead of it (src/search/vector/prefault.ts): every page of the range is written once,
 * no byte changes (not even one another thread writes meanwhile), it yields between slices and stops when told.
 */
import assert from 'node:assert/strict';
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
    // The writer stores rounds of distinct values at every page's first word (where prefault writes) and its neighbour.
    const writer = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const w = new Int32Array(workerData.memory.buffer);
       for (let round = 1; round <= 200; round++) for (let i = 0; i < w.length; i += 1024) { w[i] = round * 7 + i; w[i + 1] = round; }
       parentPort.postMessage('done');`,
      { eval: true, workerData: { memory } },
    );
    const done = new Promise((resolve, reject) => {
      writer.once('message', resolve);
      writer.once('error', reject);
    });
    for (let k = 0; k < 50; k++) await prefault(memory, 0, words.byteLength, () => false, () => new Promise((r) => setImmediate(r)));
    await done;
    await writer.terminate();
    for (let i = 0; i < words.length; i += 1024) {
      assert.equal(words[i], 200 * 7 + i, `the writer's last value at word ${i}`);
      assert.equal(words[i + 1], 200);
    }
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
