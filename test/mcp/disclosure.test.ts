/**
 * The disclosure hook at the MCP boundary (src/mcp/disclosure.ts): every tool call and resources/read — successful
 * or failed — reaches ctx.disclose once, with the client's clientInfo, the arguments and every message the result
 * names (by hash), found generically in structuredContent and JSON resource contents.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Disclosure } from '../../src/core/ledger';
import { messageResourceUri, conversationResourceUri } from '../../src/core/citation-format';
import { buildCuratedArchive, type CuratedArchive } from '../fixtures/index';
import { startHarness, tempDir, type Harness } from './harness';

let dir: string;
let desc: CuratedArchive;
let h: Harness;
const seen: Disclosure[] = [];

before(async () => {
  dir = tempDir('mcp-disclosure');
  desc = buildCuratedArchive(dir);
  h = await startHarness({ archivePath: desc.path });
  h.ctx.disclose = (d) => seen.push(d);
});
after(async () => {
  await h?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs `fn` and returns the one disclosure it caused. */
async function one(fn: () => Promise<unknown>): Promise<Disclosure> {
  const before = seen.length;
  await fn().catch(() => undefined);
  assert.equal(seen.length, before + 1, 'exactly one disclosure per call');
  return seen[seen.length - 1];
}

const hashOf = (id: number) => desc.messages.find((m) => m.id === id)!.hash;

describe('disclosure of tool calls', () => {
  test('search_messages: time, client, tool, arguments and the hash of every hit', async () => {
    let hits: { message_id: number; hash: string; conversation_id: number }[] = [];
    const d = await one(async () => {
      hits = (await h.ok<{ hits: typeof hits }>('search_messages', { query: 'lease' })).hits;
    });
    assert.ok(hits.length > 0);
    assert.equal(d.kind, 'tool');
    assert.equal(d.name, 'search_messages');
    assert.deepEqual(d.arguments, { query: 'lease' });
    assert.equal(d.ok, true);
    assert.deepEqual(d.client, { name: 'mcp-test', version: '1.0.0' });
    assert.ok(Math.abs(Date.parse(d.time) - Date.now()) < 60_000, d.time);
    assert.deepEqual(
      d.messages,
      hits.map((x) => ({ hash: x.hash, message_id: x.message_id, conversation_id: x.conversation_id })),
    );
    for (const m of d.messages) assert.equal(m.hash, hashOf(m.message_id!));
  });

  test('get_context and get_conversation: every message returned', async () => {
    const lease = desc.marks.leaseAgreement;
    const ctx = await one(() => h.ok('get_context', { message_id: lease.id, window: 2 }));
    assert.ok(ctx.messages.some((m) => m.hash === lease.hash));
    assert.ok(ctx.messages.length >= 3, JSON.stringify(ctx.messages));
    const conv = await one(() => h.ok('get_conversation', { conversation_id: lease.conversationId, limit: 5 }));
    assert.equal(conv.messages.length, 5);
    assert.ok(
      conv.messages.every((m) => m.conversation_id === lease.conversationId && m.hash === hashOf(m.message_id!)),
    );
  });

  test("list_media and list_links: items without a hash field are named by their link's ?h= anchor", async () => {
    const media = await one(() => h.ok('list_media', {}));
    assert.ok(media.messages.length > 0);
    for (const m of media.messages) {
      assert.equal(m.hash.length, 16);
      assert.ok(hashOf(m.message_id!).startsWith(m.hash));
    }
    const links = await one(() => h.ok('list_links', {}));
    assert.ok(links.messages.length > 0);
    for (const m of links.messages) assert.ok(hashOf(m.message_id!).startsWith(m.hash));
  });

  test('list_conversations discloses no message; a failed call is recorded with its error', async () => {
    const list = await one(() => h.ok('list_conversations', {}));
    assert.deepEqual(list.messages, []);
    assert.equal(list.ok, true);
    const bad = await one(() => h.err('get_conversation', { name: 'Nobody At All' }));
    assert.equal(bad.ok, false);
    assert.match(bad.error ?? '', /not found/);
    assert.deepEqual(bad.arguments, { name: 'Nobody At All' });
    assert.deepEqual(bad.messages, []);
  });
});

describe('disclosure of resource reads', () => {
  test('a message resource: the message and its context, by hash', async () => {
    const lease = desc.marks.leaseAgreement;
    const uri = messageResourceUri(lease.id, lease.hash);
    const d = await one(() => h.client.readResource({ uri }));
    assert.equal(d.kind, 'resource');
    assert.equal(d.name, 'message');
    assert.deepEqual(d.arguments, { uri });
    assert.equal(d.ok, true);
    assert.equal(d.messages[0].hash, lease.hash);
    assert.ok(d.messages.length > 1);
  });

  test('a conversation resource discloses no message; a refused read is recorded as failed', async () => {
    const c = await one(() =>
      h.client.readResource({ uri: conversationResourceUri(desc.marks.leaseAgreement.conversationId) }),
    );
    assert.equal(c.ok, true);
    assert.deepEqual(c.messages, []);
    const gone = await one(() => h.client.readResource({ uri: `msgbrowse://message/${'0'.repeat(64)}` }));
    assert.equal(gone.ok, false);
    // Recorded as the person will read it in "What Copilot Has Seen": the plain sentence, not an internal error.
    assert.match(gone.error ?? '', /^no message with hash 0{64} in this archive/);
    assert.doesNotMatch(gone.error ?? '', /internal error|please report|MCP error/);
  });

  test('a throwing disclose callback never fails the call', async () => {
    const saved = h.ctx.disclose;
    h.ctx.disclose = () => {
      throw new Error('disk full');
    };
    try {
      const r = await h.ok<{ hits: unknown[] }>('search_messages', { query: 'lease' });
      assert.ok(r.hits.length > 0);
      assert.ok(h.logs.some((l) => /disclosure ledger: disk full/.test(l.message)));
    } finally {
      h.ctx.disclose = saved;
    }
  });
});
