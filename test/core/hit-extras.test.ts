/**
 * Extras read with their hits (issue 15: fewer archive round trips per search): knownExtras merges what several
 * archive calls read, a message's rows taken once, and withHitExtras asks the archive only for hits outside them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AsyncArchive, AttachmentRow, HitExtrasRows, ReactionRow } from '../../src/archive/types';
import { knownExtras, withHitExtras } from '../../src/core/hit-extras';

const reaction = (messageHash: string, emoji: string): ReactionRow => ({ messageHash, emoji, actor: 'Ada' });
const attachment = (messageId: number, originalName: string): AttachmentRow => ({
  id: messageId * 10,
  messageId,
  conversationId: 1,
  conversation: 'Ada',
  source: 'signal',
  kind: 'file',
  relPath: `a/${originalName}`,
  originalName,
  ts: '2025-01-01 10:00:00',
  tsUnix: 1735725600,
  messageHash: `h${messageId}`,
});

/** An archive whose hitExtras answers from `rows` and records what it was asked; any other method throws. */
function extrasArchive(rows: HitExtrasRows) {
  const asked: { hashes: string[]; ids: number[] }[] = [];
  const archive = {
    hitExtras: async (hashes: string[], ids: number[]) => {
      asked.push({ hashes, ids });
      return {
        reactions: rows.reactions.filter((r) => hashes.includes(r.messageHash)),
        attachments: rows.attachments.filter((a) => ids.includes(a.messageId)),
      };
    },
  } as unknown as AsyncArchive;
  return { archive, asked };
}

type Hit = {
  message_id: number;
  hash: string;
  reactions?: { emoji: string; actor: string }[];
  attachments?: { kind: string; name: string }[];
};
const hit = (id: number): Hit => ({ message_id: id, hash: `h${id}` });

describe('knownExtras', () => {
  it('takes a message read by two calls once, from the first', () => {
    const keyword = {
      hashes: ['h1', 'h2'],
      ids: [1, 2],
      rows: { reactions: [reaction('h1', '👍'), reaction('h2', '❤️')], attachments: [attachment(1, 'lease.pdf')] },
    };
    // Message 2 again (the other half found it too, read in another snapshot), and message 3 only here.
    const semantic = {
      hashes: ['h2', 'h3'],
      ids: [2, 3],
      rows: { reactions: [reaction('h2', '❤️'), reaction('h3', '😂')], attachments: [attachment(3, 'cabin.jpg')] },
    };
    const k = knownExtras([keyword, semantic]);
    assert.deepEqual([...k.hashes].sort(), ['h1', 'h2', 'h3']);
    assert.deepEqual([...k.ids].sort(), [1, 2, 3]);
    assert.deepEqual(k.rows.reactions, [reaction('h1', '👍'), reaction('h2', '❤️'), reaction('h3', '😂')]);
    assert.deepEqual(k.rows.attachments, [attachment(1, 'lease.pdf'), attachment(3, 'cabin.jpg')]);
  });

  it('with every hit known, withHitExtras asks nothing and each hit carries its rows once', async () => {
    const { archive, asked } = extrasArchive({ reactions: [], attachments: [] });
    const known = knownExtras([
      {
        hashes: ['h1', 'h2'],
        ids: [1, 2],
        rows: { reactions: [reaction('h2', '❤️')], attachments: [attachment(1, 'lease.pdf')] },
      },
      { hashes: ['h2'], ids: [2], rows: { reactions: [reaction('h2', '❤️')], attachments: [] } },
    ]);
    const hits = await withHitExtras(archive, [hit(1), hit(2)], false, undefined, known);
    assert.equal(asked.length, 0);
    assert.deepEqual(hits[1].reactions, [{ emoji: '❤️', actor: 'Ada' }]);
    assert.deepEqual(hits[0].attachments, [{ kind: 'file', name: 'lease.pdf' }]);
    assert.equal(hits[0].reactions, undefined);
  });

  it('asks the archive only for hits outside what is known', async () => {
    const { archive, asked } = extrasArchive({
      reactions: [reaction('h4', '🎉')],
      attachments: [attachment(4, 'x.pdf')],
    });
    const known = knownExtras([
      { hashes: ['h1'], ids: [1], rows: { reactions: [reaction('h1', '👍')], attachments: [] } },
    ]);
    const hits = await withHitExtras(archive, [hit(1), hit(4)], false, undefined, known);
    assert.deepEqual(asked, [{ hashes: ['h4'], ids: [4] }]);
    assert.deepEqual(
      hits.map((h) => h.reactions),
      [[{ emoji: '👍', actor: 'Ada' }], [{ emoji: '🎉', actor: 'Ada' }]],
    );
    assert.deepEqual(hits[1].attachments, [{ kind: 'file', name: 'x.pdf' }]);
  });
});
