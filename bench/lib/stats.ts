/** Timing helpers and markdown formatting shared by the benchmark sections. */

export interface Dist {
  median: number;
  p95: number;
  min: number;
  n: number;
}

export function dist(samples: number[]): Dist {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return { median: NaN, p95: NaN, min: NaN, n: 0 };
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
  const mid = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { median: mid, p95: at(0.95), min: s[0], n: s.length };
}

/** Of several runs of the same measurement, the one with the lowest median (noise on a shared 2-vCPU VM only adds). */
export function best(runs: Dist[]): Dist {
  return runs.filter((d) => Number.isFinite(d.median)).sort((a, b) => a.median - b.median)[0] ?? dist([]);
}

export interface LoopPlan {
  /** Minimum warm-up time (ms) and iterations before timing. */
  warmMs: number;
  warmMin: number;
  /** Timed iterations: at least min, at most max, stop early once budgetMs is spent (after min). */
  min: number;
  max: number;
  budgetMs: number;
}

export const QUICK_PLAN: LoopPlan = { warmMs: 300, warmMin: 3, min: 7, max: 25, budgetMs: 1500 };
export const FULL_PLAN: LoopPlan = { warmMs: 1000, warmMin: 5, min: 11, max: 31, budgetMs: 3000 };

/** Time a synchronous function by the plan. */
/** A case whose first run takes longer than this (a pathological plan) is timed once, without more warm-up. */
export const SLOW_MS = 2000;

export function timeSync(fn: () => unknown, plan: LoopPlan): number[] {
  const w0 = performance.now();
  fn();
  if (performance.now() - w0 > SLOW_MS) {
    const s = performance.now();
    fn();
    return [performance.now() - s];
  }
  for (let i = 1; i < plan.warmMin || performance.now() - w0 < plan.warmMs; i++) fn();
  const out: number[] = [];
  const t0 = performance.now();
  while (out.length < plan.max && (out.length < plan.min || performance.now() - t0 < plan.budgetMs)) {
    const s = performance.now();
    fn();
    out.push(performance.now() - s);
  }
  return out;
}

export async function timeAsync(fn: () => Promise<unknown>, plan: LoopPlan): Promise<number[]> {
  const w0 = performance.now();
  for (let i = 0; i < plan.warmMin || performance.now() - w0 < plan.warmMs; i++) await fn();
  const out: number[] = [];
  const t0 = performance.now();
  while (out.length < plan.max && (out.length < plan.min || performance.now() - t0 < plan.budgetMs)) {
    const s = performance.now();
    await fn();
    out.push(performance.now() - s);
  }
  return out;
}

/** Milliseconds with sensible precision. */
export function ms(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '–';
  if (x < 1) return x.toFixed(2);
  if (x < 10) return x.toFixed(1);
  return x.toFixed(0);
}

export function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '–';
  const r = a / b;
  return `${r < 10 ? r.toFixed(2) : r.toFixed(1)}×`;
}

export function mb(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '–';
  return `${(bytes / 2 ** 20).toFixed(0)} MB`;
}

export function geomean(xs: number[]): number {
  const v = xs.filter((x) => Number.isFinite(x) && x > 0);
  if (!v.length) return NaN;
  return Math.exp(v.reduce((s, x) => s + Math.log(x), 0) / v.length);
}

export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
