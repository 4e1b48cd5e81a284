/**
 * The journal use cases called directly: a day's counts, digest and pages of messages (continued from a position),
 * "on this day" looking back from a given date, and one line for each request they cannot read.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type DayPosition, readJournalDay, readOnThisDay } from '../../src/core';
import { buildJournalArchive, type JournalArchive } from '../fixtures';
import { callsOn, type FixtureCalls } from './call-env';

let dir: string;
let fx: JournalArchive;
let calls: FixtureCalls;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-journal-read-'));
  fx = buildJournalArchive(dir);
  calls = await callsOn(fx.path);
});
after(async () => {
  await calls?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The day's counted messages (UTC day, non-system, non-blank) in the day's order, from what the fixture wrote. */
const counted = (day: string) =>
  fx.messages
    .filter((m) => new Date(m.tsUnix * 1000).toISOString().startsWith(day) && !m.isSystem && m.body.trim() !== '')
    .sort((a, b) => a.conversationId - b.conversationId || a.tsUnix - b.tsUnix || a.id - b.id);

describe('core: readJournalDay', () => {
  it("counts the day from its messages, serves its stale digest with a note, and reads the day's messages", async () => {
    const want = counted('2023-05-01');
    const r = await readJournalDay({ day: ' 2023-05-01 ', limit: 500 }, undefined, calls.env());
    assert.equal(r.day, '2023-05-01');
    assert.equal(r.stats.messageCount, want.length);
    assert.equal(r.stats.conversationCount, new Set(want.map((m) => m.conversationId)).size);
    const bySource: Record<string, number> = {};
    for (const m of want) bySource[m.source] = (bySource[m.source] ?? 0) + 1;
    assert.deepEqual(r.stats.sourceCounts, bySource);
    assert.equal(r.stats.topSenders[0].name, 'Ana');
    assert.ok(!r.stats.topSenders.some((s) => s.name === 'Me'));
    assert.equal(r.digest?.mood, 'upbeat');
    assert.equal(r.digest?.stale, true);
    assert.match(r.notes.join('\n'), /the digest is stale/);
    assert.deepEqual(
      r.hits.map((h) => h.message_id),
      want.map((m) => m.id),
    );
    assert.equal(r.more, false);
  });

  it('pages the day on from a position, and says when a day has no digest', async () => {
    const want = counted('2023-05-01').map((m) => m.id);
    const seen: number[] = [];
    let from: DayPosition | undefined;
    for (;;) {
      const r = await readJournalDay({ day: '2023-05-01', limit: 4 }, from, calls.env());
      seen.push(...r.rows.map((m) => m.id));
      if (!r.more) break;
      const last = r.rows.at(-1)!;
      from = { day: r.day, conversationId: last.conversationId, tsUnix: last.tsUnix, id: last.id };
    }
    assert.deepEqual(seen, want);
    const plain = await readJournalDay({ day: '2021-07-25' }, undefined, calls.env());
    assert.equal(plain.digest, null);
    assert.deepEqual(plain.notes, ['no journal digest for this day: `msgbrowse journal` writes digests']);
  });

  it('says in one line what is wrong with a request', async () => {
    await assert.rejects(
      readJournalDay({ day: '2022-06-15' }, undefined, calls.env()),
      /^ToolError: no messages on 2022-06-15 .*the nearest days with messages are 2021-07-25 \(earlier\) and 2023-05-01 \(later\)$/,
    );
    await assert.rejects(
      readJournalDay({ day: '2023-05-01' }, { day: '2023-05-03', conversationId: 1, tsUnix: 0, id: 1 }, calls.env()),
      /this cursor belongs to day 2023-05-03, not 2023-05-01/,
    );
    await assert.rejects(readJournalDay({ day: 'May 1' }, undefined, calls.env()), /day must be a date in YYYY-MM-DD/);
  });
});

describe('core: readOnThisDay', () => {
  it('looks back 20 years from the given date: the longest messages of each earlier year, newest first', async () => {
    const r = await readOnThisDay({ date: '2026-07-25', per_year: 1 }, calls.env());
    assert.equal(r.day, '2026-07-25');
    assert.deepEqual(
      r.years.map((y) => [y.year, y.day, y.messages.map((m) => m.message_id)]),
      [
        [2021, '2021-07-25', [fx.marks.secretDay.id]],
        [2019, '2019-07-25', [fx.marks.cabin.id]],
      ],
    );
    assert.deepEqual(r.notes, []);
  });

  it('clamps per_year and limit with notes, and refuses a date that is not one', async () => {
    const r = await readOnThisDay({ date: '2026-07-25', per_year: 99, limit: 99 }, calls.env());
    assert.deepEqual(r.notes, [
      'per_year 99 is above the maximum 10; used 10',
      'limit 99 is above the maximum 50; used 50',
    ]);
    assert.equal(r.years.find((y) => y.year === 2019)?.messages.length, 2, 'short one and the cabin; blanks never');
    await assert.rejects(
      readOnThisDay({ date: '2023-13-01' }, calls.env()),
      /^ToolError: date "2023-13-01" is not a real calendar date$/,
    );
  });
});
