/**
 * Cold start (issues 2 and 5): the archive file is evicted from the OS page cache (posix_fadvise DONTNEED on that
 * file only), then a fresh process opens it and answers its first keyword query — through the archive layer
 * (engine init + open + query) and through the production CLI over stdio (spawn → initialize → first
 * search_messages). With a vector-index cache present, a hybrid first call after evicting archive and cache file
 * shows the cold index load. Index build without cache and warm cache loads come from the vector section.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchArchive } from '../lib/data';
import { BENCH_DIR } from '../lib/data';
import { callTool, ensureCliBundle, startCliSession, startEmbedServer, toolText } from '../lib/mcp';
import { npyRows, readNpy } from '../lib/npy';
import { evictFromPageCache, residentFraction, runJson, tmpDir, tsxCommand, REPO } from '../lib/proc';
import { mb, ms, table } from '../lib/stats';
import { buildCases } from '../lib/trace';

interface FirstOut {
  processStartToMainMs: number;
  initMs: number;
  openMs: number;
  firstMs: number;
  totalMs: number;
  sinceProcessStartMs: number;
  rss0: number;
  rssOpen: number;
  rssEnd: number;
  idsMatch: boolean;
}

export interface ColdLibRun extends FirstOut {
  key: string;
  label: string;
  residentBefore?: number;
}

export interface ColdCliRun {
  mode: 'keyword' | 'hybrid';
  query: string;
  connectMs: number;
  firstCallMs: number;
  totalMs: number;
  peakRss?: number;
  residentBefore?: number;
  semanticUsed: boolean;
  error?: string;
}

export interface ColdResult {
  archive: string;
  fileBytes: number;
  evicted: boolean;
  lib: ColdLibRun[];
  cli: ColdCliRun[];
}

/** Cold reads vary a lot on a shared VM disk: every measurement is repeated and reported as median (all runs). */
const REPS = 3;

