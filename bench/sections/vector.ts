/**
 * Vector search (issue 5): our int8 + WASM SIMD index vs numpy (`mat @ q` + argpartition) on the same vectors vs the
 * msgbrowse-style per-query blob scan, recall@20 against exact float64 search, index memory vs float32 size, build
 * (no cache) and load (cache) times. The vectors are the archive's own (exported once from SQLite by python).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchArchive } from '../lib/data';
import { BENCH_DIR } from '../lib/data';
import { runJson, REPO } from '../lib/proc';
import { dist, mb, ms, ratio, table, type Dist } from '../lib/stats';

const K = 20;

interface ChildOut {
  n: number;
  dim: number;
  buildMs: number;
  buildOrigin: string;
  loadMs: number;
  residentBytes: number;
  float32Bytes: number;
  cacheFileBytes: number;
  rss0: number;
  rssOpen: number;
  maxRssBuild: number;
  rssBeforeLoad: number;
  rssAfterLoad: number;
  rssAfterSearch: number;
  maxRss: number;
  times: number[];
  ids: number[][];
  scores: number[][];
  rescored: number[];
  baseTimes: number[];
  baseIds: number[][];
}

interface RefOut {
  n: number;
  dim: number;
  times: number[];
  numpyIds: number[][];
  exactIds: number[][];
  exactScores: number[][];
  exactSeconds: number;
  rssReady: number;
  numpy: string;
  cpus: number;
}

export interface VectorSectionResult {
  archive: string;
  model: string;
  n: number;
  dim: number;
  queries: number;
  ours: Dist;
  numpy: Dist;
  numpyVersion: string;
  blobScan: Dist;
  recall: number;
  maxScoreErr: number;
  numpyRecall: number;
  blobScanRecall: number;
  rescoredAvg: number;
  residentBytes: number;
  float32Bytes: number;
  rssAddedByLoad: number;
  buildMs: number;
  loadMs: number;
  cacheFileBytes: number;
  maxRssBuild: number;
  exportSeconds?: number;
}

function overlap(a: number[], b: number[]): number {
  const s = new Set(b);
  return a.filter((x) => s.has(x)).length;
}

export async function runVectorSection(
  a: BenchArchive,
  opts: { queries: number; baselineQueries: number; log: (m: string) => void },
): Promise<VectorSectionResult> {
  const { log } = opts;
  const emb = a.desc.embeddings;
  if (!emb) throw new Error(`${a.spec.name} has no embeddings`);
  const exportDir = path.join(BENCH_DIR, a.spec.name, 'vectors');
  const stampFile = path.join(exportDir, 'stamp.json');
  const stamp = JSON.stringify({ model: emb.model, count: emb.count, queries: opts.queries, v: 1 });
  let exportSeconds: number | undefined;
  if (!fs.existsSync(stampFile) || fs.readFileSync(stampFile, 'utf8') !== stamp) {
    fs.rmSync(exportDir, { recursive: true, force: true });
    fs.mkdirSync(exportDir, { recursive: true });
    log(`[vector ${a.spec.name}] exporting ${emb.count} × ${emb.dim} vectors from SQLite for numpy (python sqlite3)`);
    const out = await runJson<{ seconds: number }>(
      'python3',
      [
        path.join(REPO, 'bench', 'native', 'vector_ref.py'),
        'export',
        a.file,
        emb.model,
        exportDir,
        String(opts.queries),
      ],
      { label: 'vector export' },
    );
    exportSeconds = out.seconds;
    fs.writeFileSync(stampFile, stamp);
  }
  const cacheDir = path.join(BENCH_DIR, 'index-caches', `${a.spec.name}-vector`);
  log(
    `[vector ${a.spec.name}] our index: build without cache, load from cache, ${opts.queries} queries; msgbrowse-style scan × ${opts.baselineQueries}`,
  );
  const ours = await runJson<ChildOut>(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      path.join(REPO, 'bench', 'lib', 'vector-child.ts'),
      a.file,
      emb.model,
      cacheDir,
      path.join(exportDir, 'queries.npy'),
      String(opts.baselineQueries),
    ],
    { label: 'vector-child' },
  );
  log(
    `[vector ${a.spec.name}] ours median ${ms(dist(ours.times).median)} ms; build ${(ours.buildMs / 1000).toFixed(1)} s, load ${ms(ours.loadMs)} ms; numpy reference + exact float64 ground truth`,
  );
  const ref = await runJson<RefOut>(
    'python3',
    [path.join(REPO, 'bench', 'native', 'vector_ref.py'), 'bench', exportDir, String(K), '3'],
    {
      label: 'numpy reference',
    },
  );
  let hit = 0;
  let err = 0;
  let npHit = 0;
  let baseHit = 0;
  ref.exactIds.forEach((exact, i) => {
    hit += overlap(ours.ids[i], exact);
    npHit += overlap(ref.numpyIds[i], exact);
    for (let r = 0; r < exact.length; r++) err = Math.max(err, Math.abs(ours.scores[i][r] - ref.exactScores[i][r]));
  });
  for (const [i, ids] of ours.baseIds.entries()) baseHit += overlap(ids, ref.exactIds[i]);
  return {
    archive: a.spec.name,
    model: emb.model,
    n: ours.n,
    dim: ours.dim,
    queries: ours.times.length,
    ours: dist(ours.times),
    numpy: dist(ref.times),
    numpyVersion: ref.numpy,
    blobScan: dist(ours.baseTimes),
    recall: hit / (ref.exactIds.length * K),
    maxScoreErr: err,
    numpyRecall: npHit / (ref.exactIds.length * K),
    blobScanRecall: ours.baseIds.length ? baseHit / (ours.baseIds.length * K) : NaN,
    rescoredAvg: ours.rescored.reduce((s, x) => s + x, 0) / ours.rescored.length,
    residentBytes: ours.residentBytes,
    float32Bytes: ours.float32Bytes,
    rssAddedByLoad: ours.rssAfterLoad - ours.rssBeforeLoad,
    buildMs: ours.buildMs,
    loadMs: ours.loadMs,
    cacheFileBytes: ours.cacheFileBytes,
    maxRssBuild: ours.maxRssBuild,
    exportSeconds,
  };
}

export function vectorTable(rs: VectorSectionResult[]): string {
  return table(
    [
      'vectors (archive)',
      'ours top-20 median / p95 ms',
      'numpy `mat @ q` + argpartition median / p95',
      '**ours ÷ numpy**',
      'msgbrowse-style blob scan median (queries)',
      'ours ÷ blob scan',
      'recall@20 vs exact float64 (max score err)',
      'numpy recall@20',
      'rows rescored / query',
      'index memory (÷ float32)',
      'RSS added by cache load',
    ],
    rs.map((r) => [
      `${r.n.toLocaleString('en-US')} × ${r.dim} (${r.archive})`,
      `${ms(r.ours.median)} / ${ms(r.ours.p95)}`,
      `${ms(r.numpy.median)} / ${ms(r.numpy.p95)}`,
      `**${ratio(r.ours.median, r.numpy.median)}**`,
      r.blobScan.n ? `${ms(r.blobScan.median)} (${r.blobScan.n})` : 'not run',
      r.blobScan.n ? `1/${(r.blobScan.median / r.ours.median).toFixed(0)}` : '–',
      `${r.recall.toFixed(3)} (${r.maxScoreErr.toExponential(1)})`,
      r.numpyRecall.toFixed(3),
      r.rescoredAvg.toFixed(0),
      `${mb(r.residentBytes)} of ${mb(r.float32Bytes)} (${((100 * r.residentBytes) / r.float32Bytes).toFixed(1)}%)`,
      mb(r.rssAddedByLoad),
    ]),
  );
}

export function vectorColdTable(rs: VectorSectionResult[]): string {
  return table(
    [
      'vectors',
      'index build without cache (SQLite scan + quantise + cache write)',
      'load from cache',
      'cache file',
      'peak RSS of the building process',
    ],
    rs.map((r) => [
      `${r.n.toLocaleString('en-US')} × ${r.dim}`,
      `${(r.buildMs / 1000).toFixed(1)} s`,
      `${ms(r.loadMs)} ms`,
      mb(r.cacheFileBytes),
      mb(r.maxRssBuild),
    ]),
  );
}
