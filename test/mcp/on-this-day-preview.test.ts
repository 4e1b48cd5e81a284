/** on_this_day skips bodies that preview to nothing (line breaks, quote markers only), as msgbrowse's Home card does. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, it } from 'node:test';
import { ArchiveWriter, buildJournalArchive, openWritable, type JournalArchive } from '../fixtures/index';
import { startHarness, tempDir, type Harness } from './harness';

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

it('the empty-looking bodies never crowd out real messages', async () => {
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