export async function runColdSection(a: BenchArchive, opts: { log: (m: string) => void }): Promise<ColdResult> {
  const { log } = opts;
  const files = [a.file, `${a.file}-wal`];
  const cases = await buildCases(a, ['kw_common', 'kw_rare']);
  const dir = tmpDir('msgbrowse-bench-cold-');
  const casesFile = path.join(dir, 'cases.json');
  fs.writeFileSync(casesFile, JSON.stringify(cases));
  const lib: ColdLibRun[] = [];
  let evicted = true;
  try {
    for (let rep = 0; rep < REPS; rep++)
      for (const c of cases) {
        evicted = evictFromPageCache(files) && evicted;
        const residentBefore = residentFraction(a.file);
        log(
          `[cold ${a.spec.name}] archive layer, fresh process, file evicted (${((residentBefore ?? NaN) * 100).toFixed(1)}% resident): open + first ${c.label}`,
        );
        const t = tsxCommand(path.join(REPO, 'bench', 'lib', 'archive-child.ts'), [
          a.file,
          casesFile,
          '{}',
          '--first',
          c.key,
        ]);
        const out = await runJson<FirstOut>(t.cmd, t.args, { label: 'archive-child --first' });
        lib.push({ ...out, key: c.key, label: c.label, residentBefore });
      }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const cli = ensureCliBundle(log);
  const runs: ColdCliRun[] = [];
  const cliModes: typeof modes = [];
  const emb = a.desc.embeddings;
  const modes: { mode: 'keyword' | 'hybrid'; query: string }[] = [
    { mode: 'keyword', query: a.desc.sampleWords.rare[1] ?? a.desc.sampleWords.rare[0] },
    { mode: 'keyword', query: 'with' },
  ];
  const e2eCache = path.join(BENCH_DIR, 'index-caches', `${a.spec.name}-e2e`);
  const haveCache = fs.existsSync(e2eCache) && fs.readdirSync(e2eCache).length > 0;
  if (emb && haveCache) modes.push({ mode: 'hybrid', query: 'coffee tonight' });
  const qFile = emb ? path.join(BENCH_DIR, a.spec.name, 'vectors', 'queries.npy') : '';
  const embed = emb ? await startEmbedServer(emb.dim, fs.existsSync(qFile) ? npyRows(readNpy(qFile)) : []) : undefined;
  for (let rep = 0; rep < REPS; rep++) cliModes.push(...modes);
  try {
    for (const m of cliModes) {
      const cacheFiles = m.mode === 'hybrid' ? fs.readdirSync(e2eCache).map((f) => path.join(e2eCache, f)) : [];
      evicted = evictFromPageCache([...files, ...cacheFiles]) && evicted;
      const residentBefore = residentFraction(a.file);
      log(
        `[cold ${a.spec.name}] CLI over stdio, ${m.mode}, file${cacheFiles.length ? ' and index cache' : ''} evicted: spawn → first search_messages "${m.query}"`,
      );
      const t0 = performance.now();
      const s = await startCliSession(cli, a.file, {
        cacheDir: m.mode === 'hybrid' ? e2eCache : path.join(BENCH_DIR, 'index-caches', `${a.spec.name}-cold-keyword`),
        embedBaseUrl: embed?.baseUrl,
        embedModel: m.mode === 'hybrid' && emb ? emb.model : '',
      });
      try {
        const t = performance.now();
        const r = await callTool(s.client, 'search_messages', { query: m.query });
        const firstCallMs = performance.now() - t;
        const sem = r.structuredContent?.semantic as { used?: boolean } | undefined;
        runs.push({
          mode: m.mode,
          query: m.query,
          connectMs: s.connectMs,
          firstCallMs,
          totalMs: performance.now() - t0,
          peakRss: s.peakRss(),
          residentBefore,
          semanticUsed: sem?.used === true,
          error: r.isError ? toolText(r) : undefined,
        });
      } finally {
        await s.close();
      }
    }
  } finally {
    await embed?.close();
  }
  return { archive: a.spec.name, fileBytes: a.bytes, evicted, lib: lib, cli: runs };
}

export function median(xs: number[]): number {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

/** Runs grouped by what they measure, each group summarised by the run with the median total. */
function groupRuns<T extends { totalMs: number }>(
  runs: T[],
  keyOf: (r: T) => string,
): { key: string; median: T; totals: number[] }[] {
  const groups = new Map<string, T[]>();
  for (const r of runs) groups.set(keyOf(r), [...(groups.get(keyOf(r)) ?? []), r]);
  return [...groups].map(([key, rs]) => {
    const m = median(rs.map((r) => r.totalMs));
    const sorted = [...rs].sort((a, b) => Math.abs(a.totalMs - m) - Math.abs(b.totalMs - m));
    return { key, median: { ...sorted[0], totalMs: m }, totals: rs.map((r) => r.totalMs) };
  });
}

export function coldTables(r: ColdResult): string {
  const lib = table(
    [
      'archive layer, fresh process, page cache evicted',
      'WASM engine init',
      'open',
      'first query',
      '**init + open + first query** median (all runs)',
      'open + first query (engine loaded at start) median',
      'since process start (incl. node + tsx startup)',
      'RSS after open (added)',
      'same ids as native',
    ],
    groupRuns(r.lib, (x) => x.key).map(({ median: x, totals }) => [
      `${r.archive} (${mb(r.fileBytes)}): ${x.label}`,
      `${ms(x.initMs)} ms`,
      `${ms(x.openMs)} ms`,
      `${ms(x.firstMs)} ms`,
      `**${ms(x.totalMs)} ms** (${totals.map(ms).join(', ')})`,
      `${ms(median(r.lib.filter((y) => y.key === x.key).map((y) => y.openMs + y.firstMs)))} ms`,
      `${ms(x.sinceProcessStartMs)} ms`,
      `${mb(x.rssOpen)} (+${mb(x.rssOpen - x.rss0)})`,
      x.idsMatch ? 'yes' : '**NO**',
    ]),
  );
  const cli = table(
    [
      'production CLI (dist/cli.js) over stdio, page cache evicted',
      'spawn → initialized',
      'first search_messages',
      '**spawn → first answer** median (all runs)',
      'server peak RSS',
      'semantic half used',
    ],
    groupRuns(r.cli, (x) => `${x.mode}|${x.query}`).map(({ median: x, totals }) => [
      `${r.archive}: ${x.mode === 'hybrid' ? 'hybrid (index cache file evicted too)' : 'keyword only (no embedding model)'}, "${x.query}"`,
      `${ms(x.connectMs)} ms`,
      `${ms(x.firstCallMs)} ms`,
      `**${ms(x.totalMs)} ms** (${totals.map(ms).join(', ')})`,
      mb(x.peakRss),
      x.error ? `error: ${x.error}` : x.mode === 'keyword' ? '– (off)' : x.semanticUsed ? 'yes' : 'no',
    ]),
  );
  return `${lib}\n\n${cli}`;
}
