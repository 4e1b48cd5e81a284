/** list_media: attachments by kind, limit and has_more. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { CuratedArchive } from '../../fixtures/index';
import type { Harness } from '../harness';
import { toolFixture } from './tool-fixture';

let desc: CuratedArchive;
let h: Harness;
toolFixture((fx) => ({ desc, h } = fx));

describe('list_media', () => {
  test('videos supported; default is all kinds; limit is total; has_more', async () => {
    const vids = await h.ok<{ media: { kind: string; name: string }[] }>('list_media', { kind: 'video' });
    assert.equal(
      vids.media.length,
      desc.conversations.reduce((n, c) => n + c.videos, 0),
    );
    assert.ok(vids.media.every((m) => m.kind === 'video'));
    const all = await h.ok<{ media: { kind: string }[]; has_more: boolean }>('list_media', {});
    const total = desc.conversations.reduce((n, c) => n + c.images + c.files + c.videos, 0);
    assert.equal(all.media.length, total);
    assert.equal(all.has_more, false);
    assert.deepEqual([...new Set(all.media.map((m) => m.kind))].sort(), ['file', 'image', 'video']);
    const three = await h.ok<{ media: unknown[]; has_more: boolean }>('list_media', { limit: 3 });
    assert.equal(three.media.length, 3);
    assert.equal(three.has_more, true);
    assert.match(await h.err('list_media', { kind: 'IMAGE' }), /kind must be one of "image", "file", "video"/);
    const big = await h.ok<{ notes?: string[] }>('list_media', { limit: 5000 });
    assert.deepEqual(big.notes, ['limit 5000 is above the maximum 1000; used 1000']);
    const none = await h.ok<{ media: unknown[] }>('list_media', { conversation: 'Empty Thread' });
    assert.deepEqual(none.media, []);
  });
});
