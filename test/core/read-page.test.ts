/**
 * The viewer's page use case: one archive call, attachments and reactions joined onto their messages exactly as
 * the viewer showed them before (reactions grouped by emoji in first-reaction order, shared hashes sharing them).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inThread, openArchive, type AsyncArchive, type ConversationPage, type MessageRow } from '../../src/archive';
import { readConversationPage, shapeConversationPage } from '../../src/core';
import { buildCuratedArchive, conversationOf, type CuratedArchive } from '../fixtures';

let tmp: string;
let desc: CuratedArchive;
let archive: AsyncArchive;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'core-conversation-page-'));
  desc = buildCuratedArchive(tmp);
  archive = inThread(await openArchive(tmp));
});
after(async () => {
  await archive?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const msg = (id: number, hash: string): MessageRow => ({
  id,
  hash,
  conversationId: 1,
  conversation: 'c',
  source: 'signal',
  sender: 's',
  ts: '2024-01-01 00:00:00',
  tsUnix: 1704067200 + id,
  body: `m${id}`,
  isSystem: false,
  seq: 0,
});

describe('core: conversation page', () => {
  it('groups attachments by message and reactions by emoji (first-reaction order); messages keep their fields', () => {
    const page: ConversationPage = {
      conversation: {
        id: 1,
        name: 'c',
        source: 'signal',
        messageCount: 3,
        firstTs: '',
        lastTs: '',
        lastUnix: 0,
        images: 1,
        files: 1,
        videos: 0,
        links: 0,
      },
      messages: [msg(1, 'h1'), msg(2, 'h2'), msg(3, 'h1')],
      hasBefore: true,
      hasAfter: false,
      attachments: [
        {
          id: 10,
          messageId: 1,
          conversationId: 1,
          conversation: 'c',
          source: 'signal',
          kind: 'image',
          relPath: 'a.jpg',
          originalName: 'a.jpg',
          ts: '',
          tsUnix: 0,
          messageHash: 'h1',
        },
        {
          id: 11,
          messageId: 1,
          conversationId: 1,
          conversation: 'c',
          source: 'signal',
          kind: 'file',
          relPath: 'b.pdf',
          originalName: 'b.pdf',
          ts: '',
          tsUnix: 0,
          messageHash: 'h1',
        },
      ],
      reactions: [
        { messageHash: 'h1', emoji: '👍', actor: 'A' },
        { messageHash: 'h1', emoji: '❤️', actor: 'B' },
        { messageHash: 'h1', emoji: '👍', actor: 'C' },
      ],
    };
    const view = shapeConversationPage(page);
    assert.deepEqual(view.conversation, page.conversation);
    assert.equal(view.anchor, undefined);
    assert.deepEqual([view.hasBefore, view.hasAfter], [true, false]);
    assert.deepEqual(
      view.messages.map((m) => m.attachments.map((a) => a.id)),
      [[10, 11], [], []],
    );
    const expected = [
      { emoji: '👍', actors: ['A', 'C'] },
      { emoji: '❤️', actors: ['B'] },
    ];
    assert.deepEqual(
      view.messages.map((m) => m.reactions),
      [expected, [], expected],
      'a shared hash shares its reactions',
    );
    const { attachments: _a, reactions: _r, ...row } = view.messages[1];
    assert.deepEqual(row, page.messages[1]);
  });

  it('reads the page in one archive call', async () => {
    const harper = conversationOf(desc, 'signal', 'Harper');
    const calls: string[] = [];
    const counting = new Proxy(archive, {
      get(target, prop, receiver) {
        const v: unknown = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          calls.push(String(prop));
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const target = desc.marks.reactionTarget;
    const view = await readConversationPage(counting, {
      conversationId: harper.id,
      at: { kind: 'around', messageId: target.id },
      limit: 60,
    });
    assert.deepEqual(calls, ['conversationPage']);
    assert.equal(view.anchor?.id, target.id);
    assert.equal(view.conversation?.name, 'Harper');
    const shown = view.messages.find((m) => m.id === target.id);
    assert.deepEqual(shown?.reactions, [
      { emoji: '👍', actors: ['Me', 'Harper'] },
      { emoji: '❤️', actors: ['Me'] },
    ]);
    const cabin = view.messages.find((m) => m.id === desc.marks.imageCabin.id);
    assert.deepEqual(
      cabin?.attachments.map((a) => a.originalName),
      ['cabin.jpg'],
    );
  });
});
