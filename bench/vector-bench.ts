/**
 * Vector search benchmark (not part of the tests).
 *
 *   npx tsx bench/vector-bench.ts --quick                         100k × 768 only
 *   npx tsx bench/vector-bench.ts                                 100k × 768, 1M × 384, 1M × 768
 *   npx tsx bench/vector-bench.ts --configs 200000x384 --queries 30 --baseline-queries 3 --no-numpy
 *
 * For each N × D it generates clustered, anisotropic vectors in memory (a shared mean direction + one of 256
 * cluster centres + uniform noise, like real sentence embeddings whose cosines sit around 0.2–0.6), then measures:
 * - our index: build through the persistent cache (quantise + write the cache file), load from the cache, semantic
 *   top-20 median/p95 (unfiltered and with a 10% date filter), resident index memory vs the float32 size;
 * - a plain-JS exact cosine baseline (msgbrowse's algorithm: float64 cosine with norms per row per query, here with
 *   top-k selection instead of msgbrowse's full sort, and over vectors already in memory — msgbrowse also re-reads
 *   every blob from SQLite per query, which costs more than the scoring);
 * - numpy (`mat @ q` + argpartition on pre-normalised float32 rows) when python3 with numpy is installed;
 * - recall@20 of our results against the exact answers (ids; scores must agree within 1e-6).
 * Prints a markdown table.
 *
 * Last full run (`npx tsx bench/vector-bench.ts`, 2026-11-30 00:09 UTC, 2 cores shared with other jobs, load average
 * 7.4 → 5.1 during the run, node v20.20.2, numpy 2.4.6 with 2 BLAS threads; times in ms, median / p95 (min)):
 *
 * | vectors | ours: top-20 | ours: 10% date filter | numpy `mat @ q` + argpartition | ours ÷ numpy | JS exact cosine (msgbrowse) | ours ÷ JS | recall@20 (max score err) | rows rescored | index memory (÷ float32) | build + cache (longest event-loop stall) | load from cache | longest stall while searching |
 * |---|---|---|---|---|---|---|---|---|---|---|---|---|
 * | 100k×768 | 10.3 / 16.3 (5.2) | 7.6 / 19.5 | 51.8 / 163.9 (24.9) | 0.20× | 235 / 244 | 0.044× | 1.000 (0.0e+0); vs numpy 1.000 | 96 | 77 MB (26.3%) | 1.4 s (67 ms) | 0.06 s | 14 ms |
 * | 1M×384 | 45.6 / 71.3 (28.8) | 11.4 / 11.8 | 231.5 / 352.0 (189.1) | 0.20× | 1112 / 1275 | 0.041× | 1.000 (0.0e+0); vs numpy 1.000 | 96 | 404 MB (27.6%) | 8.5 s (64 ms) | 0.38 s | 36 ms |
 * | 1M×768 | 71.9 / 86.8 (50.1) | 13.8 / 19.0 | 428.9 / 563.8 (373.0) | 0.17× | 2945 / 3060 | 0.024× | 1.000 (0.0e+0); vs numpy 1.000 | 147 | 771 MB (26.3%) | 19.2 s (153 ms) | 0.55 s | 12 ms |
 *
 * Caveats: the load hurts numpy's two BLAS threads more than our single thread, so the numpy ratio is flattering;
 * on an idle machine engine-study.md §7 measured numpy at 12.8 / 75.8 / 123 ms for the same sizes, against our
 * minimums here of 5.2 / 28.8 / 50.1 ms. The JS baseline scores vectors already in memory (msgbrowse also reads
 * every blob from SQLite per query). "Build + cache" excludes reading the archive (records come from memory).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EmbeddingRecord } from '../src/archive/types';
import type { VectorHit } from '../src/search/types';
import { kernelModule } from '../src/search/kernel/kernel';
import { KeyedRows, loadOrBuildVectorIndex } from '../src/search/vector';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const quick = flag('--quick');
const configs = opt('--configs', quick ? '100000x768' : '100000x768,1000000x384,1000000x768')
  .split(',')
  .map((c) => {
    const [n, d] = c.toLowerCase().split('x').map(Number);
    if (!(n > 0 && d > 0)) throw new Error(`bad config ${c}: expected NxD, e.g. 100000x768`);
    return { n, dim: d };
  });
const Q = Number(opt('--queries', '20'));
const QB = Number(opt('--baseline-queries', quick ? '5' : '3'));
const K = 20;
const BLOCK = 65536;
const useNumpy = !flag('--no-numpy') && hasNumpy();

function hasNumpy(): boolean {
  try {
    execFileSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gauss(r: () => number): number {
  return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
}

interface Data {
  n: number;
  dim: number;
  blocks: Float32Array[];
  conv: Int32Array;
  ts: Float64Array;
}

function generate(n: number, dim: number, seed: number): Data {
  const r = rng(seed);
  const mean = Float32Array.from({ length: dim }, () => gauss(r) * 0.8);
  const centers = Array.from({ length: 256 }, () => Float32Array.from({ length: dim }, () => gauss(r)));
  const noise = 2 * Math.sqrt(3) * 0.9; // uniform noise with σ ≈ 0.9
  const blocks: Float32Array[] = [];
  const conv = new Int32Array(n);
  const ts = new Float64Array(n);
  for (let start = 0; start < n; start += BLOCK) {
    const rows = Math.min(BLOCK, n - start);
    const b = new Float32Array(rows * dim);
    for (let i = 0; i < rows; i++) {
      const c = centers[Math.floor(r() * 256)];
      const o = i * dim;
      for (let j = 0; j < dim; j++) b[o + j] = mean[j] + c[j] + (r() - 0.5) * noise;
      conv[start + i] = Math.floor(r() * 1000);
      ts[start + i] = 1_500_000_000 + start + i; // chronological, one second apart
    }
    blocks.push(b);
  }
  return { n, dim, blocks, conv, ts };
}

function dataRow(d: Data, i: number): Float32Array {
  const b = d.blocks[Math.floor(i / BLOCK)];
  const o = (i % BLOCK) * d.dim;
  return b.subarray(o, o + d.dim);
}

function* records(d: Data): Generator<EmbeddingRecord> {
  for (let i = 0; i < d.n; i++) {
    yield {
      rowid: i + 1,
      messageId: i + 1,
      hash: '',
      conversationId: d.conv[i],
      tsUnix: d.ts[i],
      sender: 'Me',
      source: 'signal',
      vec: dataRow(d, i),
    };
  }
}

function makeQueries(d: Data, count: number, seed: number): Float32Array[] {
  const r = rng(seed);
  return Array.from({ length: count }, (_, qi) => {
    const q = new Float32Array(d.dim);
    const src = dataRow(d, Math.floor(r() * d.n));
    // Half are paraphrase-like (near a stored row), half fresh draws around a random stored row's cluster.
    const spread = qi % 2 === 0 ? 0.5 : 1.5;
    for (let j = 0; j < d.dim; j++) q[j] = src[j] + (r() - 0.5) * spread;
    return q;
  });
}

/** msgbrowse's scoring (float64 cosine with both norms per row), top-k by (score desc, id asc). */
function jsBaseline(d: Data, q: Float32Array, k: number): VectorHit[] {
  let qn = 0;
  for (let j = 0; j < d.dim; j++) qn += q[j] * q[j];
  qn = Math.sqrt(qn);
  const top: VectorHit[] = [];
  let worst = -Infinity;
  for (let bi = 0; bi < d.blocks.length; bi++) {
    const b = d.blocks[bi];
    const rows = b.length / d.dim;
    for (let i = 0; i < rows; i++) {
      const o = i * d.dim;
      let dot = 0;
      let n2 = 0;
      for (let j = 0; j < d.dim; j++) {
        const x = b[o + j];
        dot += q[j] * x;
        n2 += x * x;
      }
      const s = n2 === 0 ? 0 : dot / (qn * Math.sqrt(n2));
      if (top.length === k && s < worst) continue;
      top.push({ messageId: bi * BLOCK + i + 1, score: s });
      top.sort((a, c) => c.score - a.score || a.messageId - c.messageId);
      if (top.length > k) top.pop();
      worst = top.length === k ? top[k - 1].score : -Infinity;
    }
  }
  return top;
}

