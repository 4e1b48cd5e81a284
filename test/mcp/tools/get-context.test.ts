/** get_context: the window around a message, found by id or hash. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { messagesOf, type CuratedArchive } from '../../fixtures/index';
import type { Harness } from '../harness';
import { toolFixture, type Hit } from './tool-fixture';

let desc: CuratedArchive;
let h: Harness;
toolFixture((fx) => ({ desc, h } = fx));

describe('get_context', () => {
  test('by message_id and by hash, chronological window around the target', async () => {
    const t = desc.marks.linkMapsFirst;
    const conv = messagesOf(desc, t.conversationId);
    const i = conv.findIndex((m) => m.id === t.id);
    const expected = conv.slice(Math.max(0, i - 2), i + 3).map((m) => m.id);
    const a = await h.ok<{
      messages: Hit[];
      message_id: number;
      hash: string;
      conversation_id: number;
      source: string;
    }>('get_context', { message_id: t.id, window: 2 });
    assert.deepEqual(
      a.messages.map((m) => m.message_id),
      expected,
    );
    assert.equal(a.hash, t.hash);
    assert.equal(a.source, 'signal');
    const b = await h.ok<{ messages: Hit[] }>('get_context', { hash: t.hash.toUpperCase(), window: 2 });
    assert.deepEqual(b.messages, a.messages);
    const zero = await h.ok<{ messages: Hit[] }>('get_context', { message_id: t.id, window: 0 });
    assert.deepEqual(
      zero.messages.map((m) => m.message_id),
      [t.id],
    );
    // Links only the conversation (for the model: size, dates, how to read it whole), never the message: that resource is this result again.
    const r = await h.call('get_context', { message_id: t.id, window: 2 });
    const links = r.content.filter((c) => c.type === 'resource_link');
    assert.deepEqual(
      links.map((c) => c.type === 'resource_link' && [c.uri, c.annotations]),
      [[`msgbrowse://conversation/${t.conversationId}`, undefined]],
    );
  });

  test('window clamped to 50; errors for unknown id, bad hash, missing target', async () => {
    const r = await h.ok<{ messages: Hit[]; notes?: string[] }>('get_context', {
      message_id: desc.marks.groupTripFirst.id,
      window: 60,
    });
    assert.deepEqual(r.notes, ['window 60 is above the maximum 50; used 50']);
    assert.equal(r.messages.length, 51);
    assert.match(await h.err('get_context', { message_id: 999999 }), /message 999999 not found/);
    assert.match(await h.err('get_context', { hash: 'abc' }), /64-character hex hash/);
    assert.match(await h.err('get_context', { hash: 'f'.repeat(64) }), /no message with hash/);
    assert.match(await h.err('get_context', {}), /message_id or hash is required/);
    // message_id + a hash that is not its own: the hash is followed (and said), never the id's message shown.
    const followed = await h.ok<{ message_id: number; hash: string; notes?: string[] }>('get_context', {
      message_id: desc.marks.leaseAgreement.id,
      hash: desc.marks.cjk.hash.slice(0, 16),
    });
    assert.equal(followed.message_id, desc.marks.cjk.id);
    assert.equal(followed.hash, desc.marks.cjk.hash);
    assert.match(followed.notes?.join('\n') ?? '', /this message moved after a re-import/);
    const exact = await h.ok<{ message_id: number; notes?: string[] }>('get_context', {
      message_id: desc.marks.cjk.id,
      hash: desc.marks.cjk.hash.slice(0, 16),
      window: 1,
    });
    assert.equal(exact.message_id, desc.marks.cjk.id);
    assert.equal(exact.notes, undefined);
    assert.match(
      await h.err('get_context', { message_id: desc.marks.cjk.id, hash: 'f'.repeat(16) }),
      /this message is no longer in the archive; it was message \d+/,
    );
    assert.match(await h.err('get_context', { message_id: desc.marks.cjk.id, hash: 'xyz' }), /h= prefix of its link/);
    assert.match(await h.err('get_context', { message_id: 0 }), /message_id must be at least 1/);
  });
});
