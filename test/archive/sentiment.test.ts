/**
 * msgbrowse's sentiment opt-out (v17+): scores are read only through src/archive/sentiment.ts, which leaves out every
 * contact in contact_sentiment_optout, also one whose rows a scoring run wrote after the opt-out.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { sentimentRows } from '../../src/archive/sentiment';
import { detectSchema } from '../../src/archive/schema';
import { buildLegacyArchive } from '../fixtures';
import { nativeSql } from '../fixtures/native-sql';

const SRC = path.resolve(__dirname, '../../src');
const ONE_PLACE = path.join(SRC, 'archive', 'sentiment.ts');

let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-sentiment-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('sentiment scores honour the opt-out', () => {
  it('no source file but sentiment.ts names the score table', () => {
    const readers = (fs.readdirSync(SRC, { recursive: true }) as string[])
      .map((f) => path.join(SRC, f))
      .filter((f) => /\.(ts|js|mjs)$/.test(f) && /message_sentiment/i.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(readers, [ONE_PLACE], 'read message_sentiment through sentimentRows() (src/archive/sentiment.ts)');
  });

  it("an opted-out contact whose rows are still in the table (an older build's run in flight) has none through sentimentRows", () => {
    const d = buildLegacyArchive(path.join(tmp, 'v17'), 17);
    const db = new Database(d.path);
    try {
      // What msgbrowse's own store tests plant: the marker beside rows written after it.
      db.exec(`INSERT INTO message_sentiment(message_hash, model, lexicon_version, construct, score, ts_unix, contact_id)
               SELECT m.hash, 'local-affect', 'ipip-2026.09', 'late_run', 0.5, m.ts_unix, o.contact_id
               FROM contact_sentiment_optout o, messages m WHERE m.sender <> 'Me' LIMIT 3`);
      const from = sentimentRows(detectSchema(nativeSql(db)));
      assert.ok(from);
      const optedOut = (db.prepare('SELECT contact_id FROM contact_sentiment_optout').get() as { contact_id: number })
        .contact_id;
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      const all = count('SELECT COUNT(*) AS n FROM message_sentiment');
      const theirs = count(`SELECT COUNT(*) AS n FROM message_sentiment WHERE contact_id = ${optedOut}`);
      assert.ok(theirs > 0 && theirs < all, `${theirs} of ${all} rows are the opted-out contact's`);
      assert.equal(count(`SELECT COUNT(*) AS n FROM ${from} WHERE contact_id = ${optedOut}`), 0);
      assert.equal(count(`SELECT COUNT(*) AS n FROM ${from}`), all - theirs);
    } finally {
      db.close();
    }
  });

  it('an archive without sentiment, or without its opt-out table, gives no scores to read', () => {
    const v16 = buildLegacyArchive(path.join(tmp, 'v16'), 16);
    const old = new Database(v16.path, { readonly: true });
    assert.equal(sentimentRows(detectSchema(nativeSql(old))), undefined);
    old.close();
    const d = buildLegacyArchive(path.join(tmp, 'nooptout'), 17);
    const db = new Database(d.path);
    db.exec('DROP TABLE contact_sentiment_optout');
    assert.equal(
      sentimentRows(detectSchema(nativeSql(db))),
      undefined,
      'scores without the opt-out table are never read',
    );
    db.close();
  });
});
