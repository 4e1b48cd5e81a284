/**
 * Our vector index in a fresh process (run by sections/vector.ts):
 *   tsx bench/lib/vector-child.ts <db> <model> <cacheDir> <queries.npy> <baselineQueries>
 * 1. builds the index from the archive with an empty cache dir (SQLite scan through a read-ahead connection, as the
 *    build thread's, + quantise + cache file write), timed;
 * 2. loads it again from the cache (plain file reads), timed, with resident memory;
 * 3. semantic top-20 for every query (after 3 warm-up queries): time, ids, exact scores, rows rescored;
 * 4. the msgbrowse-style baseline for the first <baselineQueries> queries: per query, read every embedding row with
 *    its message from SQLite (native better-sqlite3, msgbrowse's join), decode, float64 cosine, stable sort, top 20.
 * Prints JSON.
 */
import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import { openArchive } from '../../src/archive/index';
import { archiveRows, loadOrBuildVectorIndex } from '../../src/search/vector/index';
import { npyRows, readNpy } from './npy';

const K = 20;

function rssMB(): number {
  return process.memoryUsage().rss;
}

function blobScan(db: Database.Database, model: string, q: Float32Array): { id: number; score: number }[] {
  let qn = 0;
  for (let j = 0; j < q.length; j++) qn += q[j] * q[j];
  qn = Math.sqrt(qn);
  const stmt = db.prepare(
    `SELECT m.id, m.conversation_id, c.name, m.source, m.sender, m.ts, m.body, e.vec
     FROM embeddings e JOIN messages m ON m.hash = e.message_hash JOIN conversations c ON c.id = m.conversation_id
     WHERE e.model = ?`,
  );
  const all: { id: number; score: number }[] = [];
  for (const r of stmt.iterate(model) as IterableIterator<{ id: number; vec: Buffer }>) {
    // decodeVec: a fresh []float32 per row, as msgbrowse's Go code allocates.
    const v = new Float32Array(r.vec.buffer.slice(r.vec.byteOffset, r.vec.byteOffset + r.vec.byteLength));
    if (v.length !== q.length) continue;
    let dot = 0;
    let n2 = 0;
    for (let j = 0; j < v.length; j++) {
      dot += q[j] * v[j];
      n2 += v[j] * v[j];
    }
    all.push({ id: r.id, score: n2 === 0 ? 0 : dot / (qn * Math.sqrt(n2)) });
  }
  all.sort((a, b) => b.score - a.score); // stable
  return all.slice(0, K);
}

async function main(): Promise<void> {
  const [file, model, cacheDir, queriesFile, baselineArg] = process.argv.slice(2);
  const queries = npyRows(readNpy(queriesFile));
  const rss0 = rssMB();
  const archive = await openArchive(file);
  // As the product builds: the records come from a connection of their own that reads ahead (the build thread's);
  // exact rescoring reads through the query connection.
  const scanner = await openArchive(file, { readAhead: true });
  const info = archive.embeddingModels().find((m) => m.model === model);
  if (!info) throw new Error(`no embeddings of ${model} in ${file}`);
  fs.rmSync(cacheDir, { recursive: true, force: true });
  fs.mkdirSync(cacheDir, { recursive: true });
  const opts = {
    records: () => scanner.embeddings(model, { shareVectors: true }),
    model,
    cacheDir,
    key: `${file}|${model}|${info.count}`,
    name: file,
    dim: info.dim,
    total: info.count,
    rows: archiveRows(archive, model),
  };
  const rssOpen = rssMB();
  let t = performance.now();
  const built = await loadOrBuildVectorIndex(opts);
  const buildMs = performance.now() - t;
  const buildOrigin = built.stats.origin;
  const maxRssBuild = process.resourceUsage().maxRSS * 1024;
  built.dispose();
  (globalThis as { gc?: () => void }).gc?.();
  const rssBeforeLoad = rssMB();
  t = performance.now();
  const index = await loadOrBuildVectorIndex(opts);
  const loadMs = performance.now() - t;
  const rssAfterLoad = rssMB();
  const st = index.stats;
  if (st.origin !== 'cache') throw new Error(`expected a cache hit, got ${st.origin}`);
  for (const q of queries.slice(0, 3)) await index.search(q, K);
  const times: number[] = [];
  const ids: number[][] = [];
  const scores: number[][] = [];
  const rescored: number[] = [];
  for (const q of queries) {
    const s = performance.now();
    const hits = await index.search(q, K);
    times.push(performance.now() - s);
    ids.push(hits.map((h) => h.messageId));
    scores.push(hits.map((h) => h.score));
    rescored.push(index.lastTrace.rescored);
  }
  const rssAfterSearch = rssMB();
  index.dispose();
  archive.close();
  scanner.close();

  const nb = Number(baselineArg ?? 0);
  const baseTimes: number[] = [];
  const baseIds: number[][] = [];
  if (nb > 0) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    // The page cache already holds the file (the index build just read it), as for a recently used archive.
    for (const q of queries.slice(0, nb)) {
      const s = performance.now();
      const hits = blobScan(db, model, q);
      baseTimes.push(performance.now() - s);
      baseIds.push(hits.map((h) => h.id));
    }
    db.close();
  }
  process.stdout.write(
    JSON.stringify({
      n: st.indexed,
      dim: st.dim,
      buildMs,
      buildOrigin,
      loadMs,
      residentBytes: st.residentBytes,
      float32Bytes: st.float32Bytes,
      cacheFileBytes: st.cacheFile ? fs.statSync(st.cacheFile).size : 0,
      rss0,
      rssOpen,
      maxRssBuild,
      rssBeforeLoad,
      rssAfterLoad,
      rssAfterSearch,
      maxRss: process.resourceUsage().maxRSS * 1024,
      times,
      ids,
      scores,
      rescored,
      baseTimes,
      baseIds,
    }),
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`vector-child: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
