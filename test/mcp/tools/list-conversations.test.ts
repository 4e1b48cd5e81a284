/** list_conversations: every conversation with its facts, and its filters. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { CuratedArchive } from '../../fixtures/index';
import type { Harness } from '../harness';
import { toolFixture } from './tool-fixture';

let desc: CuratedArchive;
let h: Harness;
toolFixture((fx) => ({ desc, h } = fx));

describe('list_conversations', () => {
  test('every conversation with facts matching the fixture, including the empty one', async () => {
    const r = await h.ok<{ conversations: Record<string, unknown>[] }>('list_conversations');
    assert.equal(r.conversations.length, desc.conversations.length);
    for (const c of desc.conversations) {
      const got = r.conversations.find((x) => x.id === c.id)!;
      assert.ok(got, c.name);
      assert.equal(got.name, c.name);
      assert.equal(got.source, c.source);
      assert.equal(got.message_count, c.messageCount);
      assert.equal(got.images, c.images);
      assert.equal(got.videos, c.videos);
      assert.equal(got.files, c.files);
      assert.equal(got.links, c.distinctUrls);
      if (c.messageCount) {
        assert.equal(got.first_timestamp, c.firstTs);
        assert.equal(got.last_timestamp, c.lastTs);
      } else assert.equal(got.first_timestamp, undefined);
    }
  });

  test('source and name_contains filters; unknown source is an error listing the sources', async () => {
    const wa = await h.ok<{ conversations: { source: string }[] }>('list_conversations', { source: 'WhatsApp' });
    assert.ok(wa.conversations.length >= 2 && wa.conversations.every((c) => c.source === 'whatsapp'));
    const mj = await h.ok<{ conversations: { name: string; source: string }[] }>('list_conversations', {
      name_contains: 'mj',
    });
    assert.deepEqual(mj.conversations.map((c) => c.source).sort(), ['imessage', 'whatsapp']);
    const msg = await h.err('list_conversations', { source: 'telegram' });
    assert.match(msg, /unknown source "telegram"; this archive has "imessage", "signal", "whatsapp"/);
  });
});
