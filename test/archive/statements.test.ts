/**
 * The raw C-API statement path (src/archive/statements.ts) and the cheap torn-read check: values and
 * bindings exactly as sqlite-wasm's oo1 API gives them, errors with their SQLite result code, typed
 * column access, heap growth, the positional SELECT lists, and mayBeTorn over the reader's fds.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { ArchiveError } from '../../src/archive';
import { ArchiveConnection, type Columns, type Param, type Row } from '../../src/archive/connection';
import { mayBeTorn, readIdentity } from '../../src/archive/file-identity';
import { messageColumns } from '../../src/archive/queries/rows';
import { keywordSearchSql } from '../../src/archive/queries/search';
import { detectSchema } from '../../src/archive/schema';
import { type Engine, loadEngine } from '../../src/archive/wasm-engine';
import { buildMsgbrowseMcpFixture } from '../fixtures';

let tmp: string;
let engine: Engine;
let file: string;

const VALUES_SQL = 'SELECT id, v FROM vals ORDER BY id';

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-stmts-'));
  engine = await loadEngine();
  file = path.join(tmp, 'vals.sqlite');
  const db = new Database(file);
  db.defaultSafeIntegers(true);
  db.exec('CREATE TABLE vals (id INTEGER PRIMARY KEY, v)');
  const ins = db.prepare('INSERT INTO vals (id, v) VALUES (?, ?)');
  const values: unknown[] = [
    7n,
    -(2n ** 31n),
    2n ** 40n,
    2n ** 53n - 1n,
    2n ** 53n + 1n,
    -(2n ** 63n),
    1.5,
    -0.25,
    'héllo 👍',
    '',
    Buffer.from([1, 2, 3, 0, 255]),
    Buffer.alloc(0),
    null,
  ];
  for (const [i, v] of values.entries()) ins.run(BigInt(i + 1), v);
  db.close();
});

after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function withConn<T>(fn: (c: ArchiveConnection) => T, f = file): T {
  const c = new ArchiveConnection(engine, f);
  try {
    return fn(c);
  } finally {
    c.close();
  }
}

describe('raw statement path', () => {
  it('all/get/value give exactly what oo1 get({}) gives (BigInt beyond 2^53, blob copies, NULL)', () => {
    const oo1 = new engine.sqlite3.oo1.DB({ filename: file, flags: 'r', vfs: engine.vfs.immutableName });
    let expected: Row[];
    try {
      expected = [];
      const st = oo1.prepare(VALUES_SQL);
      while (st.step()) expected.push(st.get({}) as Row);
      st.finalize();
    } finally {
      oo1.close();
    }
    withConn((c) => {
      const rows = c.run((sql) => sql.all(VALUES_SQL));
      assert.deepEqual(rows, expected);
      assert.equal(rows[4].v, 2n ** 53n + 1n);
      assert.equal(rows[5].v, -(2n ** 63n));
      assert.equal(rows[3].v, 2 ** 53 - 1);
      assert.deepEqual(rows[11].v, new Uint8Array(0));
      assert.equal(rows[12].v, null);
      // Blobs are copies: changing one does not change the next read.
      (rows[10].v as Uint8Array)[0] = 99;
      assert.deepEqual(
        c.run((sql) => sql.get('SELECT v FROM vals WHERE id = 11'))?.v,
        new Uint8Array([1, 2, 3, 0, 255]),
      );
      assert.equal(
        c.run((sql) => sql.value('SELECT v FROM vals WHERE id = ?', [9])),
        'héllo 👍',
      );
      assert.equal(
        c.run((sql) => sql.value('SELECT v FROM vals WHERE id = ?', [999])),
        undefined,
      );
    });
  });

  it('scan gives typed columns: num/text/blob, NULL as 0 / "" / null, an empty blob as empty', () => {
    withConn((c) => {
      const seen: [number, number, string, number | null][] = [];
      c.run((sql) =>
        sql.scan?.(VALUES_SQL, [], (col: Columns) => {
          const b = col.blob(1);
          seen.push([col.num(0), col.num(1), col.text(1), b ? b.byteLength : null]);
        }),
      );
      assert.deepEqual(seen[0], [1, 7, '7', 1]);
      assert.deepEqual(seen[6], [7, 1.5, '1.5', 3]);
      assert.deepEqual(seen[8], [9, 0, 'héllo 👍', 'héllo 👍'.length + 3]);
      assert.deepEqual(seen[10].slice(2), ['\x01\x02\x03\x00\ufffd', 5]);
      assert.deepEqual(seen[11], [12, 0, '', 0]);
      assert.deepEqual(seen[12], [13, 0, '', null]);
    });
  });

  it("scan's type/bytes are SQLite's own typeof() and bytes (hex of the value; numbers as rendered text), in the raw statement path", () => {
    withConn((c) => {
      const codes: Record<string, number> = { integer: 1, real: 2, text: 3, blob: 4, null: 5 };
      const expected = c.run((sql) => sql.all('SELECT id, typeof(v) AS t, hex(v) AS h FROM vals ORDER BY id'));
      assert.equal(expected.length, 13);
      const seen = c.run((sql) => {
        const out: Row[] = [];
        sql.scan(VALUES_SQL, [], (col) => {
          out.push({ id: col.num(0), t: col.type(1), h: Buffer.from(col.bytes(1)).toString('hex').toUpperCase() });
        });
        return out;
      });
      assert.deepEqual(
        seen,
        expected.map((r) => ({ id: r.id, t: codes[String(r.t)], h: r.h })),
      );
    });
  });

  it('binds numbers, bigints, null, strings and blobs with the types oo1 would use', () => {
    withConn((c) => {
      const typed = (v: Param) => c.run((sql) => sql.get('SELECT ?1 AS v, typeof(?1) AS t', [v]));
      assert.deepEqual(typed(7), { v: 7, t: 'integer' });
      assert.deepEqual(typed(-(2 ** 31)), { v: -(2 ** 31), t: 'integer' });
      assert.deepEqual(typed(2 ** 31), { v: 2 ** 31, t: 'integer' });
      assert.deepEqual(typed(Number.MAX_SAFE_INTEGER), { v: Number.MAX_SAFE_INTEGER, t: 'integer' });
      assert.deepEqual(typed(2 ** 62 * 4), { v: 2 ** 64, t: 'real' });
      assert.deepEqual(typed(1.5), { v: 1.5, t: 'real' });
      assert.deepEqual(typed(2n ** 62n), { v: 2n ** 62n, t: 'integer' });
      assert.deepEqual(typed(null), { v: null, t: 'null' });
      assert.deepEqual(typed('zoë'), { v: 'zoë', t: 'text' });
      assert.deepEqual(typed(new Uint8Array([5, 6])), { v: new Uint8Array([5, 6]), t: 'blob' });
      // A statement's bindings are cleared after each use.
      assert.deepEqual(
        c.run((sql) => sql.get('SELECT ?1 AS v', [null])),
        { v: null },
      );
    });
  });

  it('a wrong parameter count and SQL errors are clear ArchiveErrors; the connection stays usable', () => {
    withConn((c) => {
      assert.throws(
        () => c.run((sql) => sql.all('SELECT ? AS a, ? AS b', [1])),
        (e: unknown) => e instanceof ArchiveError && /takes 2 parameter\(s\), 1 given/.test(e.message),
      );
      assert.throws(
        () => c.run((sql) => sql.all('SELECT nope FROM vals')),
        (e: unknown) =>
          e instanceof ArchiveError && e.code === 'query_failed' && /no such column: nope/.test(e.message),
      );
      // A runtime error in sqlite3_step (not at prepare) carries its message too.
      assert.throws(
        () => c.run((sql) => sql.all("SELECT json('{bad') AS j")),
        (e: unknown) => e instanceof ArchiveError && /malformed JSON/.test(e.message),
      );
      assert.equal(
        c.run((sql) => sql.value('SELECT count(*) FROM vals')),
        13,
      );
    });
  });

  it('reads text correctly after the WASM heap has grown', () => {
    withConn((c) => {
      const n = 8 * 1024 * 1024;
      const [len, head] = c.run((sql) => {
        let out: [number, string] = [0, ''];
        sql.scan?.('SELECT hex(zeroblob(?)) AS big, ? AS tail', [n, 'après'], (col) => {
          out = [col.text(0).length, col.text(1)];
        });
        return out;
      });
      assert.deepEqual([len, head], [2 * n, 'après']);
      assert.equal(
        c.run((sql) => sql.value('SELECT v FROM vals WHERE id = 9')),
        'héllo 👍',
      );
    });
  });

  it('the message and keyword SELECT lists have the column order their readers assume', () => {
    const dir = path.join(tmp, 'mcp');
    const desc = buildMsgbrowseMcpFixture(dir);
    const db = new Database(desc.path, { readonly: true });
    try {
      const schema = withConn((c) => c.run((sql) => detectSchema(sql)), desc.path);
      const names = (sql: string) =>
        db
          .prepare(sql)
          .columns()
          .map((x) => x.name);
      const base = ['id', 'hash', 'conversation_id', 'conversation', 'source', 'sender', 'ts', 'ts_unix', 'is_system'];
      assert.deepEqual(
        names(`SELECT ${messageColumns(schema)} FROM messages m JOIN conversations c ON c.id = m.conversation_id`),
        [...base, 'body', 'seq'],
      );
      const kw = keywordSearchSql(schema, { query: 'x', limit: 1 });
      assert.ok(kw);
      assert.deepEqual(names(kw.sql), [...base, 'snippet', 'rank', 'body']);
    } finally {
      db.close();
    }
  });
});

describe('mayBeTorn over the reader fds', () => {
  it('sees rewrites of the file the reader holds, not a replacement at its path', () => {
    const dir = path.join(tmp, 'torn');
    fs.mkdirSync(dir);
    const db = path.join(dir, 'a.sqlite');
    const wal = `${db}-wal`;
    fs.writeFileSync(db, Buffer.alloc(8192, 1));
    fs.writeFileSync(wal, Buffer.concat([Buffer.alloc(32, 7), Buffer.alloc(100)]));
    const base = readIdentity(db);
    const fds = { db: fs.openSync(db, 'r'), wal: fs.openSync(wal, 'r') };
    try {
      assert.equal(mayBeTorn(base, db, fds), false);
      // Frames appended to -wal are invisible to the reader.
      fs.appendFileSync(wal, Buffer.alloc(64));
      assert.equal(mayBeTorn(base, db, fds), false);
      // A WAL restart (new header, same file) tears.
      const w = fs.openSync(wal, 'r+');
      fs.writeSync(w, Buffer.alloc(32, 8), 0, 32, 0);
      fs.closeSync(w);
      assert.equal(mayBeTorn(base, db, fds), true);
      // Back to the reader's header; then the db is replaced at its path: the file the reader holds is
      // unchanged (it read one consistent file), while the paths alone would say "torn".
      const w2 = fs.openSync(wal, 'r+');
      fs.writeSync(w2, Buffer.alloc(32, 7), 0, 32, 0);
      fs.closeSync(w2);
      assert.equal(mayBeTorn(base, db, fds), false);
      fs.writeFileSync(`${db}.new`, Buffer.alloc(8192, 2));
      fs.renameSync(`${db}.new`, db);
      assert.equal(mayBeTorn(base, db), true);
      assert.equal(mayBeTorn(base, db, fds), false);
    } finally {
      fs.closeSync(fds.db);
      fs.closeSync(fds.wal);
    }
  });

  it('a checkpoint writing into the held db file tears', () => {
    const dir = path.join(tmp, 'torn2');
    fs.mkdirSync(dir);
    const db = path.join(dir, 'a.sqlite');
    fs.writeFileSync(db, Buffer.alloc(8192, 1));
    const base = readIdentity(db);
    const fd = fs.openSync(db, 'r');
    try {
      assert.equal(mayBeTorn(base, db, { db: fd, wal: undefined }), false);
      fs.appendFileSync(db, Buffer.alloc(4096, 3));
      assert.equal(mayBeTorn(base, db, { db: fd, wal: undefined }), true);
    } finally {
      fs.closeSync(fd);
    }
  });
});
