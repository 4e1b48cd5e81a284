/**
 * Older schema versions: every version 1..16 opens and answers every query (feature-detected
 * columns: no source before v2, no embeddings before v3, no reactions before v6, attachments/links
 * without conversation_id/ts_unix before v7/v8), with v2 and v8 checked in detail.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openArchive } from '../../src/archive';
import { buildLegacyArchive, LEGACY_VERSIONS, type ArchiveDescription, type LegacyMark } from '../fixtures';

let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-legacy-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const byTsId = (x: { tsUnix: number; id: number }, y: { tsUnix: number; id: number }) =>
  x.tsUnix - y.tsUnix || x.id - y.id;

async function checkArchive(desc: ArchiveDescription<LegacyMark>): Promise<void> {
  const a = await openArchive(desc.path);
  try {
    assert.equal(a.schemaVersion, desc.version);
    const convs = a.listConversations();
    assert.equal(convs.length, desc.conversations.length);
    for (const c of desc.conversations) {
      const r = convs.find((x) => x.id === c.id);
      assert.ok(r, c.name);
      assert.deepEqual(
        [r.name, r.source, r.messageCount, r.firstTs, r.lastTs, r.images, r.files, r.videos, r.links],
        [c.name, c.source, c.messageCount, c.firstTs, c.lastTs, c.images, c.files, c.videos, c.distinctUrls],
        `v${desc.version} ${c.name}`,
      );
      const page = a.transcript({ conversationId: c.id, limit: 100 });
      assert.deepEqual(
        page.messages.map((m) => [m.id, m.source, m.hash]),
        desc.messages
          .filter((m) => m.conversationId === c.id)
          .sort(byTsId)
          .map((m) => [m.id, m.source, m.hash]),
      );
    }
    const s = a.summary();
    assert.equal(s.messages, desc.messages.length);
    assert.equal(s.schemaVersion, desc.version);

    const lease = a.searchKeyword({ query: 'lease', limit: 20 });
    assert.deepEqual(
      lease.map((h) => h.id).sort((x, y) => x - y),
      desc.messages
        .filter((m) => /\blease/.test(m.body))
        .map((m) => m.id)
        .sort((x, y) => x - y),
    );
    assert.equal(a.searchKeyword({ query: 'lease', source: 'signal', limit: 20, hasAttachment: true }).length, 1);
    assert.deepEqual(
      a.searchKeyword({ query: 'cafe', limit: 5 }).map((h) => h.snippet),
      ['\u0002café\u0003 crème at nine'],
    );

    const ctx = a.context(desc.marks.lease.id, 2);
    assert.deepEqual(ctx?.[0].id, desc.marks.lease.id);

    const allAtts = desc.messages.flatMap((m) => m.attachments.map((x) => ({ ...x, m })));
    const atts = a.attachments({ kinds: ['image', 'file', 'video'], limit: 100 });
    assert.deepEqual(
      atts.items.map((x) => [x.id, x.kind, x.conversationId, x.tsUnix, x.source, x.messageHash]),
      [...allAtts]
        .sort((p, q) => q.m.tsUnix - p.m.tsUnix || q.id - p.id)
        .map((x) => [x.id, x.kind, x.m.conversationId, x.m.tsUnix, x.m.source, x.m.hash]),
    );
    const harper = desc.conversations.find((c) => c.name === 'Harper');
    assert.ok(harper);
    assert.deepEqual(
      a.attachments({ kinds: ['image'], conversationId: harper.id, limit: 10 }).items.map((x) => x.originalName),
      ['cabin.jpg'],
    );
    assert.deepEqual(
      a
        .attachments({ kinds: ['image'], endUnix: Date.UTC(2022, 2, 31) / 1000, limit: 10 })
        .items.map((x) => x.originalName),
      ['cabin.jpg'],
    );

    const links = a.links({ domain: 'example.com', limit: 10 });
    const linkMark = desc.marks.link;
    assert.ok(
      links.items.some(
        (l) =>
          l.messageId === linkMark.id &&
          l.messageHash === linkMark.hash &&
          l.tsUnix === linkMark.tsUnix &&
          l.conversationId === linkMark.conversationId,
      ),
    );
    assert.equal(a.links({ source: 'signal', limit: 10 }).items.length > 0, true);

    const reactions = a.hitExtras([linkMark.hash], []).reactions;
    assert.deepEqual(
      reactions.map((r) => r.emoji),
      desc.version >= 6 ? ['👍'] : [],
    );
    const models = a.embeddingModels();
    assert.deepEqual(
      models.map((m) => m.model),
      desc.embeddings.map((e) => e.model).sort(),
    );
    for (const m of models) {
      const n = [...a.embeddings(m.model)].length;
      const facts = desc.embeddings.find((e) => e.model === m.model);
      assert.equal(n, (facts?.count ?? 0) - (facts?.orphanHashes.length ?? 0));
    }
    if (desc.version < 3) assert.deepEqual([...a.embeddings('test-embed')], []);
  } finally {
    a.close();
  }
}

describe('legacy schema versions', () => {
  it('v2 in detail: no attachment/link conversation_id/ts_unix, no embeddings, no reactions, source columns present', async () => {
    const desc = buildLegacyArchive(path.join(tmp, 'v2'), 2);
    assert.equal(desc.version, 2);
    await checkArchive(desc);
    const a = await openArchive(desc.path);
    try {
      assert.deepEqual(
        a
          .listConversations()
          .map((c) => c.source)
          .sort(),
        desc.conversations.map((c) => c.source).sort(),
      );
      assert.equal(a.resolveConversation('MJ').kind, 'found');
      // Videos were stored as kind 'file' before v16.
      assert.deepEqual(a.attachments({ kinds: ['video'], limit: 10 }).items, []);
    } finally {
      a.close();
    }
  });

  it('v8 in detail: denormalized attachment/link columns present, no video kind yet', async () => {
    const desc = buildLegacyArchive(path.join(tmp, 'v8'), 8);
    await checkArchive(desc);
  });

  it('every version 1..16 answers every query', async () => {
    for (const v of LEGACY_VERSIONS) {
      const desc = buildLegacyArchive(path.join(tmp, `all-v${v}`), v);
      await checkArchive(desc);
      if (v === 1) {
        const a = await openArchive(desc.path);
        try {
          assert.ok(
            a.listConversations().every((c) => c.source === 'signal'),
            'pre-v2: everything is signal',
          );
          assert.equal(a.searchKeyword({ query: 'lease', source: 'signal', limit: 10 }).length > 0, true);
          assert.equal(a.searchKeyword({ query: 'lease', source: 'imessage', limit: 10 }).length, 0);
        } finally {
          a.close();
        }
      }
    }
  });
});
