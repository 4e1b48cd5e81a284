/**
 * Every AsyncArchive method answers the same through the engine worker as in-thread, on the curated archive;
 * errors cross the boundary with their code and message (never a worker stack).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ArchiveError, inThread, openArchive, type AsyncArchive } from '../../src/archive';
import { ARCHIVE_METHODS, type ArchiveMethod } from '../../src/engine/protocol';
import { isEngineClient, startEngineWorker, type EngineClient } from '../../src/engine';
import {
  buildCuratedArchive,
  writeArchiveWithoutColumn,
  writeNonMsgbrowseSqlite,
  writeRandomBytesFile,
  type CuratedArchive,
} from '../fixtures';
import { outcome } from './outcome';

let dir: string;
let curated: CuratedArchive;
let local: AsyncArchive;
let worker: EngineClient;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-parity-'));
  curated = buildCuratedArchive(dir);
  local = inThread(await openArchive(curated.path));
  worker = await startEngineWorker({ archivePath: curated.path });
});

after(async () => {
  await worker?.close();
  await local?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Argument lists per method, built from the curated archive's description. */
function cases(): Record<ArchiveMethod, unknown[][]> {
  const m = curated.marks;
  const biggest = [...curated.conversations].sort((a, b) => b.messageCount - a.messageCount)[0];
  const some = curated.messages.slice(0, 40);
  const dup = curated.duplicateNames[0];
  return {
    summary: [[]],
    listConversations: [
      [],
      [{ source: 'signal' }],
      [{ nameContains: 'a' }],
      [{ source: 'whatsapp', nameContains: 'x' }],
    ],
    conversationById: [[biggest.id], [m.leaseAgreement.conversationId], [987654]],
    resolveConversation: [
      [biggest.name],
      [biggest.name, biggest.source],
      [dup],
      [biggest.name.slice(0, 3).toLowerCase()],
      ['no such conversation zzz'],
    ],
    resolveSender: [
      ['Me', {}],
      ['me', { conversationId: biggest.id }],
      ['harper', { source: 'signal' }],
      ['MJ', { conversationId: m.leaseAgreement.conversationId }],
      ['Harpr', {}],
      ['Nobody At All', { conversationId: biggest.id }],
    ],
    scopeCounts: [
      [{}],
      [{}, 'test-embed'],
      [{ conversationId: biggest.id }, 'test-embed'],
      [{ source: 'whatsapp', sender: 'Me' }, 'test-embed'],
      [{ sender: 'Me', startUnix: biggest.firstUnix, endUnix: biggest.lastUnix }],
      [{ conversationId: biggest.id, sender: 'nobody' }, 'no-such-model'],
    ],
    transcript: [
      [{ conversationId: biggest.id, limit: 5 }],
      [{ conversationId: biggest.id, limit: 5, after: { tsUnix: biggest.firstUnix, id: 0 } }],
      [{ conversationId: biggest.id, limit: 3, before: { tsUnix: biggest.lastUnix + 1, id: 0 } }],
      [{ conversationId: biggest.id, limit: 50, startUnix: biggest.firstUnix, endUnix: biggest.lastUnix - 1 }],
      [{ conversationId: 987654, limit: 5 }],
    ],
    conversationPage: [
      [{ conversationId: biggest.id, at: { kind: 'end' }, limit: 60 }],
      [
        {
          conversationId: m.reactionTarget.conversationId,
          at: { kind: 'around', messageId: m.imageCabin.id },
          limit: 6,
        },
      ],
      [{ conversationId: biggest.id, at: { kind: 'before', messageId: m.groupTripLast.id }, limit: 7 }],
      [{ conversationId: biggest.id, at: { kind: 'after', messageId: m.groupTripFirst.id }, limit: 7 }],
      [{ conversationId: biggest.id, at: { kind: 'around', messageId: m.cjk.id }, limit: 60 }],
      [{ conversationId: biggest.id, at: { kind: 'around', messageId: 987654 }, limit: 10 }],
      [{ conversationId: biggest.id, at: { kind: 'after', messageId: 987654 }, limit: 10 }],
      [{ conversationId: 987654, at: { kind: 'end' }, limit: 10 }],
      [{ conversationId: biggest.id, at: { kind: 'end' }, limit: 0 }],
    ],
    citationView: [
      [{ messageId: m.cjk.id, hash: m.cjk.hash.slice(0, 16), limit: 6 }],
      [{ messageId: m.cjk.id, conversationId: biggest.id, limit: 60 }],
      [{ messageId: m.leaseAgreement.id, hash: m.emoji.hash.slice(0, 16), limit: 6 }],
      [{ messageId: m.leaseAgreement.id, hash: m.emoji.hash.slice(0, 1), limit: 6 }],
      [{ messageId: 987654, hash: '0'.repeat(16), conversationId: biggest.id, limit: 6 }],
      [{ messageId: m.cjk.id, limit: 0 }],
    ],
    searchKeyword: [
      [{ query: 'lease', limit: 10 }],
      [{ query: 'the', limit: 5, source: 'signal' }],
      [{ query: 'cafe', limit: 10 }],
      [{ query: 'OR NEAR( "', limit: 10 }],
      [{ query: 'the', limit: 10, hasAttachment: true }],
      [{ query: 'the', limit: 10, hasLink: true, conversationId: m.linkMapsFirst.conversationId }],
      [{ query: '   ', limit: 10 }],
    ],
    searchKeywordBundle: [
      [{ query: 'lease', limit: 10 }, {}],
      [{ query: 'lease', limit: 10 }],
      [{ query: 'the', limit: 5, source: 'signal' }, { source: 'signal' }, 'test-embed'],
      [{ query: 'the', limit: 10, hasAttachment: true }, { hasAttachment: true }],
      [
        { query: 'cafe', limit: 10, conversationId: biggest.id },
        { conversationId: biggest.id, sender: 'Me' },
        'no-such-model',
      ],
      [{ query: '   ', limit: 10 }, {}],
    ],
    context: [
      [m.leaseAgreement.id, 3],
      [m.groupTripLast.id, 0],
      [987654, 2],
    ],
    contextView: [
      [{ messageId: m.leaseAgreement.id, window: 3 }],
      [{ messageId: m.leaseAgreement.id, hash: m.leaseAgreement.hash.slice(0, 16), window: 2 }],
      [{ messageId: m.leaseAgreement.id, hash: m.emoji.hash.slice(0, 16), window: 2 }],
      [{ messageId: m.leaseAgreement.id, hash: m.emoji.hash.slice(0, 1), window: 2 }],
      [{ hash: m.cjk.hash, window: 1 }],
      [{ hash: '0'.repeat(64), window: 1 }],
      [{ messageId: 987654, window: 2 }],
    ],
    attachments: [
      [{ kinds: ['image', 'file', 'video'], limit: 10 }],
      [{ kinds: ['image'], limit: 2, source: 'imessage' }],
      [{ kinds: ['video'], limit: 10, conversationId: m.videoDance.conversationId }],
    ],
    links: [
      [{ limit: 10 }],
      [{ limit: 10, domain: 'google.com' }],
      [{ limit: 1, conversationId: m.linkYelp.conversationId }],
    ],
    messageById: [[m.cjk.id], [m.scriptBody.id], [-1]],
    messageByHash: [[m.emoji.hash], ['0'.repeat(64)]],
    messagesByHashPrefix: [
      [m.emoji.hash.slice(0, 16), 2],
      [m.emoji.hash.slice(0, 1), 10],
      ['0'.repeat(20), 2],
      ['XYZ', 2],
    ],
    hitMessagesBundle: [
      [[m.reactionTarget.id, m.imageCabin.id, 987654, m.fileLease.id]],
      [[m.arabic.id, m.hebrew.id], {}, 'test-embed'],
      [[], { conversationId: biggest.id, sender: 'Me' }, 'no-such-model'],
      [[]],
      [some.map((x) => x.id)],
      [[m.arabic.id, 987654, m.hebrew.id]],
    ],
    embeddingModels: [[]],
    hitExtras: [
      [
        [m.reactionTarget.hash, m.imageCabin.hash, 'nope'],
        [m.reactionTarget.id, m.imageCabin.id, m.fileLease.id, 987654],
      ],
      [[], []],
      [[], [m.imageCabin.id, m.fileLease.id, m.videoDance.id, m.cjk.id]],
      [[m.reactionTarget.hash, m.leaseAgreement.hash, 'nope'], []],
    ],
    journalDay: [
      ['2022-03-01', Date.UTC(2022, 2, 1) / 1000],
      ['2022-03-05', Date.UTC(2022, 2, 5) / 1000],
      ['1999-01-01', Date.UTC(1999, 0, 1) / 1000],
    ],
    dayMessages: [
      [{ dayStartUnix: Date.UTC(2022, 2, 1) / 1000, limit: 3 }],
      [
        {
          dayStartUnix: Date.UTC(2022, 2, 1) / 1000,
          limit: 3,
          after: { conversationId: biggest.id, tsUnix: 0, id: 0 },
        },
      ],
      [{ dayStartUnix: Date.UTC(1999, 0, 1) / 1000, limit: 3 }],
    ],
    firstMessageYear: [[]],
    onThisDay: [
      [
        {
          days: [
            { day: '2022-03-01', startUnix: Date.UTC(2022, 2, 1) / 1000 },
            { day: '2021-03-01', startUnix: Date.UTC(2021, 2, 1) / 1000 },
          ],
          perDay: 2,
          limit: 3,
        },
      ],
      [{ days: [], perDay: 3, limit: 12 }],
    ],
    searchContacts: [
      ['harper', 10],
      ['MJ', 1],
      ['zoe', 10],
      ['no such person', 10],
    ],
    contactById: [[1], [987654]],
    contactsNamed: [['mj'], ['Harper'], ['nobody']],
    contactFacts: [[1], [987654]],
    messageIdsWith: [['attachment'], ['link']],
    senderNames: [[]],
    conversationSignatures: [[]],
    messageIdsWithPrefix: [
      ['1', 5],
      ['2', 100],
      ['0', 5],
      ['x', 5],
      ['99999999', 5],
    ],
  };
}

