/**
 * get_conversation's use case called directly: the conversation by name or id, its pages in either order continued
 * from a position, the bounds and order a position keeps, and one line for each request it cannot read.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readConversation, type TranscriptPosition } from '../../src/core';
import { buildJournalArchive, type JournalArchive } from '../fixtures';
import { callsOn, type FixtureCalls } from './call-env';

let dir: string;
let fx: JournalArchive;
let calls: FixtureCalls;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-conversation-read-'));
  fx = buildJournalArchive(dir);
  calls = await callsOn(fx.path);
});
after(async () => {
  await calls?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Maya's signal messages in transcript order, from what the fixture wrote. */
const maya = () =>
  fx.messages
    .filter((m) => m.source === 'signal' && m.conversation === 'Maya')
    .sort((a, b) => a.tsUnix - b.tsUnix || a.id - b.id);

const positionAfter = (r: Awaited<ReturnType<typeof readConversation>>): TranscriptPosition => {
  const last = r.rows.at(-1)!;
  return { conversationId: r.conversation.id, tsUnix: last.tsUnix, id: last.id, newest: r.newest };
};

describe('core: readConversation', () => {
  it('reads a conversation by name, oldest first, each hit cited and carrying its reactions', async () => {
    const r = await readConversation({ name: 'Maya' }, undefined, calls.env());
    assert.equal(r.conversation.id, fx.marks.mayaBirthday.conversationId);
    assert.deepEqual(
      r.hits.map((h) => h.message_id),
      maya().map((m) => m.id),
    );
    assert.deepEqual(
      r.rows.map((m) => m.hash),
      r.hits.map((h) => h.hash),
    );
    assert.equal(r.more, false);
    assert.equal(r.newest, false);
    const reacted = r.hits.find((h) => h.message_id === fx.marks.reacted.id)!;
    assert.deepEqual(reacted.reactions?.map((x) => x.emoji).sort(), ['❤️', '🔭'].sort());
    assert.match(reacted.link, new RegExp(`h=${fx.marks.reacted.hash.slice(0, 8)}`));
    assert.deepEqual(r.notes, []);
  });

  it('pages on from a position, in both orders, without losing or repeating a message', async () => {
    const want = maya().map((m) => m.id);
    const first = await readConversation(
      { conversation_id: fx.marks.mayaBirthday.conversationId, limit: 3 },
      undefined,
      calls.env(),
    );
    assert.equal(first.more, true);
    const rest = await readConversation({ limit: 10 }, positionAfter(first), calls.env());
    assert.deepEqual(
      [...first.rows, ...rest.rows].map((m) => m.id),
      want,
    );
    assert.equal(rest.more, false);

    const newest = await readConversation({ name: 'Maya', order: 'newest', limit: 2 }, undefined, calls.env());
    assert.deepEqual(
      newest.rows.map((m) => m.id),
      want.slice(-2).reverse(),
    );
    assert.equal(newest.rows[0].id, fx.marks.mayaLast.id);
    const older = await readConversation({ name: 'Maya', limit: 2 }, positionAfter(newest), calls.env());
    assert.equal(older.newest, true, 'the position keeps the order');
    assert.deepEqual(
      older.rows.map((m) => m.id),
      want.slice(-4, -2).reverse(),
    );
  });

  it('bounds the transcript by calendar days, and a position keeps them', async () => {
    const r = await readConversation({ name: 'Maya', start: '2024-03-10', limit: 1 }, undefined, calls.env());
    const inRange = maya().filter((m) => m.ts >= '2024-03-10');
    assert.equal(inRange.length, 3);
    assert.equal(r.rows[0].id, inRange[0].id);
    assert.equal(r.startUnix, Date.UTC(2024, 2, 10) / 1000);
    const next = await readConversation({}, { ...positionAfter(r), startUnix: r.startUnix }, calls.env());
    assert.deepEqual(
      next.rows.map((m) => m.id),
      inRange.slice(1).map((m) => m.id),
    );
  });

  it('clamps a limit above the maximum, with a note', async () => {
    const r = await readConversation({ name: 'Maya', limit: 10_000 }, undefined, calls.env());
    assert.deepEqual(r.notes, ['limit 10000 is above the maximum 500; used 500']);
  });

  it('says in one line what is wrong with a request', async () => {
    await assert.rejects(
      readConversation({}, undefined, calls.env()),
      /^ToolError: name or conversation_id is required/,
    );
    await assert.rejects(
      readConversation({ name: 'Maya', start: '2024-02-30' }, undefined, calls.env()),
      /start "2024-02-30" is not a real calendar date/,
    );
    const cid = fx.marks.mayaBirthday.conversationId;
    const at: TranscriptPosition = { conversationId: cid, tsUnix: fx.marks.mayaBirthday.tsUnix, id: 1 };
    await assert.rejects(
      readConversation({ order: 'newest' }, at, calls.env()),
      /this cursor continues order "oldest", not "newest"/,
    );
    await assert.rejects(
      readConversation({ name: 'Harper' }, at, calls.env()),
      new RegExp(`cursor belongs to conversation_id ${cid} \\("Maya"\\)`),
    );
    await assert.rejects(
      readConversation({}, { ...at, conversationId: 9999 }, calls.env()),
      /the conversation of this cursor \(id 9999\) no longer exists/,
    );
  });
});
