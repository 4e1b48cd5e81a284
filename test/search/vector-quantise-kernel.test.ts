/**
 * The kernel's row quantiser (quantise_row in vector-kernel.wat, through KernelRowQuantiser) against the JS
 * reference and an independent float64 recomputation: on random vectors of many dimensions, magnitudes and shapes
 * (huge, tiny, subnormal, mixed, sparse, constant, one-hot, exact half-integer ties, either side of the kernel's
 * fast-path edges, NaN/Inf anywhere), the finite flag matches, every |code| ≤ 127 and is within ±1 of the JS code,
 * and the stored err and qnorm are upper bounds of ‖v̂ − s·c‖ and ‖s·c‖ recomputed in float64 from the stored scale
 * and codes (v̂ the unit vector of the row).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { quantiseRow, strideFor } from '../../src/search/vector/quantize';
import { KernelRowQuantiser } from '../../src/search/vector/row-quantiser';
import { gaussian, mulberry32 } from '../fixtures/random';

const F32_MAX = 3.4028234663852886e38;
const MIN_SUBNORMAL = 2 ** -149;

interface Exact {
  err: number;
  qnorm: number;
}

/** ‖v̂ − s·c‖₂ and ‖s·c‖₂ in float64 (relative error ~1e-15: far below the kernel's margins of ~1e-6). */
function exactNumbers(vec: Float32Array, scale: number, codes: Int8Array, at: number): Exact {
  // Scale by the max first so squares neither overflow nor underflow even for f32 extremes.
  let max = 0;
  for (const x of vec) max = Math.max(max, Math.abs(x));
  if (max === 0) return { err: 0, qnorm: 0 };
  let n2 = 0;
  for (const x of vec) n2 += (x / max) ** 2;
  const norm = Math.sqrt(n2) * max;
  let e2 = 0;
  let q2 = 0;
  for (let i = 0; i < vec.length; i++) {
    const deq = scale * codes[at + i];
    e2 += (vec[i] / norm - deq) ** 2;
    q2 += deq * deq;
  }
  return { err: Math.sqrt(e2), qnorm: Math.sqrt(q2) };
}

interface Tally {
  rows: number;
  codes: number;
  codesDiffering: number;
  maxLooseness: number;
}

/** Quantises `vec` both ways and checks every property; returns how many codes differed from the JS ones. */
function check(k: KernelRowQuantiser, vec: Float32Array, label: string, tally: Tally): void {
  const dim = vec.length;
  const stride = strideFor(dim);
  // Write into the middle of a larger target, as the builder does, to check nothing outside the row is touched.
  const at = 2 * stride + 16;
  const target = new Int8Array(at + stride + 64).fill(99);
  const ok = k.quantise(vec, dim, target, at);
  const ref = new Int8Array(stride);
  const js = quantiseRow(vec, dim, ref);
  assert.equal(ok, js !== undefined, `${label}: finite flag`);
  if (!ok || !js) return;
  for (let i = 0; i < target.length; i++) {
    if (i >= at && i < at + dim) continue;
    assert.equal(target[i], 99, `${label}: byte ${i} outside the row was written`);
  }
  const scale = k.scale;
  assert.ok(Number.isFinite(scale) && scale >= 0, `${label}: scale ${scale}`);
  assert.equal(Math.fround(scale), scale, `${label}: scale is an f32`);
  if (js.scale === 0) {
    assert.equal(scale, 0, `${label}: zero vector`);
    assert.equal(k.err, 0);
    assert.equal(k.qnorm, 0);
    for (let i = 0; i < dim; i++) assert.equal(target[at + i], 0);
  } else {
    assert.ok(Math.abs(scale - js.scale) <= 1e-5 * js.scale, `${label}: scale ${scale} vs JS ${js.scale}`);
  }
  for (let i = 0; i < dim; i++) {
    const c = target[at + i];
    assert.ok(c >= -127 && c <= 127, `${label}: code ${c} at ${i}`);
    assert.ok(Math.abs(c - ref[i]) <= 1, `${label}: code ${c} vs JS ${ref[i]} at ${i}`);
    if (c !== ref[i]) tally.codesDiffering++;
  }
  tally.rows++;
  tally.codes += dim;
  const exact = exactNumbers(vec, scale, target, at);
  assert.ok(k.err >= exact.err, `${label}: err ${k.err} < exact ${exact.err}`);
  assert.ok(k.qnorm >= exact.qnorm, `${label}: qnorm ${k.qnorm} < exact ${exact.qnorm}`);
  // The bounds are also tight: err exceeds the exact value by about half the f32 sum's relative error bound γ plus
  // a few 2⁻²⁴ (≈ 2·10⁻⁶ for 768 dims), never by a factor.
  const gamma = (stride / 16 + 6) * 2 ** -24;
  const slack = gamma + 4 * 2 ** -24;
  assert.ok(k.err <= exact.err * (1 + gamma) + slack, `${label}: err ${k.err} is loose (exact ${exact.err})`);
  assert.ok(k.qnorm <= exact.qnorm * (1 + 1e-6), `${label}: qnorm ${k.qnorm} is loose (exact ${exact.qnorm})`);
  if (exact.err > 0) tally.maxLooseness = Math.max(tally.maxLooseness, k.err - exact.err);
}

