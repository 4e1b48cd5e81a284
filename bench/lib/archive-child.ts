/**
 * Our archive layer in a fresh process (run by sections/archive.ts and sections/cold.ts):
 *   tsx bench/lib/archive-child.ts <db> <cases.json> '<plan json>' [--first <caseKey>]
 * Measures engine init, the first (cold-ish) open, resident memory added by it and warm reopens, prints a JSON "ready"
 * line, then times each case key read from stdin through the public Archive API (`list_conv_sql`: the uncached
 * conversation-listing SQL through the same connection class), checking the ids equal the native ones, one JSON
 * line per case; "quit" ends it. With --first it only times open + that one query (cold start) and exits.
 */
import * as fs from 'node:fs';
import * as readline from 'node:readline';
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
  const send = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
  send({ type: 'ready', initMs, openMs, warmOpenMs: warm, rss0, rssOpen });

  // The conversation listing without the per-connection cache: the same SQL through the same connection class.
  const conn = new ArchiveConnection(engine, archive.path);
  const schema = conn.run((sql) => detectSchema(sql));
  const byKey = new Map(cases.map((c) => [c.key, c]));
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    const key = line.trim();
    if (key === 'quit') break;
    let r: unknown;
    let samples: number[] = [];
    let ids: (number | string)[] = [];
    let expected: (number | string)[] = [];
    if (key === 'list_conv_sql') {
      samples = timeSync(() => (r = conn.run((sql) => listConversations(sql, schema))), plan);
      ids = idsOf('listConversations', r);
      expected = byKey.get('list_conv')?.expected ?? [];
    } else {
      const c = byKey.get(key);
      if (c) {
        samples = timeSync(() => (r = call(archive, c)), plan);
        ids = idsOf(c.call.method, r);
        expected = c.expected;
      }
    }
    send({
      type: 'result',
      key,
      samples,
      idsMatch: JSON.stringify(ids) === JSON.stringify(expected),
      count: ids.length,
    });
  }
  conn.close();
  archive.close();
  process.stdout.write(
    `${JSON.stringify({ type: 'end', rssEnd: process.memoryUsage().rss, maxRss: process.resourceUsage().maxRSS * 1024 })}\n`,
    () => process.exit(0),
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`archive-child: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
