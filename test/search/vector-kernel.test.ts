/** The WAT kernel: assembled from source (and by the build script), exact integer dots for any stride. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { instantiateKernel, kernelMemory } from '../../src/search/kernel/kernel';
import { queryLevels } from '../../src/search/vector/quantize';
import { mulberry32 as rng } from '../fixtures/random';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const buildScript = require('../../src/search/kernel/build-kernel.js') as {
  buildKernel(out: string): void;
  assembleKernel(): Promise<Uint8Array>;
};

/** The WebAssembly module-reflection API, typed locally (the project's lib does not declare WebAssembly). */
const WA = (
  globalThis as unknown as {
    WebAssembly: {
      Module: {
        new (bytes: Uint8Array): object;
        exports(m: object): { name: string; kind: string }[];
        imports(m: object): { module: string; name: string; kind: string }[];
      };
    };
  }
).WebAssembly;

describe('vector kernel (WAT, SIMD)', () => {
  it('build-kernel.js assembles a small valid module that exports the scoring and quantising functions', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vector-kernel-'));
    try {
      const out = path.join(dir, 'vector-kernel.wasm');
      buildScript.buildKernel(out);
      const bytes = fs.readFileSync(out);
      assert.deepEqual([...bytes.subarray(0, 4)], [0, 0x61, 0x73, 0x6d]);
      assert.ok(bytes.length < 4096, `${bytes.length} bytes`);
      const mod = new WA.Module(bytes);
      const names = WA.Module.exports(mod)
        .map((e) => e.name)
        .sort();
      assert.deepEqual(names, ['dot_idx', 'dot_rows', 'quantise_row', 'score_idx', 'score_rows']);
      assert.deepEqual(WA.Module.imports(mod), [{ module: 'env', name: 'memory', kind: 'memory' }]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const stride of [16, 32, 48, 400, 784, 4096]) {
    it(`dot_rows and dot_idx give exact int dots (stride ${stride}, extreme values included)`, async () => {
      assert.ok(stride * queryLevels(stride) * 127 < 2 ** 31);
      const r = rng(stride);
      const n = 37;
      const memory = kernelMemory(8);
      const k = await instantiateKernel(memory);
      const buf = memory.buffer;
      const qOff = 0;
      const rowsOff = 2 * stride + 64; // after the i16 query
      const outOff = rowsOff + n * stride + 64;
      const idxOff = outOff + n * 4 + 64;
      const q = new Int16Array(buf, qOff, stride);
      const rows = new Int8Array(buf, rowsOff, n * stride);
      // Query codes span the full range the index uses for this stride (i16, bounded so i32 sums cannot overflow).
      const L = queryLevels(stride);
      for (let j = 0; j < stride; j++) q[j] = j % 7 === 0 ? L : j % 11 === 0 ? -L : Math.floor(r() * (2 * L + 1)) - L;
      for (let i = 0; i < n * stride; i++) rows[i] = i % 5 === 0 ? -127 : Math.floor(r() * 255) - 127;
      // Row 0: the worst case magnitude (every product ±L·127, all of one sign).
      for (let j = 0; j < stride; j++) {
        if (j % 2 === 0) q[j] = j % 4 === 0 ? L : -L;
        rows[j] = q[j] >= 0 ? 127 : -127;
      }
      const expected = Array.from({ length: n }, (_, i) => {
        let s = 0;
        for (let j = 0; j < stride; j++) s += q[j] * rows[i * stride + j];
        return s;
      });
      k.dot_rows(qOff, rowsOff, n, stride, outOff);
      assert.deepEqual([...new Int32Array(buf, outOff, n)], expected);

      const pick = [5, 0, 36, 17, 17, 2];
      new Int32Array(buf, idxOff, pick.length).set(pick);
      new Int32Array(buf, outOff, n).fill(0);
      k.dot_idx(qOff, rowsOff, idxOff, pick.length, stride, outOff);
      assert.deepEqual(
        [...new Int32Array(buf, outOff, pick.length)],
        pick.map((i) => expected[i]),
      );
    });
  }

  it('score_rows and score_idx write the exact dots and float32 upper bounds', async () => {
    const r = rng(3);
    const stride = 48;
    const n = 29;
    const memory = kernelMemory(2);
    const k = await instantiateKernel(memory);
    const buf = memory.buffer;
    const qOff = 0;
    const rowsOff = 256;
    const plane = 128;
    const metaOff = rowsOff + n * stride + 64;
    const dotOff = metaOff + 3 * plane + 64;
    const uOff = dotOff + n * 4 + 64;
    const idxOff = uOff + n * 4 + 64;
    const q = new Int16Array(buf, qOff, stride);
    const rows = new Int8Array(buf, rowsOff, n * stride);
    const scale = new Float32Array(buf, metaOff, n);
    const err = new Float32Array(buf, metaOff + plane, n);
    const qnorm = new Float32Array(buf, metaOff + 2 * plane, n);
    for (let j = 0; j < stride; j++) q[j] = Math.floor(r() * 40001) - 20000;
    for (let i = 0; i < n * stride; i++) rows[i] = Math.floor(r() * 255) - 127;
    for (let i = 0; i < n; i++) {
      scale[i] = r() * 0.01;
      err[i] = r() * 0.02;
      qnorm[i] = 0.9 + r() * 0.2;
    }
    const sq = Math.fround(1.3e-6);
    const fq = Math.fround(2e-5);
    const dot = (i: number) => {
      let s = 0;
      for (let j = 0; j < stride; j++) s += q[j] * rows[i * stride + j];
      return s;
    };
    const upper = (i: number) => dot(i) * sq * scale[i] + err[i] + fq * qnorm[i];
    k.score_rows(qOff, rowsOff, n, stride, metaOff, plane, sq, fq, dotOff, uOff);
    for (let i = 0; i < n; i++) {
      assert.equal(new Int32Array(buf, dotOff, n)[i], dot(i));
      assert.ok(Math.abs(new Float32Array(buf, uOff, n)[i] - upper(i)) < 1e-6, `row ${i}`);
    }
    // From the middle of the matrix (as the index does per chunk): rows 10.. with meta pointer advanced.
    k.score_rows(qOff, rowsOff + 10 * stride, 5, stride, metaOff + 10 * 4, plane, sq, fq, dotOff, uOff);
    for (let i = 0; i < 5; i++) assert.equal(new Int32Array(buf, dotOff, 5)[i], dot(10 + i));
    const pick = [28, 0, 13, 13];
    new Int32Array(buf, idxOff, pick.length).set(pick);
    k.score_idx(qOff, rowsOff, idxOff, pick.length, stride, metaOff, plane, sq, fq, dotOff, uOff);
    pick.forEach((row, i) => {
      assert.equal(new Int32Array(buf, dotOff, pick.length)[i], dot(row));
      assert.ok(Math.abs(new Float32Array(buf, uOff, pick.length)[i] - upper(row)) < 1e-6);
    });
  });

  it('scores nothing for n = 0', async () => {
    const memory = kernelMemory(1);
    const k = await instantiateKernel(memory);
    new Int32Array(memory.buffer, 1024, 4).fill(7);
    k.dot_rows(0, 2048, 0, 16, 1024);
    k.dot_idx(0, 2048, 512, 0, 16, 1024);
    assert.deepEqual([...new Int32Array(memory.buffer, 1024, 4)], [7, 7, 7, 7]);
  });
});