function stats(ms: number[]): { median: number; p95: number; min: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  return { median: at(0.5), p95: at(0.95), min: s[0] };
}

function writeNpy(file: string, shape: [number, number], chunks: Iterable<Float32Array>): void {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape[0]}, ${shape[1]}), }`;
  const total = 10 + header.length + 1;
  header += `${' '.repeat((64 - (total % 64)) % 64)}\n`;
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, pre);
    fs.writeSync(fd, header, null, 'latin1');
    for (const c of chunks) fs.writeSync(fd, new Uint8Array(c.buffer, c.byteOffset, c.byteLength));
  } finally {
    fs.closeSync(fd);
  }
}

const NUMPY_SCRIPT = `
import json, sys, time
import numpy as np
mat = np.load(sys.argv[1])
qs = np.load(sys.argv[2])
k = int(sys.argv[3])
norms = np.linalg.norm(mat, axis=1)
norms[norms == 0] = 1
mat /= norms[:, None]
times, ids = [], []
for q in qs:
    t = time.perf_counter()
    qn = q / np.linalg.norm(q)
    s = mat @ qn
    idx = np.argpartition(-s, k)[:k]
    idx = idx[np.argsort(-s[idx], kind='stable')]
    times.append((time.perf_counter() - t) * 1000)
    ids.append([int(i) + 1 for i in idx])
