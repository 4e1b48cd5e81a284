/**
 * `npm run bench:ab -- --a <git ref> [--b <git ref>] [--archive m100k_e768] [--rounds 5]`: the figures a person feels, for the CLI built
 * from <git ref> (A) and from this tree (B), alternated in one run so the machine's drift hits both alike. Each round
 * starts each server twice: with an empty index cache (the first semantic answer includes the index build) and with
 * the cache the first start wrote (a later start). B/A per figure is the verdict: a mechanism stays only where
 * removing it costs 10% or more (issue 41).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureArchive, type BenchArchive } from './lib/data';
import { callTool, ensureCliBundle, startCliSession, startEmbedServer, type CliSession } from './lib/mcp';
import { REPO } from './lib/proc';

const argv = process.argv.slice(2);
const arg = (name: string, fallback?: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const ref = arg('--a');
if (!ref) {
  console.error('usage: npm run bench:ab -- --a <git ref> [--archive m100k_e768] [--rounds 5]');
  process.exit(2);
}
const archiveName = arg('--archive', 'm100k_e768')!;
const rounds = Number(arg('--rounds', '5'));
const log = (m: string) => process.stderr.write(`[ab] ${m}\n`);

/** dist/ of `ref`, built in a worktree that borrows this tree's node_modules. */
function buildRef(gitRef: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-ab-'));
  execFileSync('git', ['worktree', 'add', '--detach', dir, gitRef], { cwd: REPO, stdio: 'ignore' });
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
  execFileSync(process.execPath, ['esbuild.js'], { cwd: dir, stdio: 'ignore' });
  return dir;
}

