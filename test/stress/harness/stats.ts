/** Latency and memory statistics for the stress suites. */

/** Nearest-rank percentile (p in 0..100) of an unsorted sample. */
export function percentile(sample: readonly number[], p: number): number {
  if (sample.length === 0) return NaN;
  const sorted = [...sample].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(sample: readonly number[]): LatencySummary {
  const mean = sample.reduce((s, x) => s + x, 0) / (sample.length || 1);
  return {
    count: sample.length,
    p50: percentile(sample, 50),
    p90: percentile(sample, 90),
    p99: percentile(sample, 99),
    max: sample.length ? Math.max(...sample) : NaN,
    mean,
  };
}

/** Least-squares slope of y over x (units of y per unit of x). */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    sx += xs[i];
    sy += ys[i];
  }
  const mx = sx / n;
  const my = sy / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function ms(x: number): string {
  return `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ms`;
}