print(json.dumps({"times": times, "ids": ids, "threads": __import__('os').cpu_count()}))
`;

interface Row {
  config: string;
  buildS: number;
  loadS: number;
  indexMB: number;
  float32MB: number;
  ours: { median: number; p95: number; min: number };
  oursFiltered: { median: number; p95: number; min: number };
  rescoredAvg: number;
  js: { median: number; p95: number; min: number };
  numpy?: { median: number; p95: number; min: number };
  recall: number;
  scoreErr: number;
  numpyRecall?: number;
  /** Longest event-loop stall (ms) while building / while searching. */
  buildStallMs: number;
  searchStallMs: number;
}

/** Measures the longest gap between event-loop turns (what a host would feel as unresponsiveness). */
function watchEventLoop(): { stop(): number } {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(worst, performance.now() - last);
    },
  };
}

async function runConfig(n: number, dim: number): Promise<Row> {
  const config = `${n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`}×${dim}`;
  const log = (m: string) => console.error(`[${config}] ${m}`);
  let t = performance.now();
  const data = generate(n, dim, n + dim);
  log(`generated in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vector-bench-'));
  try {
    const queries = makeQueries(data, Q, 99);
    const cacheOpts = {
      records: () => records(data),
      model: 'bench-model',
      cacheDir: tmp,
      key: `${n}x${dim}`,
      total: n,
      // Rowid i + 1 is row i of the generated data.
      rows: (p: { rowids: Float64Array }) =>
        new KeyedRows(p.rowids, dim, (keys, out) => {
          for (let i = 0; i < keys.length; i++) out.set(dataRow(data, keys[i] - 1), i * dim);
          return keys.length;
        }),
    };
    t = performance.now();
    const stall = watchEventLoop();
    const built = await loadOrBuildVectorIndex(cacheOpts);
    const buildS = (performance.now() - t) / 1000;
    const buildStallMs = stall.stop();
    log(`built + cached in ${buildS.toFixed(1)} s`);
    built.dispose();
    t = performance.now();
    const index = await loadOrBuildVectorIndex(cacheOpts);
    const loadS = (performance.now() - t) / 1000;
    if (index.stats.origin !== 'cache') throw new Error('expected a cache hit');
    log(`loaded from cache in ${loadS.toFixed(2)} s`);

    for (const q of queries.slice(0, 3)) await index.search(q, K); // warm-up
    const ours: VectorHit[][] = [];
    const oursMs: number[] = [];
    let rescored = 0;
    for (const q of queries) {
      const s = performance.now();
      ours.push(await index.search(q, K));
      oursMs.push(performance.now() - s);
      rescored += index.lastTrace.rescored;
    }
    const filter = { startUnix: 1_500_000_000 + Math.floor(n * 0.45), endUnix: 1_500_000_000 + Math.floor(n * 0.55) };
    const searchStall = watchEventLoop();
    for (const q of queries.slice(0, 5)) await index.search(q, K);
    const searchStallMs = searchStall.stop();
    const filteredMs: number[] = [];
    for (const q of queries) {
      const s = performance.now();
      await index.search(q, K, filter);
      filteredMs.push(performance.now() - s);
    }
    log(`ours median ${stats(oursMs).median.toFixed(1)} ms`);

    const jsMs: number[] = [];
    let hit = 0;
    let scoreErr = 0;
    for (let i = 0; i < QB; i++) {
      const s = performance.now();
      const exact = jsBaseline(data, queries[i], K);
      jsMs.push(performance.now() - s);
      const got = new Set(ours[i].map((h) => h.messageId));
      hit += exact.filter((h) => got.has(h.messageId)).length;
      for (const [r, h] of exact.entries()) scoreErr = Math.max(scoreErr, Math.abs(h.score - ours[i][r].score));
    }
    log(`JS baseline median ${stats(jsMs).median.toFixed(0)} ms`);
    const res = index.stats;
    const row: Row = {
      config,
      buildS,
      loadS,
      indexMB: res.residentBytes / 2 ** 20,
      float32MB: res.float32Bytes / 2 ** 20,
      ours: stats(oursMs),
      oursFiltered: stats(filteredMs),
      rescoredAvg: rescored / queries.length,
      js: stats(jsMs),
      recall: hit / (QB * K),
      scoreErr,
      buildStallMs,
      searchStallMs,
    };
    index.dispose();

    if (useNumpy) {
      const matFile = path.join(tmp, 'mat.npy');
      const qFile = path.join(tmp, 'q.npy');
      writeNpy(matFile, [n, dim], data.blocks);
      writeNpy(qFile, [queries.length, dim], queries);
      data.blocks.length = 0; // let the JS copy go before numpy loads its own
      const out = JSON.parse(
        execFileSync('python3', ['-c', NUMPY_SCRIPT, matFile, qFile, String(K)], {
          encoding: 'utf8',
          maxBuffer: 64 << 20,
        }),
      ) as { times: number[]; ids: number[][] };
      row.numpy = stats(out.times.slice(3));
      let agree = 0;
      out.ids.forEach((ids, i) => {
        const got = new Set(ours[i].map((h) => h.messageId));
        agree += ids.filter((id) => got.has(id)).length;
      });
      row.numpyRecall = agree / (out.ids.length * K);
      log(`numpy median ${row.numpy.median.toFixed(1)} ms`);
    }
    return row;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg()[0].toFixed(1);
  await kernelModule(); // from src/ the WAT is assembled on first use (shipped builds load the prebuilt .wasm)
  const rows: Row[] = [];
  for (const c of configs) rows.push(await runConfig(c.n, c.dim));
  const f = (x: number, d = 1) => x.toFixed(d);
  console.log(
    `\nVector search, top-${K}, ${Q} queries: median / p95 (min) ms; JS baseline over ${QB} queries; ` +
      `${os.cpus().length} cores, node ${process.version}, load average before/after ${loadBefore} / ${os.loadavg()[0].toFixed(1)}\n`,
  );
  console.log(
    '| vectors | ours: top-20 | ours: 10% date filter | numpy `mat @ q` + argpartition | ours ÷ numpy | JS exact cosine (msgbrowse) | ours ÷ JS | recall@20 (max score err) | rows rescored | index memory (÷ float32) | build + cache (longest event-loop stall) | load from cache | longest stall while searching |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const np = r.numpy ? `${f(r.ours.median / r.numpy.median, 2)}×` : 'n/a';
    console.log(
      `| ${r.config} | ${f(r.ours.median)} / ${f(r.ours.p95)} (${f(r.ours.min)}) | ${f(r.oursFiltered.median)} / ${f(r.oursFiltered.p95)} | ` +
        `${r.numpy ? `${f(r.numpy.median)} / ${f(r.numpy.p95)} (${f(r.numpy.min)})` : 'numpy not installed'} | ${np} | ` +
        `${f(r.js.median, 0)} / ${f(r.js.p95, 0)} | ${f(r.ours.median / r.js.median, 3)}× | ` +
        `${f(r.recall, 3)} (${r.scoreErr.toExponential(1)})${r.numpyRecall !== undefined ? `; vs numpy ${f(r.numpyRecall, 3)}` : ''} | ` +
        `${f(r.rescoredAvg, 0)} | ${f(r.indexMB, 0)} MB (${f((100 * r.indexMB) / r.float32MB, 1)}%) | ${f(r.buildS)} s (${f(r.buildStallMs, 0)} ms) | ${f(r.loadS, 2)} s | ${f(r.searchStallMs, 0)} ms |`,
    );
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
