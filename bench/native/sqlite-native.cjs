'use strict';
/**
 * Native SQLite reference for the archive benchmark (plain CommonJS so any Node binary runs it):
 *   node sqlite-native.cjs node:sqlite|better-sqlite3 <db> <cases.json> '<plan json>' [better-sqlite3 module path]
 * Opens <db> read-only, prepares each case's statements, prints a JSON "ready" line, then for every case key read
 * from stdin replays that case's statements (all rows stepped) by the timing plan and prints a JSON result line;
 * "quit" ends it. Run it on benchmark files only: a native read-only open of a WAL database creates -shm/-wal.
 */
const fs = require('node:fs');
const readline = require('node:readline');
const [engine, file, casesFile, planJson, betterPath] = process.argv.slice(2);
const plan = JSON.parse(planJson);
const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8'));

const rss0 = process.memoryUsage().rss;
const t0 = performance.now();
let db;
if (engine === 'node:sqlite') {
  const { DatabaseSync } = require('node:sqlite');
  db = new DatabaseSync(file, { readOnly: true });
} else if (engine === 'better-sqlite3') {
  const Database = require(betterPath || 'better-sqlite3');
  db = new Database(file, { readonly: true, fileMustExist: true });
} else {
  throw new Error(`unknown engine ${engine}`);
}
db.prepare('SELECT count(*) FROM sqlite_master').all();
const openMs = performance.now() - t0;
const version = db.prepare('SELECT sqlite_version() AS v').get().v;
const rssOpen = process.memoryUsage().rss;

/** A case whose first run takes longer than SLOW_MS (a pathological plan) is timed once, without more warm-up. */
const SLOW_MS = 2000;
function timeSync(fn) {
  const w0 = performance.now();
  fn();
  if (performance.now() - w0 > SLOW_MS) {
    const s = performance.now();
    fn();
    return [performance.now() - s];
  }
  for (let i = 1; i < plan.warmMin || performance.now() - w0 < plan.warmMs; i++) fn();
  const out = [];
  const s0 = performance.now();
  while (out.length < plan.max && (out.length < plan.min || performance.now() - s0 < plan.budgetMs)) {
    const s = performance.now();
    fn();
    out.push(performance.now() - s);
  }
  return out;
}

const prepared = new Map(
  cases.map((c) => [c.key, c.statements.map((s) => ({ st: db.prepare(s.sql), params: s.params }))]),
);
/** Same rule as bench/lib/trace.ts rowKey. */
function rowKey(r) {
  if (r.id !== undefined) return String(r.id);
  if (r.url !== undefined) return `${String(r.url)}#${String(r.cnt)}`;
  if (r.conversation_id !== undefined) return `c${String(r.conversation_id)}`;
  return JSON.stringify(Object.values(r));
}
const send = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
send({ type: 'ready', engine, version, node: process.version, openMs, rss0, rssOpen });
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const key = line.trim();
  if (key === 'quit') {
    send({ type: 'end', rssEnd: process.memoryUsage().rss });
    process.exit(0);
  }
  const stmts = prepared.get(key);
  if (!stmts) {
    send({ type: 'result', key, samples: [], rows: -1 });
    return;
  }
  let rows = 0;
  let keys = [];
  const samples = timeSync(() => {
    rows = 0;
    keys = [];
    for (const s of stmts) {
      const r = s.st.all(...s.params);
      rows += r.length;
      keys.push(r);
    }
  });
  send({ type: 'result', key, samples, rows, keys: keys.map((r) => r.map(rowKey)) });
});
