/** get_conversation: naming a conversation, paging, date bounds and what a page holds. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { conversationOf, messagesOf, type CuratedArchive } from '../../fixtures/index';
import { textOf, type Harness } from '../harness';
import { toolFixture, type Hit } from './tool-fixture';

let desc: CuratedArchive;
let h: Harness;
let plain: Harness;
toolFixture((fx) => ({ desc, h, plain } = fx));

describe('conversation resolution', () => {
  test('a name in several sources → error naming them and asking for source or conversation_id', async () => {
    const msg = await h.err('get_conversation', { name: 'MJ' });
    assert.match(msg, /exists in several sources/);
    assert.match(msg, /imessage/);
    assert.match(msg, /whatsapp/);
    assert.match(msg, /pass source/);
    assert.match(msg, /conversation_id/);
    const im = conversationOf(desc, 'imessage', 'MJ');
    const r = await h.ok<{ conversation_id: number; source: string; messages: Hit[] }>('get_conversation', {
      name: 'MJ',
      source: 'imessage',
    });
    assert.equal(r.conversation_id, im.id);
    assert.ok(r.messages.every((m) => m.source === 'imessage'));
    const byId = await h.ok<{ conversation_id: number }>('get_conversation', { conversation_id: im.id });
    assert.equal(byId.conversation_id, im.id);
    // search scoped by an ambiguous name is refused the same way
    assert.match(await h.err('search_messages', { query: 'lease', conversation: 'MJ' }), /several sources/);
  });

  test('unknown conversation → "not found" with the closest names', async () => {
    const msg = await h.err('get_conversation', { name: 'Harpr' });
    assert.match(msg, /not found/);
    assert.match(msg, /Harper/);
    assert.match(await h.err('list_media', { conversation: 'Nobody At All' }), /not found/);
    assert.match(await h.err('get_conversation', { conversation_id: 99999 }), /conversation id 99999 not found/);
    assert.match(await h.err('get_conversation', {}), /name or conversation_id is required/);
    const harper = conversationOf(desc, 'signal', 'Harper');
    assert.match(
      await h.err('get_conversation', { conversation_id: harper.id, source: 'whatsapp' }),
      /is from source "signal"/,
    );
    assert.match(await h.err('get_conversation', { conversation_id: harper.id, name: 'Family' }), /pass only one/);
  });
});

describe('get_conversation', () => {
  test('cursor paging walks a whole conversation without gaps or repeats', async () => {
    const trip = conversationOf(desc, 'signal', 'Group Trip');
    const expected = messagesOf(desc, trip.id).map((m) => m.id);
    assert.equal(expected.length, 250);
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r: { messages: Hit[]; next_cursor?: string; has_more: boolean } = await h.ok(
        'get_conversation',
        cursor ? { cursor, limit: 7 } : { name: 'Group Trip', limit: 7 },
      );
      seen.push(...r.messages.map((m) => m.message_id));
      assert.equal(r.has_more, r.next_cursor !== undefined);
      cursor = r.next_cursor;
      pages++;
      assert.ok(pages < 100, 'paging does not terminate');
    } while (cursor);
    assert.deepEqual(seen, expected);
    assert.equal(pages, Math.ceil(250 / 7));
  });

  test('date bounds are inclusive days and survive paging; the cursor carries them', async () => {
    const harper = conversationOf(desc, 'signal', 'Harper');
    const day2 = messagesOf(desc, harper.id)
      .filter((m) => m.ts.startsWith('2022-03-02'))
      .map((m) => m.id);
    const first = await h.ok<{ messages: Hit[]; next_cursor?: string }>('get_conversation', {
      name: 'Harper',
      start: '2022-03-02',
      end: '2022-03-02',
      limit: 2,
    });
    const ids = first.messages.map((m) => m.message_id);
    let cursor = first.next_cursor;
    while (cursor) {
      const r: { messages: Hit[]; next_cursor?: string } = await h.ok('get_conversation', { cursor, limit: 2 });
      ids.push(...r.messages.map((m) => m.message_id));
      cursor = r.next_cursor;
    }
    assert.deepEqual(ids, day2);
    assert.match(
      await h.err('get_conversation', { cursor: first.next_cursor, start: '2022-03-01' }),
      /differ from the ones this cursor/,
    );
    assert.match(
      await h.err('get_conversation', { cursor: first.next_cursor, name: 'Family', source: 'whatsapp' }),
      /cursor belongs to conversation_id/,
    );
    assert.match(await h.err('get_conversation', { cursor: 'garbage!' }), /cursor is not valid/);
    assert.match(
      await h.err('get_conversation', { cursor: Buffer.from('{"v":1}').toString('base64url') }),
      /cursor is not valid/,
    );
  });

  test('limit above 500 is clamped (and said so); system messages included; bodies cleaned', async () => {
    const r = await h.ok<{ messages: Hit[]; notes?: string[]; next_cursor?: string }>('get_conversation', {
      name: 'Group Trip',
      limit: 600,
    });
    assert.equal(r.messages.length, 250);
    assert.deepEqual(r.notes, ['limit 600 is above the maximum 500; used 500']);
    assert.equal(r.next_cursor, undefined);
    const harper = await h.ok<{ messages: Hit[] }>('get_conversation', { name: 'Harper' });
    assert.ok(harper.messages.some((m) => m.sender === 'No-Sender'));
  });

  test('empty conversation → [] (never null)', async () => {
    const r = await h.ok<{ messages: Hit[]; has_more: boolean }>('get_conversation', { name: 'Empty Thread' });
    assert.deepEqual(r.messages, []);
    assert.equal(r.has_more, false);
  });
});

describe('dates', () => {
  test('strict YYYY-MM-DD, real calendar dates, start ≤ end', async () => {
    for (const bad of ['2022-3-1', 'yesterday', '2022-03-01T00:00:00', '03/01/2022', '2022 -03-01']) {
      assert.match(
        await h.err('search_messages', { query: 'lease', start: bad }),
        /start must be a date in YYYY-MM-DD form/,
        bad,
      );
    }
    assert.match(
      await h.err('search_messages', { query: 'lease', end: '2022-02-30' }),
      /end "2022-02-30" is not a real calendar date/,
    );
    assert.match(await h.err('get_conversation', { name: 'Harper', end: '2021-02-29' }), /not a real calendar date/);
    assert.match(
      await h.err('get_conversation', { name: 'Harper', start: '2022-03-02', end: '2022-03-01' }),
      /start 2022-03-02 is after end 2022-03-01/,
    );
    const leap = await h.ok<{ messages: Hit[] }>('get_conversation', { name: 'Harper', start: '2020-02-29' });
    assert.ok(leap.messages.length > 0);
    assert.match(await h.err('semantic_search', { query: 'x', start: '2022-13-01' }), /not a real calendar date/);
  });

  test('spaces around a date are ignored, as get_journal_day and the prompts ignore them', async () => {
    const exact = await h.ok<{ messages: Hit[] }>('get_conversation', {
      name: 'Harper',
      start: '2022-03-01',
      end: '2022-03-31',
    });
    const spaced = await h.ok<{ messages: Hit[] }>('get_conversation', {
      name: 'Harper',
      start: ' 2022-03-01',
      end: '2022-03-31\t',
    });
    assert.deepEqual(
      spaced.messages.map((m) => m.message_id),
      exact.messages.map((m) => m.message_id),
    );
    const found = await plain.ok<{ hits: Hit[] }>('search_messages', {
      query: 'lease',
      start: ' 2022-03-01 ',
      end: ' 2022-03-01',
    });
    assert.ok(found.hits.length >= 1 && found.hits.every((x) => x.timestamp.startsWith('2022-03-01')));
    const blank = await h.ok<{ messages: Hit[] }>('get_conversation', { name: 'Harper', start: '  ' });
    assert.ok(blank.messages.length >= exact.messages.length, 'a blank date is no filter, as an empty one');
  });
});

describe('hostile inputs', () => {
  test('message content with markup and controls is returned verbatim-but-clean and quoted in text', async () => {
    const r = await h.call('get_conversation', { name: 'Mallory <script>' });
    const s = r.structuredContent as { messages: Hit[] };
    assert.equal(s.messages.find((m) => m.message_id === desc.marks.scriptBody.id)!.text, '<script>alert(1)</script>');
    const t = textOf(r);
    for (const line of t.split('\n').filter((l) => l.includes('<script>alert'))) assert.match(line, /^\s*> /);
  });
});
