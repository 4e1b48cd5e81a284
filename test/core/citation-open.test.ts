/**
 * Opening a citation in the viewer (core/citation-open.ts) is one archive call — one engine-worker round trip — and
 * gives what the separate calls give: resolveCitation's resolution, readConversationPage's page around the cited
 * message and the digest of its day.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { inThread, openArchive } from '../../src/archive';
import type { AsyncArchive, CitationViewRequest } from '../../src/archive/types';
import { openCitation } from '../../src/core/citation-open';
import { type CitedMessage, resolveCitation } from '../../src/core/citation-resolve';
import { digestOf } from '../../src/core/journal-days';
import { readConversationPage } from '../../src/core/read-page';
import { startEngineWorker } from '../../src/engine';
import {
  buildCuratedArchive,
  buildExcludedArchive,
  buildJournalArchive,
  buildReimportArchive,
  type CuratedArchive,
  type ExcludedArchive,
  type JournalArchive,
  type Reimported,
  type ReimportFixture,
  reimportConversation,
} from '../fixtures';

const LIMIT = 6;
let root: string;
let fx: ReimportFixture;
let re: Reimported;
let curated: CuratedArchive;
let journal: JournalArchive;
let excluded: ExcludedArchive;
const opened: AsyncArchive[] = [];

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-citation-open-'));
  fx = buildReimportArchive(path.join(root, 'reimport'));
  re = reimportConversation(fx);
  curated = buildCuratedArchive(path.join(root, 'curated'));
  journal = buildJournalArchive(path.join(root, 'journal'));
  excluded = buildExcludedArchive(path.join(root, 'excluded'));
});
after(async () => {
  for (const a of opened) await a.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function open(file: string): Promise<AsyncArchive> {
  const a = inThread(await openArchive(file));
  opened.push(a);
  return a;
}

/** The archive, recording the name of every method called on it. */
function counting(archive: AsyncArchive): { archive: AsyncArchive; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(archive, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return (...a: unknown[]) => {
        calls.push(prop);
        return (v as (...x: unknown[]) => unknown).apply(target, a);
      };
    },
  });
  return { archive: proxy, calls };
}

/** What the separate calls give: the resolution, then the page around the cited message and its UTC day's digest. */
async function separately(archive: AsyncArchive, cited: CitedMessage, conversationId?: number) {
  const resolution = await resolveCitation(archive, cited);
  const target = resolution.status === 'gone' ? undefined : resolution.message;
  const paged = conversationId ?? target?.conversationId;
  if (paged === undefined) return { resolution, digest: null };
  const page = await readConversationPage(archive, {
    conversationId: paged,
    at: target?.conversationId === paged ? { kind: 'around', messageId: target.id } : { kind: 'end' },
    limit: LIMIT,
  });
  if (!page.anchor) return { resolution, page, digest: null };
  const start = Math.floor(page.anchor.tsUnix / 86_400) * 86_400;
  const day = new Date(start * 1000).toISOString().slice(0, 10);
  const digest = digestOf(await archive.journalDay(day, start));
  return { resolution, page, digest: digest && { ...digest, day } };
}

/** Opens `cited` through a counting archive: one call, and the separate calls' answer. */
async function openOnce(archive: AsyncArchive, cited: CitedMessage, conversationId?: number) {
  const c = counting(archive);
  const got = await openCitation(c.archive, cited, { limit: LIMIT, ...(conversationId ? { conversationId } : {}) });
  assert.deepEqual(c.calls, ['citationView'], 'one archive call');
  assert.deepEqual(got, await separately(archive, cited, conversationId));
  return got;
}

const byHash = (hash: string) => re.after.find((m) => m.hash === hash);