type Shape = (r: () => number, dim: number) => Float32Array;

const gauss = (r: () => number, dim: number, mag = 1) => Float32Array.from({ length: dim }, () => gaussian(r) * mag);

/** `v` scaled so its largest magnitude is exactly `max` (an f32), the others rounded to f32 below it. */
function withMax(v: Float32Array, max: number): Float32Array {
  let m = 0;
  let at = 0;
  v.forEach((x, i) => {
    if (Math.abs(x) > m) [m, at] = [Math.abs(x), i];
  });
  const out = v.map((x) => Math.max(-max, Math.min(max, (x / m) * max)));
  out[at] = Math.sign(v[at]) * max;
  return out;
}

const SHAPES: Record<string, Shape> = {
  gaussian: (r, d) => gauss(r, d),
  uniform: (r, d) => Float32Array.from({ length: d }, () => r() * 2 - 1),
  'huge (near the f32 max)': (r, d) => {
    const v = gauss(r, d);
    let m = 0;
    for (const x of v) m = Math.max(m, Math.abs(x));
    return v.map((x) => (x / m) * F32_MAX * 0.999);
  },
  'huge 1e30': (r, d) => gauss(r, d, 1e30),
  'tiny 1e-30': (r, d) => gauss(r, d, 1e-30),
  'subnormal 1e-41': (r, d) => gauss(r, d, 1e-41),
  'all subnormal multiples of 2^-149': (r, d) =>
    Float32Array.from({ length: d }, () => (Math.floor(r() * 9) - 4) * MIN_SUBNORMAL),
  'mixed 1e30 and 1e-30 (and subnormals)': (r, d) =>
    Float32Array.from({ length: d }, (_, i) => gaussian(r) * (i % 3 === 0 ? 1e30 : i % 3 === 1 ? 1e-30 : 1e-44)),
  // The kernel's fast path takes max|v| ∈ [2^-20, 2^20), anything else is rescaled first: both sides of both edges.
  'max exactly 2^20 (rescaled)': (r, d) => withMax(gauss(r, d), 2 ** 20),
  'max just below 2^20 (fast path)': (r, d) => withMax(gauss(r, d), 2 ** 20 * (1 - 2 ** -24)),
  'max exactly 2^-20 (fast path)': (r, d) => withMax(gauss(r, d), 2 ** -20),
  'max just below 2^-20 (rescaled)': (r, d) => withMax(gauss(r, d), 2 ** -20 * (1 - 2 ** -24)),
  'mostly zeros': (r, d) => Float32Array.from({ length: d }, () => (r() < 0.9 ? 0 : gaussian(r))),
  'signed zeros and one value': (r, d) =>
    Float32Array.from({ length: d }, (_, i) => (i === d >> 1 ? -0.3 : r() < 0.5 ? -0 : 0)),
  'one-hot': (_r, d) => Float32Array.from({ length: d }, (_, i) => (i === d - 1 ? 1 : 0)),
  constant: (_r, d) => new Float32Array(d).fill(0.7),
  'duplicated values': (r, d) => {
    const pool = [0.25, -0.25, 0.5, 1e-3, -1];
    return Float32Array.from({ length: d }, () => pool[Math.floor(r() * pool.length)]);
  },
  // max 127 makes v̂ᵢ/s = vᵢ exactly in real arithmetic: every other value is a half-integer tie.
  'half-integer ties': (r, d) =>
    Float32Array.from({ length: d }, (_, i) =>
      i === 0 ? 127 : (Math.floor(r() * 254) - 127 + 0.5) * (r() < 0.5 ? 1 : -1),
    ),
  'small integers': (r, d) => Float32Array.from({ length: d }, () => Math.floor(r() * 7) - 3),
};

