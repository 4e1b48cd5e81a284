/**
 * The (ts_unix, id) keyset reads: get_context's window around a message and the transcript's cursor pages, against
 * the conversation sorted in JS, over an archive whose times are cut to the day (many messages share a time, so the
 * id decides), and their plans: the cursor is a range of idx_messages_conv_ts, not a walk of the conversation up to it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Sql } from '../../src/archive/connection';
import { context } from '../../src/archive/queries/message-context';
import { transcript } from '../../src/archive/queries/transcript';
import { detectSchema, type SchemaInfo } from '../../src/archive/schema';
import type { TranscriptCursor } from '../../src/archive/types';
import { buildCuratedArchive, openWritable } from '../fixtures';
import { nativeSql } from '../fixtures/native-sql';
import { recordingSql, type RanStatement } from '../fixtures/recording-sql';

let tmp: string;
let db: ReturnType<typeof openWritable>;
let sql: Sql;
let schema: SchemaInfo;
/** Each conversation's message ids in (ts_unix, id) order, and each message's time. */
const ordered = new Map<number, number[]>();
const tsOf = new Map<number, number>();
/** Every statement the reads ran, with its parameters (for the plan test). */
let ran: RanStatement[];

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'keyset-'));
  const d = buildCuratedArchive(path.join(tmp, 'curated'));
  db = openWritable(d.path);
  db.exec('UPDATE messages SET ts_unix = ts_unix - ts_unix % 86400');
  const native = nativeSql(db);
  ({ sql, ran } = recordingSql(native));
  schema = detectSchema(native);
  const rows = db.prepare('SELECT id, conversation_id AS c, ts_unix AS t FROM messages').all() as {
    id: number;
    c: number;
    t: number;
  }[];
  for (const r of rows) {
    tsOf.set(r.id, r.t);
    ordered.set(r.c, [...(ordered.get(r.c) ?? []), r.id]);
  }
  for (const ids of ordered.values()) ids.sort((a, b) => tsOf.get(a)! - tsOf.get(b)! || a - b);
});
after(() => {
  db.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A few conversations with the most ties, and in each its first, last and some middle messages. */
function samples(): { conv: number; ids: number[]; at: number[] }[] {
  const convs = [...ordered.entries()]
    .map(([conv, ids]) => ({ conv, ids, ties: ids.length - new Set(ids.map((i) => tsOf.get(i))).size }))
    .sort((a, b) => b.ties - a.ties)
    .slice(0, 4);
  assert.ok(convs[0].ties > 10, `the archive has messages sharing a time (${convs[0].ties})`);
  return convs.map(({ conv, ids }) => ({
    conv,
    ids,
    at: [
      ...new Set([0, 1, ids.length - 1, ids.length - 2, ...[0.25, 0.5, 0.75].map((f) => Math.floor(ids.length * f))]),
    ].filter((i) => i >= 0),
  }));
}

describe('keyset reads over (ts_unix, id)', () => {
  it("get_context's window is the conversation's order around the message, ties broken by id", () => {
    for (const { ids, at } of samples()) {
      for (const i of at) {
        for (const w of [0, 1, 3, 8]) {
          const got = context(sql, schema, ids[i], w)!.map((m) => m.id);
          assert.deepEqual(got, ids.slice(Math.max(0, i - w), i + w + 1), `message ${ids[i]} window ${w}`);
        }
      }
    }
  });

  it('transcript pages forwards and backwards through every message once, in order', () => {
    for (const { conv, ids } of samples()) {
      const forward: number[] = [];
      let cursor: TranscriptCursor | undefined;
      do {
        const page = transcript(sql, schema, { conversationId: conv, limit: 7, ...(cursor ? { after: cursor } : {}) });
        forward.push(...page.messages.map((m) => m.id));
        cursor = page.next;
      } while (cursor);
      assert.deepEqual(forward, ids, `conversation ${conv} forwards`);
      // Backwards from just after the newest: each page chronological, each one before the last.
      const last = ids[ids.length - 1];
      let pages: number[][] = [];
      cursor = { tsUnix: tsOf.get(last)!, id: last + 1 };
      do {
        const page = transcript(sql, schema, { conversationId: conv, limit: 7, before: cursor });
        pages = [page.messages.map((m) => m.id), ...pages];
        cursor = page.next;
      } while (cursor);
      assert.deepEqual(pages.flat(), ids, `conversation ${conv} backwards`);
      // Newest first, continued with `before` as the tool does.
      const newest: number[] = [];
      cursor = undefined;
      do {
        const page = transcript(sql, schema, {
          conversationId: conv,
          limit: 7,
          newestFirst: true,
          ...(cursor ? { before: cursor } : {}),
        });
        newest.push(...page.messages.map((m) => m.id));
        cursor = page.next;
      } while (cursor);
      assert.deepEqual(newest, [...ids].reverse(), `conversation ${conv} newest first`);
    }
  });

  it('the cursor is a range of idx_messages_conv_ts (no read of the conversation up to it)', () => {
    const keyset = [...new Map(ran.filter((r) => /m\.ts_unix, m\.id\)/.test(r.q)).map((r) => [r.q, r])).values()];
    assert.ok(keyset.length >= 4, `the reads ran their keyset statements (${keyset.length})`);
    for (const { q, p } of keyset) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${q}`).all(...p) as { detail: string }[]).map((r) => r.detail);
      assert.ok(
        plan.some((d) =>
          /^SEARCH m USING (COVERING )?INDEX idx_messages_conv_ts \(conversation_id=\? AND ts_unix[<>]\?\)$/.test(d),
        ),
        `${q}\n${plan.join('\n')}`,
      );
    }
  });
});