describe('openCitation', () => {
  it('exact: the id still holds the hash; the page is around it', async () => {
    const a = await open(fx.path);
    const d = fx.before[3];
    assert.equal(byHash(d.hash)?.id, d.id, 'D kept its id');
    const got = await openOnce(a, { conversationId: d.conversationId, messageId: d.id, hash: d.hash.slice(0, 16) });
    assert.equal(got.resolution.status === 'exact' && got.resolution.checked, true);
    assert.equal(got.page?.anchor?.hash, d.hash);
    assert.ok(got.page?.messages.some((m) => m.id === d.id));
  });

  it('moved after a re-import: followed to its new id, said, paged there', async () => {
    const a = await open(fx.path);
    const old = fx.before[0];
    const now = byHash(old.hash);
    assert.ok(now && now.id !== old.id);
    const got = await openOnce(a, {
      conversationId: old.conversationId,
      messageId: old.id,
      hash: old.hash.slice(0, 16),
    });
    assert.equal(got.resolution.status, 'moved');
    assert.match(got.resolution.status === 'moved' ? got.resolution.note : '', /moved after a re-import.*now message/);
    assert.equal(got.page?.anchor?.id, now.id);
    assert.equal(got.page?.anchor?.hash, old.hash);
  });

  it('gone: never another message; nothing paged, or a viewer conversation’s end', async () => {
    const a = await open(fx.path);
    const d = re.dropped;
    const cited = { conversationId: d.conversationId, messageId: d.id, hash: d.hash.slice(0, 16) };
    const got = await openOnce(a, cited);
    assert.equal(got.resolution.status, 'gone');
    assert.match(got.resolution.status === 'gone' ? got.resolution.note : '', /no longer in the archive.*another/);
    assert.equal(got.page, undefined);
    const inViewer = await openOnce(a, cited, fx.conversation.id);
    assert.equal(inViewer.page?.anchor, undefined);
    assert.ok(inViewer.page?.messages.length);
    assert.equal(inViewer.digest, null);
  });

  it('a hash too short to name one message: gone', async () => {
    const a = await open(curated.path);
    const m = curated.messages[0];
    const other = curated.messages.find((x) => x.hash[0] !== m.hash[0]);
    assert.ok(other);
    const got = await openOnce(a, { conversationId: other.conversationId, messageId: other.id, hash: m.hash[0] });
    assert.match(got.resolution.status === 'gone' ? got.resolution.note : '', /too short to name one message/);
  });

  it('no hash: the id, unchecked; an unknown id is gone', async () => {
    const a = await open(fx.path);
    const b = re.after[2];
    const got = await openOnce(a, { conversationId: b.conversationId, messageId: b.id }, b.conversationId);
    assert.equal(got.resolution.status === 'exact' && got.resolution.checked, false);
    assert.equal(got.page?.anchor?.id, b.id);
    const unknown = await openOnce(a, { conversationId: b.conversationId, messageId: 987654 }, b.conversationId);
    assert.equal(unknown.resolution.status, 'gone');
    assert.equal(unknown.page?.anchor, undefined);
    // A message of another conversation is not paged in this one.
    const elsewhere = fx.untouched[0];
    const other = await openOnce(a, { conversationId: b.conversationId, messageId: elsewhere.id }, b.conversationId);
    assert.equal(other.resolution.status === 'exact' && other.resolution.message.id, elsewhere.id);
    assert.equal(other.page?.anchor, undefined);
  });

  it('carries the digest of the cited message’s day', async () => {
    const a = await open(journal.path);
    const day = journal.digests.fresh[0];
    assert.ok(day, 'the journal archive has a fresh digest');
    const m = journal.messages.find((x) => x.ts.startsWith(day) && !x.isSystem);
    assert.ok(m);
    const got = await openOnce(a, { conversationId: m.conversationId, messageId: m.id, hash: m.hash.slice(0, 16) });
    assert.equal(got.digest?.day, day);
  });

  it('opens without the digest when the day cannot be read (a timestamp in microseconds)', async () => {
    const file = path.join(root, 'microseconds.sqlite');
    fs.copyFileSync(journal.path, file);
    const m = journal.messages.find((x) => !x.isSystem)!;
    const db = new Database(file);
    db.prepare('UPDATE messages SET ts_unix = ts_unix * 1000000 WHERE id = ?').run(m.id);
    db.close();
    const got = await openCitation(await open(file), { messageId: m.id, hash: m.hash.slice(0, 16) }, { limit: LIMIT });
    assert.equal(got.resolution.status, 'exact');
    assert.equal(got.page?.anchor?.id, m.id);
    assert.equal(got.digest, null);
  });

  it('answers as if hidden conversations did not exist', async () => {
    const a = (await open(excluded.path)).excluding([{ name: 'Zephyr Quarry' }]);
    const hidden = excluded.desc.messages.find(
      (m) => excluded.desc.conversations.find((c) => c.id === m.conversationId)?.name === 'Zephyr Quarry',
    );
    assert.ok(hidden);
    const got = await openOnce(a, {
      conversationId: hidden.conversationId,
      messageId: hidden.id,
      hash: hidden.hash.slice(0, 16),
    });
    assert.equal(got.resolution.status, 'gone');
    assert.equal(got.page, undefined);
    const inViewer = await openOnce(
      a,
      { conversationId: hidden.conversationId, messageId: hidden.id },
      hidden.conversationId,
    );
    assert.equal(inViewer.page?.conversation, undefined);
    const kept = excluded.desc.messages.find((m) => !excluded.hiddenIds.includes(m.conversationId));
    assert.ok(kept);
    const shown = await openOnce(a, { conversationId: kept.conversationId, messageId: kept.id, hash: kept.hash });
    assert.equal(shown.page?.anchor?.id, kept.id);
  });
});

describe('openCitation through the engine worker', () => {
  it('is one round trip, with the in-thread answer', async () => {
    const local = await open(fx.path);
    const worker = await startEngineWorker({ archivePath: fx.path });
    const sent: string[] = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (this: Worker, msg: unknown, transfer?: never) {
      const m = msg as { type?: string; method?: string };
      if (m?.type === 'call') sent.push(m.method ?? '?');
      return post.call(this, msg, transfer);
    };
    try {
      const old = fx.before[0];
      const cited = { conversationId: old.conversationId, messageId: old.id, hash: old.hash.slice(0, 16) };
      const got = await openCitation(worker, cited, { limit: LIMIT });
      assert.deepEqual(sent, ['citationView']);
      assert.equal(got.resolution.status, 'moved');
      assert.deepStrictEqual(got, await openCitation(local, cited, { limit: LIMIT }));
      // The method itself answers the same both ways.
      const requests: CitationViewRequest[] = [
        { messageId: old.id, hash: old.hash.slice(0, 16), limit: 4 },
        { messageId: re.dropped.id, hash: re.dropped.hash, conversationId: fx.conversation.id, limit: 4 },
        { messageId: old.id, limit: 4 },
        { messageId: 987654, conversationId: 987654, limit: 4 },
        { messageId: old.id, hash: '', limit: 4 },
      ];
      for (const req of requests) {
        assert.deepStrictEqual(await worker.citationView(req), await local.citationView(req), JSON.stringify(req));
      }
    } finally {
      Worker.prototype.postMessage = post;
      await worker.close();
    }
  });
});