describe('engine worker: parity with the in-thread archive', () => {
  it('is recognisable as worker-backed', () => {
    assert.equal(isEngineClient(worker), true);
    assert.equal(isEngineClient(local), false);
    assert.equal(isEngineClient(null), false);
  });

  it('exposes the resolved archive path', () => {
    assert.equal(worker.path, local.path);
    assert.equal(worker.path, curated.path);
  });

  it('covers every forwarded method', () => {
    assert.deepEqual(Object.keys(cases()).sort(), [...ARCHIVE_METHODS].sort());
    for (const name of ARCHIVE_METHODS) assert.equal(typeof worker[name], 'function', name);
  });

  for (const name of ARCHIVE_METHODS) {
    it(`${name} gives the same results (and the same errors) through the worker`, async () => {
      const list = cases()[name];
      let successes = 0;
      for (const args of list) {
        const call = (a: AsyncArchive) => (a[name] as (...x: unknown[]) => Promise<unknown>)(...args);
        const expected = await outcome(() => call(local));
        const actual = await outcome(() => call(worker));
        assert.deepStrictEqual(actual, expected, `${name}(${JSON.stringify(args)})`);
        if (expected.ok) successes++;
      }
      assert.ok(successes > 0, `${name}: at least one case must succeed`);
    });
  }

  it('passes a trailing signal through without sending it to the worker', async () => {
    const ac = new AbortController();
    assert.deepStrictEqual(await worker.listConversations(undefined, ac.signal), await local.listConversations());
    assert.deepStrictEqual(
      await worker.context(curated.marks.leaseAgreement.id, 2, ac.signal),
      await local.context(curated.marks.leaseAgreement.id, 2),
    );
  });

  it('arguments that cannot be sent to the worker reject clearly (and the engine keeps working)', async () => {
    const bad = worker.searchKeyword as unknown as (o: unknown) => Promise<unknown>;
    await assert.rejects(
      bad({ query: 'lease', limit: 5, extra: () => 1 }),
      /Could not send the request to the search engine worker/,
    );
    assert.equal((await worker.summary()).messages, curated.messages.length);
  });

  it('a worker-side failure arrives as a plain Error with the message and no worker stack', async () => {
    const bad = worker.transcript as unknown as (o: unknown) => Promise<unknown>;
    const localBad = local.transcript as unknown as (o: unknown) => Promise<unknown>;
    const expected = await outcome(() => localBad(null));
    assert.equal(expected.ok, false, 'in-thread transcript(null) must fail');
    const err = await bad(null).then(
      () => assert.fail('transcript(null) must reject'),
      (e: unknown) => e as Error,
    );
    assert.equal(err.message, (expected as { message: string }).message);
    assert.ok(!/host\.ts|src[\\/]archive/.test(err.stack ?? ''), `stack leaked from the worker: ${err.stack}`);
  });
});

