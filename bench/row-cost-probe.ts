/**
 * Where the time of a small archive query goes (the "why" behind the transcript/context ratios in RESULTS.md):
 *   npx tsx bench/row-cost-probe.ts [archive name, default m100k_e768]
 * Times, for the transcript first page of the largest conversation (100 rows + 1, 11 columns): the public API call;
 * an empty read transaction of our connection (BEGIN/COMMIT + file-identity checks); and the same prepared statement
 * on a bare sqlite-wasm handle stepped only, read as row objects (`get({})`, what the connection does) and as arrays.
 */
import { ArchiveConnection } from '../src/archive/connection';
import { openArchive } from '../src/archive/index';
import { transcript } from '../src/archive/queries/transcript';
import { detectSchema } from '../src/archive/schema';
import { loadEngine } from '../src/archive/wasm-engine';
import { ensureArchive } from './lib/data';
import { dist, ms, table, timeSync } from './lib/stats';

async function main(): Promise<void> {
  const a = ensureArchive(process.argv[2] ?? 'm100k_e768');
  const engine = await loadEngine();
  const archive = await openArchive(a.file);
  const conv = a.desc.largestConversation.id;
  const plan = { warmMs: 2000, warmMin: 5, min: 50, max: 300, budgetMs: 2000 };
  const opts = { conversationId: conv, limit: 100 };
  const conn = new ArchiveConnection(engine, a.file);
  const schema = conn.run((s) => detectSchema(s));
  let captured = '';
  conn.run((s) =>
    transcript(
      { scan: (q, p, fn) => ((captured = q), s.scan(q, p, fn)), all: s.all, get: s.get, value: s.value },
      schema,
      opts,
    ),
  );
  const db = new engine.sqlite3.oo1.DB({ filename: a.file, flags: 'r', vfs: engine.vfs.walName });
  db.exec('PRAGMA locking_mode=EXCLUSIVE');
  const st = db.prepare(captured);
  const run = (read: () => unknown) => () => {
    st.bind([conv, 101]);
    const rows: unknown[] = [];
    while (st.step()) rows.push(read());
    st.reset(true);
    return rows;
  };
  const rows: [string, number][] = [
    ['archive.transcript() (public API)', dist(timeSync(() => archive.transcript(opts), plan)).median],
    [
      'connection: empty read transaction (BEGIN/COMMIT + identity checks)',
      dist(timeSync(() => conn.run(() => 1), plan)).median,
    ],
    [
      'bare sqlite-wasm: step 101 rows, read nothing',
      dist(
        timeSync(
          run(() => 0),
          plan,
        ),
      ).median,
    ],
    [
      'bare sqlite-wasm: step + row objects `get({})`',
      dist(
        timeSync(
          run(() => st.get({})),
          plan,
        ),
      ).median,
    ],
    [
      'bare sqlite-wasm: step + arrays `get([])`',
      dist(
        timeSync(
          run(() => st.get([])),
          plan,
        ),
      ).median,
    ],
  ];
  console.log(
    table(
      [`transcript first page, ${a.spec.name}`, 'median ms'],
      rows.map(([k, v]) => [k, ms(v)]),
    ),
  );
  st.finalize();
  db.close();
  conn.close();
  archive.close();
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
