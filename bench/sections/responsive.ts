/** Responsiveness while the engine worker builds a vector index (see lib/responsive-child.ts). */
import * as path from 'node:path';
import type { BenchArchive } from '../lib/data';
import { BENCH_DIR } from '../lib/data';
import { ensureCliBundle } from '../lib/mcp';
import { runJson, tsxCommand, REPO } from '../lib/proc';
import { ms, table } from '../lib/stats';

export interface ResponsiveResult {
  archive: string;
  vectors: number;
  dim: number;
  buildMs: number;
  buildError?: string;
  semanticHits: number;
  idleLag: { max: number; p99: number; mean: number };
  lag: { max: number; p99: number; mean: number; maxDrift: number };
  calls: number;
  byTool: Record<string, number>;
  latency: { median: number; p95: number; max: number };
  /** Latency minus the same tool's idle median: how long a call waited because of the build (absent in old runs). */
  wait?: { median: number; p95: number; max: number; over50: number };
  /** Each tool's median latency with no build running. */
  idleMs?: Record<string, number>;
  errors: string[];
}

export async function runResponsiveSection(
  a: BenchArchive,
  opts: { log: (m: string) => void },
): Promise<ResponsiveResult> {
  const emb = a.desc.embeddings;
  if (!emb) throw new Error(`${a.spec.name} has no embeddings`);
  opts.log(
    `[responsive ${a.spec.name}] building the ${emb.count}-vector index in the engine worker (no cache) while tool calls run`,
  );
  // The engine worker and its index-build thread as they ship (dist/engine-worker.js, which starts
  // dist/index-build-worker.js beside it): run from src/ through tsx, a worker would transpile its sources and
  // assemble the vector kernel from its text (wabt) while the calls are timed.
  ensureCliBundle(opts.log);
  const t = tsxCommand(path.join(REPO, 'bench', 'lib', 'responsive-child.ts'), [
    a.file,
    emb.model,
    String(emb.dim),
    String(a.desc.largestConversation.id),
    path.join(BENCH_DIR, a.spec.name, 'vectors', 'queries.npy'),
    path.join(BENCH_DIR, 'index-caches', `${a.spec.name}-responsive`),
    path.join(REPO, 'dist', 'engine-worker.js'),
  ]);
  const out = await runJson<Omit<ResponsiveResult, 'archive' | 'vectors' | 'dim'>>(t.cmd, t.args, {
    label: 'responsive-child',
  });
  return { archive: a.spec.name, vectors: emb.count, dim: emb.dim, ...out };
}

export function responsiveTable(rs: ResponsiveResult[]): string {
  return table(
    [
      'index build in the engine worker',
      'build (semantic_search waiting)',
      'tool calls answered during the build',
      'their latency median / p95 / max',
      "**time they waited** (latency − the tool's idle median) median / p95 / max, calls over 50 ms",
      'idle latency per tool',
      '**main-thread event-loop delay max** (p99, mean)',
      'same, idle machine baseline (2 s before)',
      'errors',
    ],
    rs.map((r) => [
      `${r.vectors.toLocaleString('en-US')} × ${r.dim} (${r.archive})`,
      `${(r.buildMs / 1000).toFixed(1)} s${r.buildError ? ` — error: ${r.buildError}` : `, then ${r.semanticHits} hits`}`,
      `${r.calls} (${Object.entries(r.byTool)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')})`,
      `${ms(r.latency.median)} / ${ms(r.latency.p95)} / ${ms(r.latency.max)} ms`,
      r.wait
        ? `**${ms(r.wait.median)} / ${ms(r.wait.p95)} / ${ms(r.wait.max)} ms**, ${r.wait.over50} over 50 ms`
        : 'not measured',
      r.idleMs
        ? Object.entries(r.idleMs)
            .map(([k, v]) => `${k} ${ms(v)}`)
            .join(', ')
        : 'not measured',
      `**${ms(r.lag.max)} ms** (${ms(r.lag.p99)}, ${ms(r.lag.mean)})`,
      `${ms(r.idleLag.max)} ms (${ms(r.idleLag.p99)}, ${ms(r.idleLag.mean)})`,
      r.errors.length ? r.errors.join('; ') : 'none',
    ]),
  );
}
