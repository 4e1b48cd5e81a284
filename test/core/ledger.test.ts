/**
 * The disclosure ledger's file (src/core/ledger.ts): append-only JSON Lines, newest first when read, a size cap
 * with one rotated file, corrupt and torn lines skipped (and a torn tail never swallows the next entry), concurrent
 * appends from several processes never interleave within a line, and never a file beside the archive.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import {
  collectDisclosedMessages,
  ledgerBesideArchive,
  LedgerWriter,
  parseLedgerLine,
  readLedger,
  rotatedLedgerFile,
  type Disclosure,
} from '../../src/core/ledger';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-ledger-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => path.join(root, `case-${++n}`, 'ledger', 'disclosures.jsonl');

const entry = (name: string, hashes: string[] = []): Disclosure => ({
  time: new Date().toISOString(),
  client: { name: 'test', version: '1' },
  kind: 'tool',
  name,
  arguments: { query: name },
  ok: true,
  messages: hashes.map((hash, i) => ({ hash, message_id: i + 1, conversation_id: 7 })),
});

describe('ledger: writing and reading', () => {
  it('appends one JSON line per entry (v1), creates the directory, reads newest first', () => {
    const file = fresh();
    const appended: string[] = [];
    const w = new LedgerWriter(file, { onAppend: (e) => appended.push(e.name) });
    assert.equal(w.append(entry('a', ['aa'.repeat(32)])), true);
    assert.equal(w.append(entry('b')), true);
    assert.deepEqual(appended, ['a', 'b']);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[2], '');
    const first = JSON.parse(lines[0]);
    assert.equal(first.v, 1);
    assert.deepEqual(first.messages, [{ hash: 'aa'.repeat(32), message_id: 1, conversation_id: 7 }]);
    const r = readLedger(file);
    assert.deepEqual(
      r.entries.map((e) => e.name),
      ['b', 'a'],
    );
    assert.equal(r.skipped, 0);
    assert.deepEqual(
      readLedger(file, 1).entries.map((e) => e.name),
      ['b'],
    );
    if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  it('a missing ledger reads as empty; clear() removes the current and the rotated file', () => {
    const file = fresh();
    assert.deepEqual(readLedger(file), { entries: [], skipped: 0 });
    const w = new LedgerWriter(file, { maxBytes: 200 });
    for (let i = 0; i < 5; i++) w.append(entry(`e${i}`));
    assert.ok(fs.existsSync(rotatedLedgerFile(file)));
    w.clear();
    assert.ok(!fs.existsSync(file) && !fs.existsSync(rotatedLedgerFile(file)));
    assert.deepEqual(w.read().entries, []);
    w.append(entry('after'));
    assert.deepEqual(
      w.read().entries.map((e) => e.name),
      ['after'],
    );
  });

  it('corrupt lines are skipped and counted; a torn last line does not swallow the next entry', () => {
    const file = fresh();
    new LedgerWriter(file).append(entry('first'));
    fs.appendFileSync(
      file,
      'not json\n{"v":2,"name":"future"}\n\n{"v":1,"kind":"tool"}\n{"v":1,"time":"t","kind":"tool","name":"torn"',
    );
    const w = new LedgerWriter(file);
    w.append(entry('next'));
    const r = readLedger(file);
    assert.deepEqual(
      r.entries.map((e) => e.name),
      ['next', 'first'],
    );
    assert.equal(r.skipped, 4);
    assert.equal(
      parseLedgerLine('{"v":1,"time":"t","kind":"tool","name":"x","ok":true,"messages":[{"hash":"ab"},{"nohash":1},3]}')
        ?.messages.length,
      1,
    );
  });

  it('size cap: the full file rotates to <file>.1 (replacing the older one); reads span both, newest first', () => {
    const file = fresh();
    const one = JSON.stringify({ v: 1, ...entry('x00') }).length + 1;
    const w = new LedgerWriter(file, { maxBytes: one * 3 });
    for (let i = 0; i < 10; i++) w.append(entry(`x${String(i).padStart(2, '0')}`));
    const cur = fs.statSync(file).size;
    const old = fs.statSync(rotatedLedgerFile(file)).size;
    assert.ok(cur <= one * 3 && old <= one * 3 + 8, `${cur} / ${old}`);
    const names = readLedger(file).entries.map((e) => e.name);
    // 10 entries, 3 per file: x09 (current), x06–x08 (rotated); older ones were dropped.
    assert.deepEqual(names, ['x09', 'x08', 'x07', 'x06']);
  });

  it("never writes beside the archive: refused when the ledger is in or under the archive's directory", () => {
    const archive = path.join(root, 'data', 'msgbrowse.sqlite');
    assert.equal(ledgerBesideArchive(path.join(root, 'data', 'l.jsonl'), archive), true);
    assert.equal(ledgerBesideArchive(path.join(root, 'data', 'sub', 'l.jsonl'), archive), true);
    assert.equal(ledgerBesideArchive(path.join(root, 'elsewhere', 'l.jsonl'), archive), false);
    assert.equal(ledgerBesideArchive(path.join(root, 'data-2', 'l.jsonl'), archive), false);
    const logs: string[] = [];
    const w = new LedgerWriter(path.join(root, 'data', 'l.jsonl'), {
      archivePath: () => archive,
      log: (m) => logs.push(m),
    });
    assert.equal(w.append(entry('x')), false);
    assert.ok(!fs.existsSync(path.join(root, 'data', 'l.jsonl')));
    assert.match(logs[0], /refusing to write the ledger .* beside the archive/);
  });

  it('a symlink on either side does not lead the ledger in beside the archive', () => {
    const data = path.join(root, 'real-data');
    fs.mkdirSync(data, { recursive: true });
    const archive = path.join(data, 'msgbrowse.sqlite');
    fs.writeFileSync(archive, '');
    fs.symlinkSync(data, path.join(root, 'data-link'));
    fs.mkdirSync(path.join(root, 'alias'));
    fs.symlinkSync(archive, path.join(root, 'alias', 'msgbrowse.sqlite'));
    // The ledger's folder is a link to the archive's; a not-yet-created folder under that link; the archive is a link.
    assert.equal(ledgerBesideArchive(path.join(root, 'data-link', 'l.jsonl'), archive), true);
    assert.equal(ledgerBesideArchive(path.join(root, 'data-link', 'new', 'deeper', 'l.jsonl'), archive), true);
    assert.equal(ledgerBesideArchive(path.join(data, 'l.jsonl'), path.join(root, 'alias', 'msgbrowse.sqlite')), true);
    assert.equal(
      ledgerBesideArchive(path.join(root, 'alias', 'l.jsonl'), path.join(root, 'alias', 'msgbrowse.sqlite')),
      true,
      'the folder named is refused too',
    );
    assert.equal(
      ledgerBesideArchive(path.join(root, 'elsewhere', 'l.jsonl'), path.join(root, 'alias', 'msgbrowse.sqlite')),
      false,
    );
    const w = new LedgerWriter(path.join(root, 'data-link', 'l.jsonl'), {
      archivePath: () => archive,
      log: () => undefined,
    });
    assert.equal(w.append(entry('x')), false);
    assert.deepEqual(fs.readdirSync(data), ['msgbrowse.sqlite']);
  });

  it('write failures are logged, never thrown', () => {
    const blocker = path.join(root, 'blocker');
    fs.writeFileSync(blocker, '');
    const logs: string[] = [];
    const w = new LedgerWriter(path.join(blocker, 'sub', 'l.jsonl'), { log: (m) => logs.push(m) });
    assert.equal(w.append(entry('x')), false);
    assert.equal(logs.length, 1);
  });
});

describe('ledger: concurrent appends', () => {
  it('many appends from one process in parallel and from 4 processes at once: every line intact', async () => {
    const file = fresh();
    const w = new LedgerWriter(file);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        Promise.resolve().then(() => w.append(entry(`local-${i}`, ['ab'.repeat(32)]))),
      ),
    );
    const script = `
      const { LedgerWriter } = require(${JSON.stringify(path.resolve(__dirname, '../../src/core/ledger.ts'))});
      const w = new LedgerWriter(process.argv[1]);
      const big = Array.from({ length: 40 }, (_, i) => ({ hash: i.toString(16).padStart(64, '0'), message_id: i }));
      for (let i = 0; i < 200; i++) w.append({ time: new Date().toISOString(), kind: 'tool', name: 'p' + process.argv[2] + '-' + i, arguments: {}, ok: true, messages: big });
    `;
    await Promise.all(
      [1, 2, 3, 4].map(
        (p) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', '-e', script, file, String(p)], {
              stdio: ['ignore', 'ignore', 'inherit'],
            });
            child.on('error', reject);
            child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${p} exited ${code}`))));
          }),
      ),
    );
    const r = readLedger(file);
    assert.equal(r.skipped, 0);
    assert.equal(r.entries.length, 50 + 4 * 200);
    for (const p of [1, 2, 3, 4]) {
      const mine = r.entries.filter((e) => e.name.startsWith(`p${p}-`)).map((e) => Number(e.name.split('-')[1]));
      assert.deepEqual(
        mine,
        [...mine].sort((a, b) => b - a),
        "each writer's lines in its own order",
      );
      assert.equal(mine.length, 200);
    }
    assert.ok(r.entries.every((e) => e.messages.length === (e.name.startsWith('local') ? 1 : 40)));
  });
});

describe('collectDisclosedMessages', () => {
  it('finds result items by message_id + hash anywhere, else the ?h= anchor of their link; de-duplicated', () => {
    const h1 = '1'.repeat(64);
    const found = collectDisclosedMessages({
      hits: [
        { message_id: 1, hash: h1, conversation_id: 2 },
        { message_id: 1, hash: h1.toUpperCase(), conversation_id: 2 },
      ],
      nested: { deeper: [{ message: { message_id: 3, hash: 'b'.repeat(64) } }] },
      media: [{ message_id: 4, link: 'vscode://x/c/5/at/4?h=cccccccccccccccc', conversation_id: 5 }],
      encoded: [{ message_id: 6, uri: 'msgbrowse://message/6?h%3Ddddddddddddddddd' }],
      receipt: { hash: 'eeee' },
      noise: [{ message_id: 7 }, { hash: 'not hex', message_id: 8 }, null, 3, 'x'],
    });
    assert.deepEqual(found, [
      { hash: h1, message_id: 1, conversation_id: 2 },
      { hash: 'b'.repeat(64), message_id: 3 },
      { hash: 'cccccccccccccccc', message_id: 4, conversation_id: 5 },
      { hash: 'dddddddddddddddd', message_id: 6 },
    ]);
    assert.deepEqual(collectDisclosedMessages(undefined), []);
  });
});
