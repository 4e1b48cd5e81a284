/** get_journal_day: a day's counts, digest and messages against the oracle; paging, errors, reactions, hidden conversations. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkJournalDay,
  journalFixture,
  journalPages,
  noScore,
  notesText,
  privateFixture,
  type JournalDay,
  type PrivateSetup,
  type Setup,
} from './journal-fixture';

let s: Setup;
journalFixture((x) => (s = x));

describe('get_journal_day', () => {
  test('every day with messages: counts from messages, digest, messages in (conversation, ts, id) order', async () => {
    for (const day of s.o.countedDays()) await checkJournalDay(s.c, s.o, day);
  });

  test('the busy day: stale digest with its structured fields; Me excluded from top senders', async () => {
    const r = await checkJournalDay(s.c, s.o, '2023-05-01');
    assert.equal(r.message_count, 19);
    assert.equal(r.digest?.stale, true);
    assert.equal(r.digest?.mood, 'upbeat');
    assert.deepEqual(r.digest?.people, ['Maya', 'Ana']);
    assert.deepEqual(r.digest?.highlights, [
      { text: 'Maya works at the observatory now', time: '08:03' },
      { text: 'club meets at the wall', time: '' },
    ]);
    assert.ok(r.top_senders.every((x) => x.name !== 'Me'));
  });

  test('fresh digest is not stale; a digest without structured JSON has empty lists', async () => {
    assert.equal((await checkJournalDay(s.c, s.o, s.fx.digests.fresh[0])).digest?.stale, false);
    const old = await checkJournalDay(s.c, s.o, '2019-07-25');
    assert.deepEqual([old.digest?.people, old.digest?.themes, old.digest?.highlights], [[], [], []]);
    assert.equal(old.digest?.stale, false);
    assert.equal(old.message_count, 2, 'the system row and the blank body do not count');
  });

  test('the out-of-date journal_days row is ignored: true counts from messages', async () => {
    const r = await checkJournalDay(s.c, s.o, s.fx.outdatedDay!);
    assert.equal(r.message_count, 2);
    assert.deepEqual(r.top_senders, [{ name: 'Maya', count: 1 }]);
  });

  test('days without a digest: digest null and a note naming `msgbrowse journal`', async () => {
    for (const day of s.fx.digests.missing) {
      const r = await checkJournalDay(s.c, s.o, day);
      assert.equal(r.digest, null);
      assert.match(notesText(r), /msgbrowse journal/);
    }
  });

  test('paging: next_cursor only when more; pages concatenate to the whole day, no gaps or repeats', async () => {
    const exp = s.o.journal('2023-05-01').messages;
    for (const limit of [1, 5, 18, 19, 20]) {
      const { pages, messages } = await journalPages(s.c, '2023-05-01', limit);
      assert.deepEqual(messages.map(noScore), exp, `limit ${limit}`);
      assert.equal(pages.length, Math.ceil(exp.length / limit), `limit ${limit}: pages`);
      for (const [i, p] of pages.entries()) {
        assert.equal(p.messages.length, Math.min(limit, exp.length - i * limit), `limit ${limit}: page ${i} size`);
        assert.equal(p.next_cursor !== undefined, i < pages.length - 1, `limit ${limit}: page ${i} next_cursor`);
        assert.equal(p.message_count, exp.length, 'every page carries the day counts');
      }
    }
  });

  test('default limit answers the whole 19-message day in one page; above 500 is clamped with a note', async () => {
    const r = await s.c.ok<JournalDay>('get_journal_day', { day: '2023-05-01' });
    assert.deepEqual(r.messages.map(noScore), s.o.journal('2023-05-01').messages);
    assert.equal(r.next_cursor, undefined);
    const big = await s.c.ok<JournalDay>('get_journal_day', { day: '2023-05-01', limit: 600 });
    assert.equal(big.messages.length, 19);
    assert.match(notesText(big), /500/);
  });

  test('a day without counted messages: error naming the nearest earlier and later days', async () => {
    const days = s.o.countedDays();
    for (const day of ['2022-06-15', '2019-07-27', '2023-04-30', '2000-01-01', '2030-01-01']) {
      const msg = await s.c.err('get_journal_day', { day });
      const earlier = days.filter((d) => d < day).at(-1);
      const later = days.find((d) => d > day);
      if (earlier) assert.ok(msg.includes(earlier), `${day}: error names ${earlier}: ${msg}`);
      if (later) assert.ok(msg.includes(later), `${day}: error names ${later}: ${msg}`);
    }
  });

  test('malformed or impossible days are errors', async () => {
    for (const day of ['2023-13-01', 'yesterday', '2023-5-1', '2023-02-30', '2023-05-01T00:00:00']) {
      const msg = await s.c.err('get_journal_day', { day });
      assert.match(msg, /YYYY-MM-DD|calendar|valid|date/i, `${JSON.stringify(day)}: ${msg}`);
    }
    assert.match(await s.c.err('get_journal_day', { day: 'yesterday' }), /YYYY-MM-DD/);
    assert.match(await s.c.err('get_journal_day', { day: '2023-5-1' }), /YYYY-MM-DD/);
    assert.match(await s.c.err('get_journal_day', { day: '2023-13-01' }), /YYYY-MM-DD|2023-13-01|calendar/);
    await s.c.err('get_journal_day', { day: '' });
    await s.c.err('get_journal_day', {});
  });

  test('reactions on hits: the reacted message carries them, no other does', async () => {
    const REACTIONS = [
      { emoji: '🔭', actor: 'Me' },
      { emoji: '❤️', actor: 'Maya' },
    ];
    const r = await s.c.ok<JournalDay>('get_journal_day', { day: '2023-05-01', limit: 500 });
    const reacted = r.messages.find((m) => m.message_id === s.fx.marks.reacted.id);
    assert.deepEqual(reacted?.reactions, REACTIONS);
    for (const m of r.messages)
      if (m.message_id !== s.fx.marks.reacted.id)
        assert.equal(m.reactions, undefined, `message ${m.message_id} has no reactions`);
  });
});

describe('privacy: hidden conversations', () => {
  describe('hiding the Climbing Club (signal:Climbing Club)', () => {
    const EX = ['signal:Climbing Club'];
    let p: PrivateSetup;
    privateFixture(EX, (x) => (p = x));

    test('the busy day: counts without the club; the digest is withheld with a note', async () => {
      const r = await checkJournalDay(p.c, p.o, '2023-05-01', EX);
      assert.equal(r.message_count, 7);
      assert.equal(r.conversation_count, 3);
      assert.equal(r.digest, null);
      assert.ok((r.notes ?? []).length > 0);
      assert.ok(r.messages.every((m) => m.conversation !== 'Climbing Club'));
      for (const limit of [1, 2, 6, 7]) await checkJournalDay(p.c, p.o, '2023-05-01', EX, limit);
    });

    test('a day with a digest but no hidden messages keeps its digest', async () => {
      const r = await checkJournalDay(p.c, p.o, '2019-07-25', EX);
      assert.ok(r.digest);
    });

    test('days that only the club had are days without messages (nearest visible days named)', async () => {
      for (const day of ['2023-05-02', '2023-05-03']) {
        const msg = await p.c.err('get_journal_day', { day });
        assert.ok(msg.includes('2023-05-01'), `${day}: ${msg}`);
        assert.ok(msg.includes('2024-03-10'), `${day}: ${msg}`);
      }
    });
  });
});
