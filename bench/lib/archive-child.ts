/**
 * Our archive layer in a fresh process (run by sections/archive.ts and sections/cold.ts):
 *   tsx bench/lib/archive-child.ts <db> <cases.json> '<plan json>' [--first <caseKey>]
 * Measures engine init, the first (cold-ish) open, resident memory added by it, a warm reopen, then every case through
 * the public Archive API (plus the uncached conversation-listing SQL through the same connection class), and checks
 * the ids equal the native ones. With --first it only times open + that one query (cold start) and exits.
 */
import * as fs from 'node:fs';
import { ArchiveConnection } from '../../src/archive/connection';
import { openArchive, type Archive } from '../../src/archive/index';
import { listConversations } from '../../src/archive/queries/conversations';
import { detectSchema } from '../../src/archive/schema';
import { loadEngine } from '../../src/archive/wasm-engine';
import { timeSync, type LoopPlan } from './stats';
import { idsOf, type QueryCase } from './trace';

function call(archive: Archive, c: QueryCase): unknown {
  const fn = archive[c.call.method] as (...a: unknown[]) => unknown;
  return fn.apply(archive, c.call.args);
}

async function main(): Promise<void> {
  const [file, casesFile, planJson, flag, firstKey] = process.argv.slice(2);
  const plan = JSON.parse(planJson) as LoopPlan;
  const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8')) as QueryCase[];
  const sinceStart = performance.now();
  const rss0 = process.memoryUsage().rss;
  let t = performance.now();
  const engine = await loadEngine();
  const initMs = performance.now() - t;
  t = performance.now();
  let archive = await openArchive(file);
  const openMs = performance.now() - t;
  const rssOpen = process.memoryUsage().rss;

  if (flag === '--first') {
    const c = cases.find((x) => x.key === firstKey);
    if (!c) throw new Error(`no case ${firstKey}`);
    t = performance.now();
    const r = call(archive, c);
    const firstMs = performance.now() - t;
    const ids = idsOf(c.call.method, r);
    process.stdout.write(
      JSON.stringify({
        processStartToMainMs: sinceStart,
        initMs,
        openMs,
        firstMs,
        totalMs: initMs + openMs + firstMs,
        sinceProcessStartMs: performance.now(),
        rss0,
        rssOpen,
        rssEnd: process.memoryUsage().rss,
        idsMatch: JSON.stringify(ids) === JSON.stringify(c.expected),
      }),
    );
    archive.close();
    return;
  }

  archive.close();
  const warm: number[] = [];
  for (let i = 0; i < 5; i++) {
    t = performance.now();
    archive = await openArchive(file);
    warm.push(performance.now() - t);
    if (i < 4) archive.close();
  }

  const results: Record<string, { samples: number[]; idsMatch: boolean; count: number }> = {};
  for (const c of cases) {
    let r: unknown;
    const samples = timeSync(() => (r = call(archive, c)), plan);
    const ids = idsOf(c.call.method, r);
    results[c.key] = { samples, idsMatch: JSON.stringify(ids) === JSON.stringify(c.expected), count: ids.length };
  }
  // The conversation listing without the per-connection cache: the same SQL through the same connection class.
  const lc = cases.find((c) => c.key === 'list_conv');
  if (lc) {
    const conn = new ArchiveConnection(engine, archive.path);
    const schema = conn.run((sql) => detectSchema(sql));
    let r: unknown;
    const samples = timeSync(() => (r = conn.run((sql) => listConversations(sql, schema))), plan);
    const ids = idsOf('listConversations', r);
    results.list_conv_sql = { samples, idsMatch: JSON.stringify(ids) === JSON.stringify(lc.expected), count: ids.length };
    conn.close();
  }
  const rssEnd = process.memoryUsage().rss;
  archive.close();
  process.stdout.write(
    JSON.stringify({ initMs, openMs, warmOpenMs: warm, rss0, rssOpen, rssEnd, maxRss: process.resourceUsage().maxRSS * 1024, results }),
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`archive-child: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