/** Shapes where many v̂ᵢ/s are half-integers in exact arithmetic (0.5·127, 2·127/4, …). */
const TIES = new Set(['half-integer ties', 'duplicated values', 'all subnormal multiples of 2^-149']);

const POISON: Record<string, number> = { NaN: NaN, '+Inf': Infinity, '-Inf': -Infinity };

const DIMS = [1, 2, 3, 15, 16, 17, 31, 100, 384, 768, 1536];

describe('kernel row quantiser (quantise_row)', () => {
  it('agrees with the JS quantiser and bounds err/qnorm from above, across dims and shapes', async () => {
    const k = await KernelRowQuantiser.create();
    const r = mulberry32(20240615);
    const tally: Tally = { rows: 0, codes: 0, codesDiffering: 0, maxLooseness: 0 };
    for (const dim of DIMS) {
      for (const [name, shape] of Object.entries(SHAPES)) {
        // Exact ties round either way in both quantisers: keep them out of the disagreement count.
        const t = TIES.has(name) ? { ...tally } : tally;
        for (let rep = 0; rep < (dim <= 17 ? 12 : 3); rep++) check(k, shape(r, dim), `dim ${dim}, ${name} #${rep}`, t);
      }
    }
    // The kernel rounds from f32 x, the JS from float64 x: they disagree only next to half-integers.
    assert.ok(
      tally.codesDiffering <= tally.codes * 1e-3,
      `${tally.codesDiffering} of ${tally.codes} codes differ from the JS ones`,
    );
    assert.ok(tally.maxLooseness < 1e-5, `err up to ${tally.maxLooseness} above exact`);
  });

  it('rejects rows holding a NaN or an infinity anywhere (also next to zeros and huge values)', async () => {
    const k = await KernelRowQuantiser.create();
    const r = mulberry32(7);
    for (const dim of [1, 3, 16, 17, 768]) {
      for (const [name, bad] of Object.entries(POISON)) {
        for (const pos of [0, dim - 1, Math.floor(dim / 2)]) {
          for (const base of [new Float32Array(dim), gauss(r, dim), gauss(r, dim, 1e38)]) {
            const v = base.slice();
            v[pos] = bad;
            const target = new Int8Array(strideFor(dim));
            assert.equal(k.quantise(v, dim, target, 0), false, `dim ${dim}, ${name} at ${pos}`);
            assert.equal(quantiseRow(v, dim, target), undefined);
          }
        }
      }
    }
  });

  it('quantises the zero vector to scale 0, zero codes and zero bounds', async () => {
    const k = await KernelRowQuantiser.create();
    for (const dim of [1, 16, 17, 768]) {
      const target = new Int8Array(strideFor(dim)).fill(5);
      assert.equal(k.quantise(new Float32Array(dim), dim, target, 0), true);
      assert.deepEqual([k.scale, k.err, k.qnorm], [0, 0, 0]);
      assert.ok(target.subarray(0, dim).every((c) => c === 0));
    }
  });

  it('keeps the padding zero when one quantiser sees a long row and then a shorter dimension', async () => {
    const k = await KernelRowQuantiser.create();
    const r = mulberry32(3);
    const tally: Tally = { rows: 0, codes: 0, codesDiffering: 0, maxLooseness: 0 };
    // 40 → 17: the scratch padding [17, 48) held the long row's values and must not leak into the short row.
    check(k, gauss(r, 40, 1e6), 'dim 40', tally);
    for (let rep = 0; rep < 20; rep++) check(k, gauss(r, 17), `dim 17 after 40 #${rep}`, tally);
    check(k, gauss(r, 16384), 'dim 16384 (the largest)', tally);
    check(k, SHAPES['huge (near the f32 max)'](r, 16384), 'dim 16384, huge', tally);
    check(k, gauss(r, 1), 'dim 1 after 16384', tally);
  });

  it('holds for arbitrary float32 vectors (fast-check: any bit pattern, NaN/Inf/subnormals/-0 included)', async () => {
    const k = await KernelRowQuantiser.create();
    const tally: Tally = { rows: 0, codes: 0, codesDiffering: 0, maxLooseness: 0 };
    fc.assert(
      fc.property(
        fc.oneof(
          fc.float32Array({ minLength: 1, maxLength: 80 }),
          fc.float32Array({ minLength: 1, maxLength: 80, noDefaultInfinity: true, noNaN: true }),
          fc.float32Array({ minLength: 300, maxLength: 800, noDefaultInfinity: true, noNaN: true }),
        ),
        (v) => {
          check(k, v, `fast-check [${v.length}]`, tally);
        },
      ),
      { numRuns: 600, seed: 42 },
    );
  });
});
