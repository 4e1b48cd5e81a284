/**
 * openArchive: accepted inputs, every specific ArchiveError, and the read-only VFS's I/O path
 * (64-bit offsets beyond 4 GiB, short reads, nothing ever created next to the archive).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { ArchiveError, openArchive, type ArchiveErrorCode } from '../../src/archive';
import {
  buildCuratedArchive,
  buildLegacyArchive,
  makeFutureArchive,
  writeArchiveWithoutColumn,
  writeNonMsgbrowseSqlite,
  writeRandomBytesFile,
  writeTruncatedArchive,
} from '../fixtures';
import { connectionState } from './conn-probe';
import { openFdsUnder, vfsProbe } from './vfs-probe';

let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-open-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function rejectsWith(
  p: Promise<unknown>,
  code: ArchiveErrorCode,
  ...fragments: (string | RegExp)[]
): Promise<ArchiveError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ArchiveError, `expected ArchiveError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    for (const f of fragments) {
      if (typeof f === 'string') assert.ok(e.message.includes(f), `"${e.message}" should mention "${f}"`);
      else assert.match(e.message, f);
    }
    assert.ok(!/\n\s+at /.test(e.message), 'no stack trace in the message');
    return e;
  }
  assert.fail(`expected an ArchiveError ${code}`);
}

describe('openArchive inputs', () => {
  it('opens the data directory and the file itself, in WAL-read mode', async () => {
    const dir = path.join(tmp, 'ok');
    const desc = buildCuratedArchive(dir);
    for (const p of [dir, desc.path, path.relative(process.cwd(), dir)]) {
      const a = await openArchive(p);
      try {
        assert.equal(a.path, desc.path);
        assert.equal(a.schemaVersion, 20);
        assert.equal(connectionState(a).mode, 'wal');
        assert.equal(a.summary().messages, desc.messages.length);
      } finally {
        a.close();
      }
    }
    assert.deepEqual(fs.readdirSync(dir), ['msgbrowse.sqlite']);
  });

  it("keeps an 8 MB page cache to serve and 4 MB to scan, not the WASM build's 16 MB (pages stay resident)", async () => {
    for (const [options, kib] of [
      [{}, 8192],
      [{ readAhead: true }, 4096],
    ] as const) {
      const a = await openArchive(path.join(tmp, 'ok'), options);
      try {
        const raw = a as unknown as { query(run: (s: { sql: { value(q: string): unknown } }) => unknown): unknown };
        assert.equal(
          raw.query((s) => s.sql.value('PRAGMA cache_size')),
          -kib,
        );
      } finally {
        a.close();
      }
    }
  });

  it('a closed archive refuses queries with a clear error', async () => {
    const a = await openArchive(path.join(tmp, 'ok'));
    a.close();
    assert.throws(
      () => a.listConversations(),
      (e: unknown) => e instanceof ArchiveError && /closed/.test(e.message),
    );
  });
});

describe('openArchive errors', () => {
  it('missing path', async () => {
    const p = path.join(tmp, 'nope', 'msgbrowse.sqlite');
    const e = await rejectsWith(openArchive(p), 'missing_path', p, 'does not exist');
    assert.equal(e.path, p);
    await rejectsWith(openArchive(''), 'missing_path', 'No archive path');
    await rejectsWith(openArchive('   '), 'missing_path');
  });

  it('directory without msgbrowse.sqlite', async () => {
    const d = path.join(tmp, 'emptydir');
    fs.mkdirSync(d);
    fs.writeFileSync(path.join(d, 'other.sqlite'), '');
    await rejectsWith(openArchive(d), 'no_archive_in_directory', d, 'msgbrowse.sqlite', 'data directory');
  });

  it('not a SQLite file (random bytes, empty file, text, directory named like the archive)', async () => {
    const rnd = writeRandomBytesFile(path.join(tmp, 'rnd', 'msgbrowse.sqlite'));
    await rejectsWith(openArchive(rnd), 'not_sqlite', rnd, 'not a SQLite database');
    const empty = path.join(tmp, 'empty.sqlite');
    fs.writeFileSync(empty, '');
    await rejectsWith(openArchive(empty), 'not_sqlite', 'empty');
    const text = path.join(tmp, 'notes.txt');
    fs.writeFileSync(text, 'SQLite format 2 but not really, just some text that is long enough');
    await rejectsWith(openArchive(text), 'not_sqlite');
    const weird = path.join(tmp, 'weird');
    fs.mkdirSync(path.join(weird, 'msgbrowse.sqlite'), { recursive: true });
    await rejectsWith(openArchive(weird), 'not_sqlite', 'not a regular file');
  });

  it('SQLite file without msgbrowse tables', async () => {
    const f = writeNonMsgbrowseSqlite(path.join(tmp, 'notes', 'msgbrowse.sqlite'));
    await rejectsWith(openArchive(f), 'not_msgbrowse', f, 'not a msgbrowse archive', 'conversations');
  });

  it('a newer schema alone is no reason to refuse: a v23 archive opens and reads', async () => {
    const d = buildLegacyArchive(path.join(tmp, 'future'), 20);
    makeFutureArchive(d.path);
    const a = await openArchive(d.path);
    try {
      assert.equal(a.schemaVersion, 23);
      assert.equal(a.summary().messages, d.messages.length);
      assert.deepEqual(a.summary().parts, {
        people: true,
        facts: true,
        reactions: true,
        embeddings: true,
        digests: true,
      });
    } finally {
      a.close();
    }
  });

  it('an archive that lost a column every tool reads is refused, naming it and who writes it', async () => {
    const f = writeArchiveWithoutColumn(path.join(tmp, 'nosender', 'msgbrowse.sqlite'), 'messages', 'sender');
    const e = await rejectsWith(
      openArchive(f),
      'incompatible_schema',
      f,
      'messages.sender is missing (msgbrowse v1–v20 have it)',
    );
    assert.doesNotMatch(e.message, /newer|update the extension/i);
    const g = writeArchiveWithoutColumn(path.join(tmp, 'nourl', 'msgbrowse.sqlite'), 'links', 'url');
    await rejectsWith(openArchive(g), 'incompatible_schema', 'links.url is missing');
  });

  it('a required column of another type, or a full-text index that is not FTS5 over body, is refused by name', async () => {
    const make = (name: string, tsUnix: string, fts: string) => {
      const f = path.join(tmp, name, 'msgbrowse.sqlite');
      fs.mkdirSync(path.dirname(f), { recursive: true });
      const db = new Database(f);
      db.exec(`CREATE TABLE conversations (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE messages (id INTEGER PRIMARY KEY, hash TEXT, conversation_id INTEGER, ts TEXT, ts_unix ${tsUnix},
          sender TEXT, body TEXT, is_system INTEGER, seq INTEGER);
        CREATE TABLE attachments (id INTEGER PRIMARY KEY, message_id INTEGER, kind TEXT, rel_path TEXT, original_name TEXT);
        CREATE TABLE links (id INTEGER PRIMARY KEY, message_id INTEGER, url TEXT, domain TEXT);
        CREATE VIRTUAL TABLE messages_fts USING ${fts};
        INSERT INTO conversations VALUES (1, 'Harper');
        INSERT INTO messages VALUES (1, 'h1', 1, '2022-03-01 09:00:00', 1646125200, 'Harper', 'hello', 0, 0);`);
      db.close();
      return f;
    };
    await rejectsWith(
      openArchive(make('texttime', 'TEXT', "fts5(body, content='messages', content_rowid='id')")),
      'incompatible_schema',
      'messages.ts_unix is declared TEXT (msgbrowse v1–v20 declare it INTEGER)',
    );
    await rejectsWith(
      openArchive(make('otherfts', 'INTEGER', "fts5(text, content='')")),
      'incompatible_schema',
      'messages_fts is not an FTS5 index of body',
    );
    const ok = await openArchive(make('plain', 'INTEGER', "fts5(body, content='messages', content_rowid='id')"));
    ok.close();
  });

  it('truncated archive fails as corrupt (at open or on first query), never silently', async () => {
    const f = writeTruncatedArchive(path.join(tmp, 'trunc', 'msgbrowse.sqlite'));
    let err: unknown;
    try {
      const a = await openArchive(f);
      try {
        a.listConversations();
        a.searchKeyword({ query: 'the', limit: 50 });
        for (const c of a.listConversations()) a.transcript({ conversationId: c.id, limit: 500 });
      } finally {
        a.close();
      }
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof ArchiveError, `expected an ArchiveError, got ${String(err)}`);
    assert.equal(err.code, 'corrupt', err.message);
    assert.ok(err.message.includes(f));
  });

  it('unreadable file (EACCES)', { skip: process.getuid?.() === 0 ? 'root can read any file' : false }, async () => {
    const f = path.join(tmp, 'locked.sqlite');
    fs.copyFileSync(path.join(tmp, 'ok', 'msgbrowse.sqlite'), f);
    fs.chmodSync(f, 0o000);
    try {
      await rejectsWith(openArchive(f), 'unreadable', f, 'EACCES');
    } finally {
      fs.chmodSync(f, 0o600);
    }
  });

  it('archive deleted after open: queries say it is gone', async () => {
    const dir = path.join(tmp, 'gone');
    buildCuratedArchive(dir);
    const a = await openArchive(dir);
    try {
      assert.ok(a.listConversations().length > 0);
      fs.rmSync(dir, { recursive: true });
      assert.throws(
        () => a.listConversations(),
        (e: unknown) => e instanceof ArchiveError && e.code === 'missing_path' && /no longer exists/.test(e.message),
      );
    } finally {
      a.close();
    }
  });
});

describe('immutable fallback', () => {
  it('when the WAL-read open fails (unreadable -wal), falls back to immutable mode and still answers', async () => {
    const dir = path.join(tmp, 'badwal');
    const desc = buildCuratedArchive(dir);
    fs.mkdirSync(`${desc.path}-wal`); // opening works, reading fails (EISDIR)
    const a = await openArchive(dir);
    try {
      assert.equal(connectionState(a).mode, 'immutable');
      assert.equal(a.summary().messages, desc.messages.length);
      assert.ok(a.searchKeyword({ query: 'lease', limit: 5 }).length > 0);
    } finally {
      a.close();
    }
    fs.rmdirSync(`${desc.path}-wal`);
    const b = await openArchive(dir);
    try {
      assert.equal(connectionState(b).mode, 'wal');
    } finally {
      b.close();
    }
  });
});

describe('read-only VFS I/O path', () => {
  it('read-ahead (a scanning connection): the same bytes and codes; 64 KiB per read call only while reads follow each other', async () => {
    const vfs = await vfsProbe();
    const f = path.join(tmp, 'ahead.bin');
    const size = 300_000; // not a multiple of the page size: the last page is short
    const content = Buffer.alloc(size);
    for (let i = 0; i < size; i++) content[i] = (i * 2654435761) >>> 24;
    fs.writeFileSync(f, content);
    const direct = (reads: [number, number][]) => reads.map(([o, n]) => vfs.read(f, BigInt(o), n));
    const same = (reads: [number, number][]) => {
      const got = vfs.readAhead(f, reads);
      assert.deepEqual(got.results, direct(reads), JSON.stringify(reads));
      return got.fileReads;
    };
    // A sequential scan of 4 KiB pages through the end of the file: one read call per 64 KiB, the short last page
    // zero-filled with SQLITE_IOERR_SHORT_READ (522) as page by page.
    const scan: [number, number][] = Array.from({ length: Math.ceil(size / 4096) }, (_, i) => [i * 4096, 4096]);
    const scanReads = same(scan);
    assert.ok(
      scanReads * 6 < scan.length,
      `a scan of ${scan.length} pages reads 64 KiB at a time: ${scanReads} read calls`,
    );
    assert.equal(vfs.readAhead(f, scan).results.at(-1)!.rc, 522);
    // Scattered reads (pages of other tables between them): each reads only its own bytes, none fills the buffer.
    assert.equal(
      same([
        [0, 4096],
        [8192, 4096],
        [4096, 4096],
        [200_704, 4096],
        [102_400, 4096],
      ]),
      5,
    );
    // Inside what a scan's refill brought in: no read call (the first read of a file is never a continuation); a read
    // bigger than the buffer goes to the file.
    assert.equal(
      same([
        [0, 4096],
        [4096, 4096],
        [8192, 4096],
        [61_440, 4096],
      ]),
      2,
    );
    assert.equal(
      same([
        [0, 4096],
        [4096, 100_000],
      ]),
      2,
    );
    // A read past the end of the file, continuing a scan: zeros and 522, as on its own.
    same([
      [290_816, 4096],
      [294_912, 4096],
      [299_008, 4096],
    ]);
    // A file that cannot be read: SQLITE_IOERR_READ (266) for every read, the buffer's refill (a continuation) or
    // not; a directory, likewise.
    const failing: [number, number][] = [
      [0, 4096],
      [4096, 4096],
      [4096, 4096],
      [8192, 4096],
    ];
    const failed = vfs.readAhead(f, failing, 1);
    assert.deepEqual(
      failed.results.map((r) => r.rc),
      [0, 266, 266, 266],
    );
    assert.deepEqual(failed.results[0], direct([[0, 4096]])[0]);
    assert.equal(failed.fileReads, 4);
    assert.deepEqual(
      vfs.readAhead(f, failing, 0).results.map((r) => r.rc),
      [266, 266, 266, 266],
    );
    assert.equal(vfs.read(tmp, 0n, 4096).rc, 266);
    assert.deepEqual(openFdsUnder(tmp), [], 'probes closed their fds');
    fs.rmSync(f);
  });

  it('reads at 64-bit offsets beyond 4 GiB (sparse file) and zero-fills short reads', async () => {
    const vfs = await vfsProbe();
    const f = path.join(tmp, 'sparse.bin');
    const fd = fs.openSync(f, 'w');
    const high = 5n * 1024n ** 3n + 123n; // 5 GiB + 123
    const payload = Buffer.from('beyond-4GiB!');
    fs.writeSync(fd, payload, 0, payload.length, Number(high));
    fs.writeSync(fd, Buffer.from('low'), 0, 3, 2 ** 32 - 1); // straddles nothing, but sits at 4 GiB - 1
    fs.closeSync(fd);
    const r = vfs.read(f, high, payload.length);
    assert.equal(r.rc, 0);
    assert.equal(Buffer.from(r.bytes).toString(), 'beyond-4GiB!');
    const r2 = vfs.read(f, BigInt(2 ** 32 - 1), 3);
    assert.equal(Buffer.from(r2.bytes).toString(), 'low');
    // Short read at the end of the file: SQLITE_IOERR_SHORT_READ (522) and zeros.
    const r3 = vfs.read(f, high + BigInt(payload.length) - 4n, 10);
    assert.equal(r3.rc, 522);
    assert.deepEqual([...r3.bytes.subarray(0, 4)], [...Buffer.from('GiB!')]);
    assert.deepEqual([...r3.bytes.subarray(4)], [0, 0, 0, 0, 0, 0]);
    // A missing main file cannot be opened (SQLITE_CANTOPEN = 14); no file is created.
    const missing = path.join(tmp, 'missing.bin');
    assert.equal(vfs.read(missing, 0n, 4).rc, 14);
    assert.equal(fs.existsSync(missing), false);
    assert.deepEqual(openFdsUnder(tmp), [], 'probe closed its fd');
    fs.rmSync(f);
  });

  it('holds no file descriptors after close', async () => {
    const a = await openArchive(path.join(tmp, 'ok'));
    a.searchKeyword({ query: 'lease', limit: 5 });
    assert.ok(openFdsUnder(tmp).length >= 1);
    a.close();
    assert.deepEqual(openFdsUnder(tmp), [], 'still open');
  });
});
