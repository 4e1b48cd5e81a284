/** on_this_day: the same day in earlier years against the oracle; windows, clamps, leap days, bodies that preview to nothing. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ArchiveWriter, buildJournalArchive, openWritable, type JournalArchive } from '../../fixtures/index';
import { startHarness, tempDir, textOf, type Harness } from '../harness';
import { checkOnThisDay, journalFixture, notesText, type OnThisDay, type Setup } from './journal-fixture';

let s: Setup;
journalFixture((x) => (s = x));

describe('on_this_day', () => {
  test('2026-07-25: 2021 then 2019, longest body first, decoys never, 2005 outside the 20-year window', async () => {
    const r = await checkOnThisDay(s.c, s.o, { date: '2026-07-25' });
    assert.deepEqual(
      r.years.map((y) => y.year),
      [2021, 2019],
    );
    assert.deepEqual(
      r.years[1].messages.map((m) => m.message_id),
      [s.fx.marks.cabin.id, s.fx.marks.shortOne.id],
    );
    const ids = r.years.flatMap((y) => y.messages.map((m) => m.message_id));
    for (const k of ['decoyBefore', 'decoyAfter'] as const) assert.ok(!ids.includes(s.fx.marks[k].id), k);
  });

  test('2025-07-25 reaches back to 2005 (year − 20)', async () => {
    const r = await checkOnThisDay(s.c, s.o, { date: '2025-07-25' });
    assert.deepEqual(
      r.years.map((y) => y.year),
      [2021, 2019, 2005],
    );
  });

  test('per_year and limit', async () => {
    const one = await checkOnThisDay(s.c, s.o, { date: '2026-07-25', per_year: 1 });
    assert.deepEqual(
      one.years.map((y) => y.messages.map((m) => m.message_id)),
      [[s.fx.marks.secretDay.id], [s.fx.marks.cabin.id]],
    );
    const lim = await checkOnThisDay(s.c, s.o, { date: '2026-07-25', limit: 1 });
    assert.deepEqual(
      lim.years.map((y) => y.year),
      [2021],
    );
    await checkOnThisDay(s.c, s.o, { date: '2026-07-25', per_year: 1, limit: 1 });
    await checkOnThisDay(s.c, s.o, { date: '2026-07-25', limit: 3 });
    await checkOnThisDay(s.c, s.o, { date: '2025-07-25', per_year: 10, limit: 4 });
  });

  test('per_year above 10 and limit above 50 are clamped with notes', async () => {
    const a = await checkOnThisDay(s.c, s.o, { date: '2025-07-25', per_year: 11 });
    assert.match(notesText(a), /10/);
    const b = await checkOnThisDay(s.c, s.o, { date: '2025-07-25', limit: 51 });
    assert.match(notesText(b), /50/);
  });

  test('Feb 29, Feb 28, Mar 1: only real calendar days match', async () => {
    const leap = await checkOnThisDay(s.c, s.o, { date: '2024-02-29' });
    assert.deepEqual(
      leap.years.map((y) => y.day),
      ['2020-02-29'],
    );
    const feb28 = await checkOnThisDay(s.c, s.o, { date: '2025-02-28' });
    assert.deepEqual(
      feb28.years.map((y) => y.day),
      ['2021-02-28'],
    );
    const mar1 = await checkOnThisDay(s.c, s.o, { date: '2022-03-01' });
    assert.deepEqual(
      mar1.years.map((y) => y.day),
      ['2021-03-01'],
    );
    const same = await checkOnThisDay(s.c, s.o, { date: '2021-03-01' });
    assert.deepEqual(same.years, [], 'the asked year itself is never searched');
  });

  test('2025-02-29 (not a real date): an error, or no results with a note', async () => {
    const r = await s.c.call('on_this_day', { date: '2025-02-29' });
    if (r.isError) assert.match(textOf(r), /2025-02-29|calendar|leap|valid|YYYY-MM-DD/i);
    else {
      const sc = r.structuredContent as OnThisDay;
      assert.deepEqual(sc.years, []);
      assert.ok((sc.notes ?? []).length > 0, 'no results come with a note');
    }
  });

  test('malformed date is an error; no date means today', async () => {
    for (const date of ['tomorrow', '2026-7-25', '2026-13-01'])
      assert.match(await s.c.err('on_this_day', { date }), /YYYY-MM-DD|calendar|valid|date/i, date);
    const today = await s.c.ok<OnThisDay>('on_this_day', {});
    assert.match(today.date, /^\d{4}-\d{2}-\d{2}$/);
    const now = new Date();
    const utc = now.toISOString().slice(0, 10);
    const local = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
    assert.ok([utc, local].includes(today.date), `date ${today.date} is today`);
    await checkOnThisDay(s.c, s.o, { date: today.date });
  });
});

// msgbrowse's Home card skips bodies that preview to nothing (line breaks, quote markers only); so does on_this_day.
describe('on_this_day previews', () => {
  let dir: string;
  let fx: JournalArchive;
  let h: Harness;
  before(async () => {
    dir = tempDir('otd-preview');
    fx = buildJournalArchive(dir);
    const db = openWritable(fx.path);
    try {
      const wren = db.prepare("SELECT id FROM conversations WHERE name = 'Wren'").get() as { id: number };
      // Longer than every real body of 2021-07-25, and empty once line breaks and quote markers are gone.
      new ArchiveWriter(db).appendMessages(wren.id, 'signal', 'Wren', [
        { ts: '2021-07-25 18:00:00', sender: 'Wren', body: '\n'.repeat(300) },
        {
          ts: '2021-07-25 18:01:00',
          sender: 'Wren',
          body: '> > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > >',
        },
      ]);
    } finally {
      db.close();
    }
    h = await startHarness({ archivePath: fx.path });
  });
  after(async () => {
    await h?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the empty-looking bodies never crowd out real messages', async () => {
    const r = await h.ok<{ years: { year: number; messages: { message_id: number }[] }[] }>('on_this_day', {
      date: '2026-07-25',
      per_year: 2,
    });
    const y2021 = r.years.find((y) => y.year === 2021);
    assert.deepEqual(
      y2021?.messages.map((m) => m.message_id),
      [fx.marks.secretDay.id, fx.marks.lunch.id],
    );
  });
});
