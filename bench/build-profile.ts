/**
 * Where the time of a vector index build goes (issue 15, item 2):
 *   npx tsx bench/build-profile.ts [archive name, default m100k_e768]
 * Each row adds one stage to the one above, so the differences are the stages' costs: the file read alone, the
 * SQLite scan of the embedding SQL (rows stepped, nothing read; one read call per page, then with the build's read-ahead), reading the columns into records, quantising into
 * the int8 matrix (with the kernel's quantiser builds use; the row after it uses the JS reference quantiser, for
 * comparison), and the whole build (cache file written and synced). Better-sqlite3 steps the same SQL natively for
 * reference.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ArchiveConnection } from '../src/archive/connection';
import { openArchive } from '../src/archive/index';
import { embeddingBatchSql, MessageMeta } from '../src/archive/queries/embeddings';
import { detectSchema } from '../src/archive/schema';
import { loadEngine } from '../src/archive/wasm-engine';
import { IndexBuilder } from '../src/search/vector/accumulator';
import { loadOrBuildVectorIndex } from '../src/search/vector/cache';
import { quantiseRow } from '../src/search/vector/quantize';
import { KernelRowQuantiser, type RowQuantiser } from '../src/search/vector/row-quantiser';

/** The JS reference quantiser, to compare the kernel's with. */
class JsRowQuantiser implements RowQuantiser {
  scale = 0;
  err = 0;
  qnorm = 0;

  quantise(vec: Float32Array, dim: number, codes: Int8Array, at: number): boolean {
    const q = quantiseRow(vec, dim, codes, at);
    if (q) Object.assign(this, q);
    return q !== undefined;
  }
}
import { archiveRows } from '../src/search/vector/row-store';
import { ensureArchive } from './lib/data';
import { ms, table } from './lib/stats';

function time<T>(fn: () => T): [number, T] {
  const t = performance.now();
  const v = fn();
  return [performance.now() - t, v];
}

async function main(): Promise<void> {
  const a = ensureArchive(process.argv[2] ?? 'm100k_e768');
  const model = a.spec.model;
  const engine = await loadEngine();
  // As the build thread opens it: a scanning connection reads its main database ahead (readonly-vfs.ts).
  const archive = await openArchive(a.file, { readAhead: true });
  const info = archive.embeddingModels().find((m) => m.model === model)!;
  const n = info.count;
  const rows: [string, number][] = [];

  // The file itself, through the page cache (what "disk speed" means on a warm machine).
  const [readMs] = time(() => {
    const fd = fs.openSync(a.file, 'r');
    const buf = Buffer.allocUnsafe(16 << 20);
    let pos = 0;
    for (let got: number; (got = fs.readSync(fd, buf, 0, buf.length, pos)) > 0; ) pos += got;
    fs.closeSync(fd);
  });
  rows.push([`read the whole archive file (${(a.bytes / 1e6).toFixed(0)} MB) with 16 MB reads`, readMs]);

  // SQLite: step every batch of a build's SQL, reading only the rowid cursor. The join is what builds ran before
  // (two index lookups per row); the embeddings-only scan is what they run now (messages joined in JS).
  const conn = new ArchiveConnection(engine, a.file, { readAhead: true });
  const perPage = new ArchiveConnection(engine, a.file);
  const schema = conn.run((s) => detectSchema(s));
  const joinSql = `SELECT e.rowid AS rid, e.message_hash AS hash, e.dim AS dim, e.vec AS vec, m.id, m.conversation_id, m.ts_unix, m.sender
    FROM embeddings e CROSS JOIN messages m ON m.hash = e.message_hash WHERE e.rowid > ? AND e.model = ? ORDER BY e.rowid LIMIT 2048`;
  const scanSql = embeddingBatchSql();
  const scan = (sqlText: string, on = conn) =>
    time(() => {
      let after = -1;
      for (;;) {
        let got = 0;
        on.run((s) =>
          s.scan(sqlText, [after, model], (c) => {
            after = c.num(0);
            got++;
          }),
        );
        if (got < 2048) break;
      }
    })[0];
  rows.push([
    'SQLite WASM: step the join SQL of earlier builds (embeddings ⋈ messages), read nothing',
    scan(joinSql, perPage),
  ]);
  rows.push([
    'SQLite WASM: step the embeddings-only SQL builds use now, read nothing, one read call per page',
    scan(scanSql, perPage),
  ]);
  rows.push(['… the same with the read-ahead builds use (64 KiB per read call)', scan(scanSql)]);
  rows.push([
    'SQLite WASM: one scan of messages into the hash → message map',
    time(() => conn.run((s) => new MessageMeta(s, schema)))[0],
  ]);

  // The archive's iterator (what the build consumes) and the quantiser on top of it.
  const [iterMs] = time(() => {
    let k = 0;
    for (const r of archive.embeddings(model, { shareVectors: true })) k += r.vec.length;
    return k;
  });
  rows.push(['archive.embeddings() iterator (records built)', iterMs]);
  // The kernel quantiser builds use, then the JS reference quantiser (what builds used before) for comparison.
  const quantise = (quantiser: RowQuantiser) =>
    time(() => {
      const b = new IndexBuilder({ model, dim: info.dim, expected: n, quantiser });
      for (const r of archive.embeddings(model, { shareVectors: true })) b.add(r);
      return b.finish();
    })[0];
  rows.push(['… + quantise into the int8 matrix (no float rows kept)', quantise(await KernelRowQuantiser.create())]);
  rows.push(['… + quantise, with the JS reference quantiser instead of the kernel', quantise(new JsRowQuantiser())]);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgb-build-'));
  const t = performance.now();
  const index = await loadOrBuildVectorIndex({
    records: () => archive.embeddings(model, { shareVectors: true }),
    model,
    dim: info.dim,
    total: n,
    cacheDir: dir,
    key: 'profile',
    rows: archiveRows(archive, model),
  });
  const fullMs = performance.now() - t;
  const cacheBytes = fs.readdirSync(dir).reduce((s, f) => s + fs.statSync(path.join(dir, f)).size, 0);
  rows.push([`whole build (cache file ${(cacheBytes / 1e6).toFixed(0)} MB written + fsync)`, fullMs]);
  index.dispose();
  fs.rmSync(dir, { recursive: true, force: true });

  // Native reference: better-sqlite3 steps the same SQL (all columns read).
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Database = require('better-sqlite3') as typeof import('better-sqlite3');
    const db = new Database(a.file, { readonly: true, fileMustExist: true });
    for (const [label, sqlText] of [
      ['native better-sqlite3: the join SQL, every column read', joinSql],
      ['native better-sqlite3: the embeddings-only SQL, every column read', scanSql],
    ] as const) {
      const st = db.prepare(sqlText);
      const nativeMs = time(() => {
        let after = -1;
        for (;;) {
          const batch = st.all(after, model) as { rid: number }[];
          if (batch.length) after = batch[batch.length - 1].rid;
          if (batch.length < 2048) break;
        }
      })[0];
      rows.push([label, nativeMs]);
    }
    db.close();
  } catch (e) {
    console.error(`better-sqlite3 reference skipped: ${(e as Error).message}`);
  }
  conn.close();
  perPage.close();
  archive.close();
  console.log(
    table(
      [`index build stages, ${a.spec.name} (${n.toLocaleString('en-US')} × ${info.dim})`, 'ms', 'µs per vector'],
      rows.map(([k, v]) => [k, ms(v), ((v * 1000) / n).toFixed(1)]),
    ),
  );
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