describe('engine worker: archive open errors keep their ArchiveError code and message', () => {
  const openCases: [string, (d: string) => string][] = [
    ['missing file', (d) => path.join(d, 'missing', 'msgbrowse.sqlite')],
    ['directory without an archive', (d) => fs.mkdtempSync(path.join(d, 'empty-'))],
    [
      'non-msgbrowse SQLite',
      (d) => {
        const f = path.join(d, 'other.sqlite');
        writeNonMsgbrowseSqlite(f);
        return f;
      },
    ],
    [
      'archive without messages.sender',
      (d) => writeArchiveWithoutColumn(path.join(d, 'no-sender.sqlite'), 'messages', 'sender'),
    ],
    [
      'random bytes',
      (d) => {
        const f = path.join(d, 'random.sqlite');
        writeRandomBytesFile(f);
        return f;
      },
    ],
  ];
  for (const [label, make] of openCases) {
    it(label, async () => {
      const p = make(dir);
      const expected = await openArchive(p).then(
        (a) => {
          a.close();
          return undefined;
        },
        (e: unknown) => e,
      );
      assert.ok(expected instanceof ArchiveError, `in-thread open of ${label} must fail with an ArchiveError`);
      const actual = await startEngineWorker({ archivePath: p }).then(
        async (c) => {
          await c.close();
          return undefined;
        },
        (e: unknown) => e,
      );
      assert.ok(actual instanceof ArchiveError, `worker open of ${label} must reject with an ArchiveError`);
      assert.equal(actual.code, expected.code);
      assert.equal(actual.message, expected.message);
      assert.equal(actual.path, expected.path);
    });
  }
});
