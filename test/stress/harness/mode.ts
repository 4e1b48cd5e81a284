/**
 * CI mode versus long mode. `MSGBROWSE_LONG=1` (set by `scripts/long-tests.mjs`) scales every suite up;
 * `MSGBROWSE_SEED` replays a fuzz run. Suites read their numbers through `scale()` so both modes run the
 * same code.
 */
export const LONG = process.env.MSGBROWSE_LONG === '1';

/** The number for the current mode. */
export function scale<T>(ci: T, long: T): T {
  return LONG ? long : ci;
}

/** Seed of property-based runs: fixed in CI (reproducible), overridable to replay a failure. */
export function fuzzSeed(defaultSeed = 0x6d5b_2026): number {
  const raw = process.env.MSGBROWSE_SEED;
  if (raw === undefined || raw === '') return defaultSeed;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`MSGBROWSE_SEED must be an integer, got ${raw}`);
  return n;
}

/** Per-test timeout for node:test (ms), generous in long mode. */
export function testTimeout(ciMs: number, longMs: number): number {
  return scale(ciMs, longMs);
}
