/**
 * conversationPage — the viewer's one-call page — against the curated archive and two legacy schemas: windows and
 * edge flags checked against oracles computed from what the fixture writer stored; attachments, reactions and the
 * conversation row equal to what the separate point queries return.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ArchiveError, openArchive, type Archive, type ConversationPage } from '../../src/archive';
import {
  buildCuratedArchive,
  buildLegacyArchive,
  conversationOf,
  messagesOf,
  type ArchiveDescription,
  type CuratedArchive,
  type WrittenAttachment,
} from '../fixtures';

let tmp: string;
let desc: CuratedArchive;
let a: Archive;

const ids = (rows: { id: number }[]) => rows.map((r) => r.id);
/** Attachments as the extras query orders them: by message id, then attachment id. */
const byMessageThenId = (x: WrittenAttachment, y: WrittenAttachment) => x.messageId - y.messageId || x.id - y.id;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-conversation-page-'));
  desc = buildCuratedArchive(path.join(tmp, 'curated'));
  a = await openArchive(path.join(tmp, 'curated'));
});
after(() => {
  a?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The page's extras are exactly what the separate queries give for its messages. */
function assertComposed(archive: Archive, page: ConversationPage, conversationId: number): void {
  assert.deepEqual(page.conversation, archive.conversationById(conversationId));
  assert.deepEqual(page.attachments, archive.hitExtras([], ids(page.messages)).attachments);
  assert.deepEqual(
    page.reactions,
    archive.hitExtras(
      page.messages.map((m) => m.hash),
      [],
    ).reactions,
  );
}

describe('conversationPage', () => {
  it('end: the latest `limit` messages, more before, none after', () => {
    const trip = conversationOf(desc, 'signal', 'Group Trip');
    const all = messagesOf(desc, trip.id);
    const page = a.conversationPage({ conversationId: trip.id, at: { kind: 'end' }, limit: 60 });
    assert.deepEqual(ids(page.messages), ids(all.slice(-60)));
    assert.equal(page.hasBefore, true);
    assert.equal(page.hasAfter, false);
    assert.equal(page.anchor, undefined);
    assert.deepEqual(
      page.messages,
      a.transcript({ conversationId: trip.id, limit: 60, before: { tsUnix: 2 ** 53 - 1, id: 2 ** 53 - 1 } }).messages,
    );
    assertComposed(a, page, trip.id);
    const whole = a.conversationPage({ conversationId: trip.id, at: { kind: 'end' }, limit: all.length });
    assert.deepEqual([whole.hasBefore, whole.hasAfter], [false, false], 'a page holding the whole conversation');
  });

  it('around: half the page before the anchor, the anchor, the rest after; flags at both edges', () => {
    const trip = conversationOf(desc, 'signal', 'Group Trip');
    const all = messagesOf(desc, trip.id);
    const mid = all[100];
    const page = a.conversationPage({ conversationId: trip.id, at: { kind: 'around', messageId: mid.id }, limit: 60 });
    assert.deepEqual(ids(page.messages), ids(all.slice(70, 131)));
    assert.equal(page.anchor?.id, mid.id);
    assert.deepEqual([page.hasBefore, page.hasAfter], [true, true]);
    assertComposed(a, page, trip.id);

    const first = a.conversationPage({
      conversationId: trip.id,
      at: { kind: 'around', messageId: desc.marks.groupTripFirst.id },
      limit: 60,
    });
    assert.deepEqual(ids(first.messages), ids(all.slice(0, 31)));
    assert.deepEqual([first.hasBefore, first.hasAfter], [false, true]);

    const last = a.conversationPage({
      conversationId: trip.id,
      at: { kind: 'around', messageId: desc.marks.groupTripLast.id },
      limit: 60,
    });
    assert.deepEqual(ids(last.messages), ids(all.slice(-31)));
    assert.deepEqual([last.hasBefore, last.hasAfter], [true, false]);

    const tiny = a.conversationPage({ conversationId: trip.id, at: { kind: 'around', messageId: mid.id }, limit: 1 });
    assert.deepEqual(ids(tiny.messages), [all[99].id, mid.id], 'limit 1: one before and the anchor');
  });

  it('around a same-second message keeps (ts_unix, id) order and includes the anchor', () => {
    const harper = conversationOf(desc, 'signal', 'Harper');
    const all = messagesOf(desc, harper.id);
    const b = desc.marks.sameSecondB;
    const i = all.findIndex((m) => m.id === b.id);
    const page = a.conversationPage({ conversationId: harper.id, at: { kind: 'around', messageId: b.id }, limit: 4 });
    assert.deepEqual(ids(page.messages), ids(all.slice(i - 2, i + 3)));
    assert.ok(ids(page.messages).includes(desc.marks.sameSecondA.id));
  });

  it('before / after: strictly beside the anchor; scrolling page by page walks the whole conversation', () => {
    const trip = conversationOf(desc, 'signal', 'Group Trip');
    const all = messagesOf(desc, trip.id);
    const back: number[] = [];
    let edge = desc.marks.groupTripLast.id;
    for (let more = true, n = 0; more; n++) {
      assert.ok(n < 100, 'paging backwards must end');
      const p = a.conversationPage({ conversationId: trip.id, at: { kind: 'before', messageId: edge }, limit: 37 });
      assert.equal(p.anchor?.id, edge);
      assert.equal(p.hasAfter, true, 'the anchor follows a before page');
      assertComposed(a, p, trip.id);
      back.unshift(...ids(p.messages));
      more = p.hasBefore;
      if (more) edge = p.messages[0].id;
    }
    assert.deepEqual(back, ids(all.slice(0, -1)));

    const fwd: number[] = [];
    edge = desc.marks.groupTripFirst.id;
    for (let more = true, n = 0; more; n++) {
      assert.ok(n < 100, 'paging forwards must end');
      const p = a.conversationPage({ conversationId: trip.id, at: { kind: 'after', messageId: edge }, limit: 37 });
      assert.equal(p.hasBefore, true, 'the anchor precedes an after page');
      fwd.push(...ids(p.messages));
      more = p.hasAfter;
      if (more) edge = p.messages[p.messages.length - 1].id;
    }
    assert.deepEqual(fwd, ids(all.slice(1)));

    const none = a.conversationPage({
      conversationId: trip.id,
      at: { kind: 'before', messageId: desc.marks.groupTripFirst.id },
      limit: 10,
    });
    assert.deepEqual([none.messages, none.hasBefore, none.hasAfter], [[], false, false]);
  });

  it('carries attachments and reactions of exactly the page messages', () => {
    const harper = conversationOf(desc, 'signal', 'Harper');
    const all = messagesOf(desc, harper.id);
    const page = a.conversationPage({ conversationId: harper.id, at: { kind: 'end' }, limit: 100 });
    assert.deepEqual(ids(page.messages), ids(all));
    assertComposed(a, page, harper.id);
    assert.deepEqual(
      page.attachments.map((x) => [x.id, x.messageId, x.kind, x.originalName]),
      all
        .flatMap((m) => m.attachments)
        .sort(byMessageThenId)
        .map((x) => [x.id, x.messageId, x.kind, x.originalName]),
    );
    const target = desc.marks.reactionTarget;
    assert.deepEqual(
      page.reactions.filter((r) => r.messageHash === target.hash).map((r) => [r.emoji, r.actor]),
      target.reactions.map((r) => [r.emoji, r.actor]),
    );
    assert.equal(page.reactions.length, harper.reactions);
    const cabin = a.conversationPage({
      conversationId: harper.id,
      at: { kind: 'after', messageId: desc.marks.imageCabin.id - 1 },
      limit: 1,
    });
    assert.deepEqual(ids(cabin.messages), [desc.marks.imageCabin.id]);
    assert.deepEqual(
      cabin.attachments.map((x) => x.originalName),
      ['cabin.jpg'],
    );
    assert.deepEqual(cabin.reactions, []);
  });

  it('unknown conversation, unknown anchor, anchor of another conversation', () => {
    const trip = conversationOf(desc, 'signal', 'Group Trip');
    const empty = { messages: [], hasBefore: false, hasAfter: false, attachments: [], reactions: [] };
    assert.deepEqual(
      a.conversationPage({ conversationId: 99999, at: { kind: 'around', messageId: desc.marks.cjk.id }, limit: 10 }),
      empty,
    );

    const lost = a.conversationPage({ conversationId: trip.id, at: { kind: 'around', messageId: 99999 }, limit: 10 });
    assert.equal(lost.anchor, undefined);
    assert.deepEqual(
      lost,
      a.conversationPage({ conversationId: trip.id, at: { kind: 'end' }, limit: 10 }),
      'around an unknown message: the end',
    );
    assert.deepEqual(
      a.conversationPage({ conversationId: trip.id, at: { kind: 'after', messageId: 99999 }, limit: 10 }),
      {
        conversation: a.conversationById(trip.id),
        ...empty,
      },
    );

    const elsewhere = a.conversationPage({
      conversationId: trip.id,
      at: { kind: 'around', messageId: desc.marks.cjk.id },
      limit: 10,
    });
    assert.deepEqual(elsewhere, {
      conversation: a.conversationById(trip.id),
      anchor: a.messageById(desc.marks.cjk.id),
      ...empty,
    });
    assert.notEqual(elsewhere.anchor?.conversationId, trip.id);
  });

  it('an empty conversation has an empty end page', () => {
    const e = conversationOf(desc, desc.emptyConversation.source, desc.emptyConversation.name);
    const page = a.conversationPage({ conversationId: e.id, at: { kind: 'end' }, limit: 10 });
    assert.equal(page.conversation?.messageCount, 0);
    assert.deepEqual([page.messages, page.hasBefore, page.hasAfter], [[], false, false]);
  });

  it('rejects a non-positive limit with a clear error', () => {
    assert.throws(
      () => a.conversationPage({ conversationId: 1, at: { kind: 'end' }, limit: 0 }),
      (e: unknown) => e instanceof ArchiveError && /limit must be a positive integer/.test(e.message),
    );
  });

  for (const version of [2, 8]) {
    it(`legacy schema v${version}: same composition (no reactions before v6)`, async () => {
      const d: ArchiveDescription = buildLegacyArchive(path.join(tmp, `v${version}`), version);
      const la = await openArchive(d.path);
      try {
        for (const c of d.conversations) {
          const all = messagesOf(d, c.id);
          const page = la.conversationPage({ conversationId: c.id, at: { kind: 'end' }, limit: 1000 });
          assert.deepEqual(ids(page.messages), ids(all), c.name);
          assertComposed(la, page, c.id);
          assert.deepEqual(
            page.attachments.map((x) => x.id),
            all
              .flatMap((m) => m.attachments)
              .sort(byMessageThenId)
              .map((x) => x.id),
          );
          if (version < 6) assert.deepEqual(page.reactions, []);
        }
      } finally {
        la.close();
      }
    });
  }
});