interface Figures {
  /** spawn → first semantic answer, empty cache (includes the index build). */
  firstSemanticBuild: number;
  /** spawn → first keyword answer, cache present. */
  firstKeyword: number;
  /** spawn → first semantic answer, cache present. */
  firstSemanticCached: number;
  keywordMedian: number;
  semanticMedian: number;
  filteredSemanticMedian: number;
  /** All the warm calls of a session together (every pause counted once, wherever it lands). */
  warmCallsTotal: number;
  /** Resident memory after the calls (cache present), MB. */
  rssMb: number;
  peakRssMb: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed<T>(f: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

async function session(
  cli: string,
  a: BenchArchive,
  cacheDir: string,
  embedBaseUrl: string,
): Promise<{ s: CliSession; t0: number }> {
  const t0 = performance.now();
  const s = await startCliSession(cli, a.file, { cacheDir, embedBaseUrl, embedModel: a.spec.model });
  return { s, t0 };
}

async function measure(cli: string, a: BenchArchive, embedBaseUrl: string, queries: string[]): Promise<Figures> {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-ab-cache-'));
  try {
    const cold = await session(cli, a, cacheDir, embedBaseUrl);
    let r = await callTool(cold.s.client, 'semantic_search', { query: queries[0], k: 20 });
    if (r.isError) throw new Error(`semantic_search failed: ${JSON.stringify(r.content)}`);
    const firstSemanticBuild = performance.now() - cold.t0;
    // The cache file is written after the index answers: wait for it before the next start reads it.
    for (
      let i = 0;
      i < 600 && !fs.readdirSync(cacheDir, { recursive: true }).some((f) => String(f).endsWith('.idx'));
      i++
    )
      await new Promise((res) => setTimeout(res, 50));
    await cold.s.close();

    const warm = await session(cli, a, cacheDir, embedBaseUrl);
    r = await callTool(warm.s.client, 'search_messages', { query: 'dinner', limit: 20 });
    const firstKeyword = performance.now() - warm.t0;
    await callTool(warm.s.client, 'semantic_search', { query: queries[1], k: 20 });
    const firstSemanticCached = performance.now() - warm.t0;
    const kw: number[] = [];
    const sem: number[] = [];
    const semF: number[] = [];
    for (const q of queries) {
      kw.push(await timed(() => callTool(warm.s.client, 'search_messages', { query: q.split(' ')[0], limit: 20 })));
      sem.push(await timed(() => callTool(warm.s.client, 'semantic_search', { query: q, k: 20 })));
      semF.push(
        await timed(() =>
          callTool(warm.s.client, 'semantic_search', { query: q, k: 20, start: '2021-01-01', end: '2022-12-31' }),
        ),
      );
    }
    const rssMb = (warm.s.rss() ?? 0) / 2 ** 20;
    const peakRssMb = (warm.s.peakRss() ?? 0) / 2 ** 20;
    await warm.s.close();
    return {
      firstSemanticBuild,
      firstKeyword,
      firstSemanticCached,
      keywordMedian: median(kw),
      semanticMedian: median(sem),
      filteredSemanticMedian: median(semF),
      warmCallsTotal: [...kw, ...sem, ...semF].reduce((t, x) => t + x, 0),
      rssMb,
      peakRssMb,
    };
  } finally {
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const a = ensureArchive(archiveName, log);
  // --b <ref> compares two refs (a bisect) instead of a ref and this tree.
  const refB = arg('--b');
  const worktreeB = refB ? buildRef(refB) : undefined;
  const cliB = worktreeB ? path.join(worktreeB, 'dist', 'cli.js') : ensureCliBundle(log);
  log(`building ${ref} in a worktree`);
  const worktree = buildRef(ref!);
  const cliA = path.join(worktree, 'dist', 'cli.js');
  const embed = await startEmbedServer(a.spec.dim);
  // 30 calls of each kind per session: with 10, one garbage-collection pause landing in a different call moved the
  // median a whole rank (bench/RESULTS.md, issue 41). First words are the keyword queries: hits, misses, a stop word.
  const queries = [
    'dinner plans this weekend',
    'lease agreement for the flat',
    'flight to lisbon',
    'birthday present ideas',
    'doctor appointment',
    'coffee tomorrow morning',
    'rent payment reminder',
    'cabin trip in the mountains',
    'running late sorry',
    'job offer from the startup',
    'train tickets for friday',
    'movie night at home',
    'hotel booking confirmation',
    'beach day with the kids',
    'party at our place',
    'concert in the park',
    'school pickup schedule',
    'kids soccer practice',
    'dog walker this week',
    'car repair estimate',
    'airport pickup time',
    'ticket prices went up',
    'weather looks great',
    'vacation photos',
    'meeting moved to three',
    'the lease renewal',
    'new apartment keys',
    'gym membership cancel',
    'book club next month',
    'wedding invitation',
  ];
  const runs: Record<'A' | 'B', Figures[]> = { A: [], B: [] };
  try {
    for (let i = 0; i < rounds; i++) {
      // Alternate which goes first, so neither always meets the warmer machine.
      for (const v of i % 2 ? (['B', 'A'] as const) : (['A', 'B'] as const)) {
        const f = await measure(v === 'A' ? cliA : cliB, a, embed.baseUrl, queries);
        runs[v].push(f);
        log(
          `round ${i + 1} ${v}: ${JSON.stringify(f, (_k, x: unknown) => (typeof x === 'number' ? Math.round(x * 10) / 10 : x))}`,
        );
      }
    }
  } finally {
    await embed.close();
    for (const w of [worktree, worktreeB]) {
      if (w) execFileSync('git', ['worktree', 'remove', '--force', w], { cwd: REPO, stdio: 'ignore' });
    }
  }
  const rows = (Object.keys(runs.A[0]) as (keyof Figures)[]).map((k) => {
    const ma = median(runs.A.map((f) => f[k]));
    const mb = median(runs.B.map((f) => f[k]));
    return `| ${k} | ${ma.toFixed(1)} | ${mb.toFixed(1)} | ${(mb / ma).toFixed(2)} |`;
  });
  const head = `A = ${ref} (${execFileSync('git', ['rev-parse', '--short', ref!], { cwd: REPO }).toString().trim()}), B = ${arg('--b') ?? 'this tree'}; ${archiveName}, ${rounds} rounds alternated, medians (ms; MB for memory)`;
  process.stdout.write(`${head}\n\n| figure | A | B | B/A |\n|---|---|---|---|\n${rows.join('\n')}\n`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
