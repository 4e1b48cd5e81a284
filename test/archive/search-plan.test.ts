// The keyword statement pins its join order: the FTS5 index drives and messages are looked up by rowid.
// Left to the planner, a conversation or date filter made SQLite walk messages by index and re-run MATCH for
// every row — 7–20 s for a frequent word on 100k messages (found by the long-mode load suite).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { keywordSearchSql } from '../../src/archive/queries/search';
import { detectSchema } from '../../src/archive/schema';
import type { KeywordSearchOptions } from '../../src/archive/types';
import { buildCuratedArchive, buildScaleArchive, dayStartUnix } from '../fixtures';
import { nativeSql } from '../fixtures/native-sql';

let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-plan-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A read-only native handle on a copy (native SQLite may create -shm beside a WAL file). */
function nativeCopy(file: string): Database.Database {
  const dir = fs.mkdtempSync(path.join(tmp, 'copy-'));
  const copy = path.join(dir, 'msgbrowse.sqlite');
  fs.copyFileSync(file, copy);
  if (fs.existsSync(`${file}-wal`)) fs.copyFileSync(`${file}-wal`, `${copy}-wal`);
  return new Database(copy, { readonly: true });
}

/** Top-level plan rows of the keyword statement, in loop order (outermost first). */
function loops(db: Database.Database, sql: string, params: readonly unknown[]): string[] {
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { parent: number; detail: string }[];
  return plan.filter((r) => r.parent === 0).map((r) => r.detail);
}

/** FTS5 is scanned before messages, and messages are then looked up by rowid (never walked by an index). */
function assertFtsDrives(rows: string[], label: string): void {
  const fts = rows.findIndex((d) => /^SCAN messages_fts VIRTUAL TABLE/.test(d));
  const m = rows.findIndex((d) => /^(SCAN|SEARCH) m\b/.test(d));
  assert.ok(fts >= 0 && m > fts, `${label}: ${rows.join(' | ')}`);
  assert.match(rows[m], /^SEARCH m USING INTEGER PRIMARY KEY \(rowid=\?\)/, `${label}: ${rows.join(' | ')}`);
}

describe('keyword search plan', () => {
  it('the full-text index drives the join for every filter combination', () => {
    const desc = buildCuratedArchive(path.join(tmp, 'curated'));
    const db = nativeCopy(desc.path);
    try {
      const conv = desc.conversations.find((c) => c.messageCount > 100)!.id;
      const variants: Omit<KeywordSearchOptions, 'query' | 'limit'>[] = [
        {},
        { conversationId: conv },
        { conversationId: conv, startUnix: dayStartUnix('2022-01-01'), endUnix: dayStartUnix('2027-01-01') },
        { sender: 'Me', source: 'signal' },
        { startUnix: dayStartUnix('2022-01-01') },
        { conversationId: conv, sender: 'Me', hasAttachment: true, hasLink: true },
      ];
      for (const v of variants) {
        const q = keywordSearchSql(detectSchema(nativeSql(db)), { query: 'the', limit: 20, ...v })!;
        assertFtsDrives(loops(db, q.sql, q.params), JSON.stringify(v));
      }
    } finally {
      db.close();
    }
  });

  it('a frequent word inside one conversation and a date range: FTS-driven on a realistic archive too', () => {
    const file = path.join(tmp, 'scale', 'msgbrowse.sqlite');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const desc = buildScaleArchive(file, { messages: 20000, conversations: 20, seed: 3, progress: false });
    const db = nativeCopy(file);
    try {
      const schema = detectSchema(nativeSql(db));
      const word = desc.sampleWords.frequent[0];
      const q = keywordSearchSql(schema, {
        query: word,
        limit: 20,
        conversationId: desc.largestConversation.id,
        startUnix: desc.firstUnix,
        endUnix: desc.lastUnix,
      })!;
      const rows = db.prepare(q.sql).all(...q.params);
      assert.ok(rows.length > 0, `hits for "${word}"`);
      assertFtsDrives(loops(db, q.sql, q.params), word);
    } finally {
      db.close();
    }
  });
});
