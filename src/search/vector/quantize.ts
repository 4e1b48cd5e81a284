/**
 * int8 quantisation with a per-row scale, and the per-row numbers the exactness bound needs.
 *
 * For a unit vector v̂ with scale s (= max|v̂ᵢ| / 127) and int8 codes c (cᵢ = round(v̂ᵢ / s)), write
 * v̂ = s·c + e. For the unit query q̂ = t·d + f the same way (with i16 codes, see queryLevels), the true cosine is
 *   q̂·v̂ = s·t·(d·c) + f·(s·c) + q̂·e,
 * so |q̂·v̂ − s·t·(d·c)| ≤ ‖f‖·‖s·c‖ + ‖e‖ (Cauchy–Schwarz, ‖q̂‖ = 1). The row keeps ‖e‖ (`err`) and ‖s·c‖
 * (`qnorm`), both rounded up; the query contributes ‖f‖. d·c is computed exactly in i32 by the kernel.
 * Builds use the kernel's port of quantiseRow (row-quantiser.ts); this one is the reference and the query side.
 */

/** Relative safety margin applied to stored norms so float32 rounding can only loosen the bound. */
const ROUND_UP = 1 + 1e-6;
const ROUND_MAGIC = 6755399441055744;

/** The query's i16 levels: as fine as the kernel's i32 sums allow (|dot| ≤ stride · levels · 127 < 2³¹). */
export function queryLevels(stride: number): number {
  return Math.min(32767, Math.floor((2 ** 31 - 1) / (stride * 127)));
}

/** Pads a dimension to the kernel's 16-byte row granularity. */
export function strideFor(dim: number): number {
  return Math.max(16, Math.ceil(dim / 16) * 16);
}

/**
 * Quantises `vec` into `codes[at..at+dim)` (the caller zeroes the padding): its scale (0 for a zero vector), err
 * ‖v̂ − s·c‖₂ and qnorm ‖s·c‖₂, both rounded up; undefined when the vector holds a NaN or infinity.
 */
export function quantiseRow(
  vec: ArrayLike<number>,
  dim: number,
  codes: Int8Array | Int16Array,
  at = 0,
  levels = 127,
): { scale: number; err: number; qnorm: number } | undefined {
  // Branch-free loops (Math.abs/max/min, magic-number rounding): random signs defeat branch prediction.
  let n2 = 0;
  let maxRaw = 0;
  for (let i = 0; i < dim; i++) {
    const x = vec[i];
    n2 += x * x;
    maxRaw = Math.max(maxRaw, Math.abs(x));
  }
  if (!Number.isFinite(n2)) return undefined;
  if (n2 === 0) {
    for (let i = 0; i < dim; i++) codes[at + i] = 0;
    return { scale: 0, err: 0, qnorm: 0 };
  }
  const inv = 1 / Math.sqrt(n2);
  const scale = Math.fround((maxRaw * inv) / levels);
  const toCode = 1 / scale;
  let err2 = 0;
  let q2 = 0;
  for (let i = 0; i < dim; i++) {
    const x = vec[i] * inv;
    // Adding and subtracting 1.5·2⁵² rounds to the nearest integer (ties to even) for |x| < 2⁵¹.
    const c = Math.min(levels, Math.max(-levels, x * toCode + ROUND_MAGIC - ROUND_MAGIC));
    codes[at + i] = c;
    const deq = scale * c;
    const e = x - deq;
    err2 += e * e;
    q2 += deq * deq;
  }
  return { scale, err: Math.sqrt(err2) * ROUND_UP, qnorm: Math.sqrt(q2) * ROUND_UP };
}

/** Float64 cosine of two raw vectors (msgbrowse's semantics: a zero-norm stored vector scores 0). */
export function exactCosine(q: ArrayLike<number>, qNorm: number, v: ArrayLike<number>, dim: number): number {
  let dot = 0;
  let n2 = 0;
  for (let i = 0; i < dim; i++) {
    const x = v[i];
    dot += q[i] * x;
    n2 += x * x;
  }
  if (n2 === 0) return 0;
  return dot / (qNorm * Math.sqrt(n2));
}
