/**
 * Archive layer (issue 2): open time, added memory, and every query kind as a ratio to native SQLite running the
 * identical statements on the same file in the same run. Every engine is a fresh process (ours starts first, on a
 * file evicted from the page cache, for the cold open); the cases are then run interleaved — case by case, each
 * engine in turn with a rotating order — so load changes on the shared machine hit all engines alike. With rounds > 1
 * everything repeats and each engine keeps its best median per case (noise on a shared VM only adds).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchArchive } from '../lib/data';
import { evictFromPageCache, LineChild, node22, tmpDir, tsxCommand, REPO } from '../lib/proc';
import { best, dist, geomean, ms, mb, ratio, table, type Dist, type LoopPlan } from '../lib/stats';
import { buildCases, type QueryCase } from '../lib/trace';

interface NativeOut {
  engine: string;
  version: string;
  openMs: number;
  rss0: number;
  rssOpen: number;
  results: Record<string, { samples: number[]; rows: number; keys?: string[][] }>;
}

type CaseReply = { samples: number[]; rows?: number; keys?: string[][]; idsMatch?: boolean; count?: number };

interface OursOut {
  initMs: number;
  openMs: number;
  warmOpenMs: number[];
  rss0: number;
  rssOpen: number;
  rssEnd: number;
  maxRss: number;
  results: Record<string, { samples: number[]; idsMatch: boolean; count: number }>;
}

export interface EngineSummary {
  id: string;
  label: string;
  version: string;
  openMs: number[];
  perCase: Record<string, Dist>;
  rows: Record<string, number>;
}

export interface ArchiveSectionResult {
  archive: string;
  fileBytes: number;
  messages: number;
  conversations: number;
  cases: { key: string; label: string; group: string; detail: string; statements: number; rows: number }[];
  ours: {
    initMs: number[];
    coldOpenMs: number[];
    warmOpenMs: number;
    addedRss: number[];
    rssAfterQueries: number[];
    perCase: Record<string, Dist>;
    idsMatch: Record<string, boolean>;
  };
  natives: EngineSummary[];
  rowsAgree: boolean;
  mismatches?: string[];
  evicted: boolean;
}

const NATIVE_LABELS: Record<string, string> = {
  'node:sqlite': 'node:sqlite (Node 22.23.5)',
  'better-sqlite3': 'better-sqlite3 12.6.2',
  python: 'Python sqlite3',
};

export async function runArchiveSection(
  a: BenchArchive,
  opts: { plan: LoopPlan; rounds: number; log: (m: string) => void },
): Promise<ArchiveSectionResult> {
  const { log, plan } = opts;
  const cases: QueryCase[] = await buildCases(a);
  const dir = tmpDir('msgbrowse-bench-cases-');
  const casesFile = path.join(dir, 'cases.json');
  fs.writeFileSync(casesFile, JSON.stringify(cases));
  const planJson = JSON.stringify(plan);
  const n22 = node22(log);
  const betterPath = require.resolve('better-sqlite3', { paths: [REPO] });
  const ours: OursOut[] = [];
  const natives = new Map<string, NativeOut[]>();
  let evicted = true;
  const keys = [...cases.map((c) => c.key), 'list_conv_sql'];
  try {
    for (let round = 1; round <= opts.rounds; round++) {
      evicted = evictFromPageCache([a.file, `${a.file}-wal`]) && evicted;
      log(
        `[archive ${a.spec.name}] round ${round}/${opts.rounds}: starting ours (fresh process, file evicted from the page cache), then the native engines`,
      );
      const t = tsxCommand(path.join(REPO, 'bench', 'lib', 'archive-child.ts'), [a.file, casesFile, planJson]);
      const engines: { id: string; child: LineChild<Record<string, unknown>, CaseReply> }[] = [];
      try {
        const o = new LineChild<Record<string, unknown>, CaseReply>('ours', t.cmd, t.args);
        engines.push({ id: 'ours', child: o });
        const oursReady = await o.ready;
        const native = path.join(REPO, 'bench', 'native', 'sqlite-native.cjs');
        if (n22)
          engines.push({
            id: 'node:sqlite',
            child: new LineChild('node:sqlite', n22, [native, 'node:sqlite', a.file, casesFile, planJson]),
          });
        engines.push({
          id: 'better-sqlite3',
          child: new LineChild('better-sqlite3', process.execPath, [
            native,
            'better-sqlite3',
            a.file,
            casesFile,
            planJson,
            betterPath,
          ]),
        });
        engines.push({
          id: 'python',
          child: new LineChild('python', 'python3', [
            path.join(REPO, 'bench', 'native', 'sqlite_native.py'),
            a.file,
            casesFile,
            planJson,
          ]),
        });
        const readies = new Map<string, Record<string, unknown>>([['ours', oursReady]]);
        for (const e of engines.slice(1)) readies.set(e.id, await e.child.ready);
        // Interleaved per case (engine order rotates), so load changes on the shared machine hit every engine alike.
        const replies = new Map<string, Record<string, CaseReply>>(engines.map((e) => [e.id, {}]));
        for (let ki = 0; ki < keys.length; ki++) {
          const key = keys[ki];
          const order = engines.map((_, j) => engines[(j + ki) % engines.length]);
          for (const e of order) {
            if (key === 'list_conv_sql' && e.id !== 'ours') continue;
            replies.get(e.id)![key] = await e.child.request(key);
          }
        }
        log(`[archive ${a.spec.name}] round ${round}/${opts.rounds} done`);
        for (const e of engines) {
          const end = (await e.child.quit()) as Record<string, number> | undefined;
          const ready = readies.get(e.id)!;
          if (e.id === 'ours') {
            ours.push({
              ...(ready as unknown as OursOut),
              rssEnd: end?.rssEnd ?? NaN,
              maxRss: end?.maxRss ?? NaN,
              results: replies.get('ours') as OursOut['results'],
            });
          } else {
            const out = { ...(ready as unknown as NativeOut), results: replies.get(e.id) as NativeOut['results'] };
            natives.set(e.id, [...(natives.get(e.id) ?? []), out]);
          }
        }
      } finally {
        for (const e of engines) e.child.kill();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const oursPer: Record<string, Dist> = {};
  const idsMatch: Record<string, boolean> = {};
  for (const k of keys) {
    oursPer[k] = best(ours.map((o) => dist(o.results[k]?.samples ?? [])));
    idsMatch[k] = ours.every((o) => o.results[k]?.idsMatch ?? false);
  }
  const nat: EngineSummary[] = [...natives].map(([id, outs]) => {
    const perCase: Record<string, Dist> = {};
    const rows: Record<string, number> = {};
    for (const c of cases) {
      perCase[c.key] = best(outs.map((o) => dist(o.results[c.key]?.samples ?? [])));
      rows[c.key] = outs[0].results[c.key]?.rows ?? -1;
    }
    perCase.list_conv_sql = perCase.list_conv;
    return {
      id,
      label: NATIVE_LABELS[id] ?? id,
      version: outs[0].version,
      openMs: outs.map((o) => o.openMs),
      perCase,
      rows,
    };
  });
  // Every native returned, statement by statement, the same rows (key columns) as our engine did for the capture.
  const mismatches: string[] = [];
  for (const [id, outs] of natives) {
    for (const c of cases) {
      const k = outs[0].results[c.key]?.keys;
      if (JSON.stringify(k) !== JSON.stringify(c.keys)) mismatches.push(`${id}: ${c.key}`);
    }
  }
  const rowsAgree = mismatches.length === 0;
  return {
    archive: a.spec.name,
    fileBytes: a.bytes,
    messages: a.desc.messages,
    conversations: a.desc.conversations,
    cases: cases.map((c) => ({
      key: c.key,
      label: c.label,
      group: c.group,
      detail: c.detail,
      statements: c.statements.length,
      rows: c.rows,
    })),
    ours: {
      initMs: ours.map((o) => o.initMs),
      coldOpenMs: ours.map((o) => o.openMs),
      warmOpenMs: dist(ours.flatMap((o) => o.warmOpenMs)).median,
      addedRss: ours.map((o) => o.rssOpen - o.rss0),
      rssAfterQueries: ours.map((o) => o.rssEnd),
      perCase: oursPer,
      idsMatch,
    },
    natives: nat,
    rowsAgree,
    mismatches,
    evicted,
  };
}

const min = (xs: number[]) => Math.min(...xs);

export function archiveTables(r: ArchiveSectionResult): string {
  const primary = r.natives.find((n) => n.id === 'node:sqlite') ?? r.natives[0];
  const others = r.natives.filter((n) => n !== primary);
  const labels = new Map(r.cases.map((c) => [c.key, c.label]));
  labels.set('list_conv_sql', 'list conversations (uncached SQL)');
  const header = [
    'query',
    'ours median / p95 ms',
    `${primary.label} (SQLite ${primary.version}) median / p95`,
    '**ratio median** (p95)',
    ...others.flatMap((o) => [`${o.label} (SQLite ${o.version}) median`, `ratio vs ${o.id}`]),
    'same ids as native',
  ];
  const keys = [...r.cases.map((c) => c.key), 'list_conv_sql'];
  const rows = keys.map((k) => {
    const o = r.ours.perCase[k];
    const p = primary.perCase[k];
    return [
      labels.get(k) ?? k,
      `${ms(o.median)} / ${ms(o.p95)}`,
      `${ms(p.median)} / ${ms(p.p95)}`,
      `**${ratio(o.median, p.median)}** (${ratio(o.p95, p.p95)})`,
      ...others.flatMap((n) => [ms(n.perCase[k].median), ratio(o.median, n.perCase[k].median)]),
      r.ours.idsMatch[k] ? 'yes' : '**NO**',
    ];
  });
  // Geo-mean over the query kinds (list_conv counted once, uncached).
  const gmKeys = keys.filter((k) => k !== 'list_conv');
  // Cases an engine timed once (a pathological plan of its own SQLite version) are left out of its geo-mean.
  const gm = (e: EngineSummary) =>
    geomean(gmKeys.filter((k) => e.perCase[k].n > 1).map((k) => r.ours.perCase[k].median / e.perCase[k].median));
  rows.push([
    '**geo-mean ratio** (all kinds, listing uncached)',
    '',
    '',
    `**${gm(primary).toFixed(2)}×**`,
    ...others.flatMap((n) => ['', `${gm(n).toFixed(2)}×`]),
    '',
  ]);
  const q = table(header, rows);
  const open = table(
    [
      'archive',
      'file',
      'WASM engine init',
      'first open, fresh process (page cache evicted)',
      'warm reopen',
      'RSS added by init + open',
      ...r.natives.map((n) => `${n.id} open`),
    ],
    [
      [
        `${r.archive} (${r.messages.toLocaleString('en-US')} messages, ${r.conversations} conversations)`,
        mb(r.fileBytes),
        `${ms(min(r.ours.initMs))} ms`,
        `${ms(min(r.ours.coldOpenMs))} ms (runs: ${r.ours.coldOpenMs.map(ms).join(', ')})`,
        `${ms(r.ours.warmOpenMs)} ms`,
        `${mb(min(r.ours.addedRss))} (RSS after all queries: ${mb(min(r.ours.rssAfterQueries))})`,
        ...r.natives.map((n) => `${ms(min(n.openMs))} ms`),
      ],
    ],
  );
  const slow = keys.flatMap((k) =>
    r.natives
      .filter((n) => n.perCase[k]?.n === 1)
      .map((n) => `${n.id} on ${labels.get(k) ?? k} (${ms(n.perCase[k].median)} ms)`),
  );
  return (
    `${open}\n\n${q}\n\n` +
    `Every statement returned the same rows (key column of every row, in order) in every native engine as in ours: ${r.rowsAgree ? 'yes' : `**NO** (${(r.mismatches ?? []).join(', ')})`}. ` +
    `"same ids as native" compares the public API's result with the query function's result on the captured run.` +
    (slow.length ? ` Timed once (first run over 2 s, a pathological query plan): ${slow.join('; ')}.` : '')
  );
}
