'use strict';
/**
 * Native SQLite reference for the archive benchmark (plain CommonJS so any Node binary runs it):
 *   node sqlite-native.cjs node:sqlite|better-sqlite3 <db> <cases.json> '<plan json>' [better-sqlite3 module path]
 * Opens <db> read-only, replays each case's statements (prepared once; every row stepped), prints JSON to stdout.
 * Run it on benchmark files only: a native read-only open of a WAL database creates -shm/-wal beside it.
 */
const fs = require('node:fs');
const [engine, file, casesFile, planJson, betterPath] = process.argv.slice(2);
const plan = JSON.parse(planJson);
const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8'));

const rss0 = process.memoryUsage().rss;
const t0 = performance.now();
let db;
let prepare;
let all;
let version;
if (engine === 'node:sqlite') {
  const { DatabaseSync } = require('node:sqlite');
  db = new DatabaseSync(file, { readOnly: true });
  prepare = (sql) => db.prepare(sql);
  all = (st, params) => st.all(...params);
  version = db.prepare('SELECT sqlite_version() AS v').get().v;
} else if (engine === 'better-sqlite3') {
  const Database = require(betterPath || 'better-sqlite3');
  db = new Database(file, { readonly: true, fileMustExist: true });
  prepare = (sql) => db.prepare(sql);
  all = (st, params) => st.all(...params);
  version = db.prepare('SELECT sqlite_version() AS v').get().v;
} else {
  throw new Error(`unknown engine ${engine}`);
}
prepare('SELECT count(*) FROM sqlite_master').all();
const openMs = performance.now() - t0;
const rssOpen = process.memoryUsage().rss;

function timeSync(fn) {
  const w0 = performance.now();
  for (let i = 0; i < plan.warmMin || performance.now() - w0 < plan.warmMs; i++) fn();
  const out = [];
  const s0 = performance.now();
  while (out.length < plan.max && (out.length < plan.min || performance.now() - s0 < plan.budgetMs)) {
    const s = performance.now();
    fn();
    out.push(performance.now() - s);
  }
  return out;
}

const results = {};
for (const c of cases) {
  const stmts = c.statements.map((s) => ({ st: prepare(s.sql), params: s.params }));
  let rows = 0;
  const run = () => {
    rows = 0;
    for (const s of stmts) rows += all(s.st, s.params).length;
  };
  const samples = timeSync(run);
  results[c.key] = { samples, rows };
}
process.stdout.write(
  JSON.stringify({ engine, version, node: process.version, openMs, rssOpen, rss0, rssEnd: process.memoryUsage().rss, results }),
);
