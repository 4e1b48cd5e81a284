/** §10 of the reference: msgbrowse's own MCP tests (seedStore) with the computed expectations. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import crypto from 'node:crypto';
import { buildMsgbrowseMcpFixture, MCP_FIXTURE_MODEL } from '../fixtures/index';
import { startHarness, tempDir, textOf, type Harness } from './harness';
import { startEmbedServer, type TestEmbedServer } from '../embed/test-server';

let dir: string;
let file: string;
let digest: string;
let hashes: Map<number, string>;
let h: Harness;
let noLlm: Harness;
let embed: TestEmbedServer;

const sha = (p: string) => crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');

before(async () => {
  dir = tempDir('mcp10');
  const built = buildMsgbrowseMcpFixture(dir);
  file = built.path;
  hashes = new Map(built.messages.map((m) => [m.id, m.hash]));
  digest = sha(file);
  embed = await startEmbedServer();
  h = await startHarness({ archivePath: file, embed: { baseUrl: embed.baseUrl, model: MCP_FIXTURE_MODEL } });
  noLlm = await startHarness({ archivePath: file });
});

after(async () => {
  await h?.close();
  await noLlm?.close();
  await embed?.close();
  if (file) assert.equal(sha(file), digest, 'archive file changed');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A message's citation link: its ids anchored by the first 16 hex digits of its hash. */
const LINK = (c: number, m: number) =>
  `vscode://msgbrowse.msgbrowse-vscode/c/${c}/at/${m}?h=${(hashes.get(m) ?? '').slice(0, 16)}`;

test('list_conversations: Harper with derived counts, id, source and link', async () => {
  const r = await h.ok<{ conversations: Record<string, unknown>[] }>('list_conversations');
  assert.deepEqual(r.conversations, [
    {
      id: 1,
      name: 'Harper',
      source: 'signal',
      message_count: 3,
      first_timestamp: '2022-03-01 09:00:00',
      last_timestamp: '2022-03-01 09:02:00',
      images: 1,
      files: 0,
      videos: 0,
      links: 1,
      link: 'vscode://msgbrowse.msgbrowse-vscode/c/1',
    },
  ]);
});

test('get_conversation {name:"Harper"}: ids 1, 2, 3 with source and links', async () => {
  const r = await h.ok<{
    messages: Record<string, unknown>[];
    conversation_id: number;
    source: string;
    has_more: boolean;
  }>('get_conversation', { name: 'Harper' });
  assert.deepEqual(
    r.messages.map((m) => m.message_id),
    [1, 2, 3],
  );
  assert.equal(r.conversation_id, 1);
  assert.equal(r.source, 'signal');
  assert.equal(r.has_more, false);
  assert.deepEqual(r.messages[0], {
    message_id: 1,
    hash: 'eb8a4d9f03c2ad5d05cd3fb031c44f70596ed3147d2545e8bd114d67284be09a',
    conversation: 'Harper',
    conversation_id: 1,
    source: 'signal',
    sender: 'Harper',
    timestamp: '2022-03-01 09:00:00',
    text: 'the lease agreement is ready',
    link: LINK(1, 1),
  });
});

test('search_messages {query:"lease"}: ids 1, 3, 2 with 0.0328, 0.0161, 0.0159 (hybrid)', async () => {
  const r = await h.ok<{ hits: Record<string, unknown>[]; semantic: Record<string, unknown> }>('search_messages', {
    query: 'lease',
  });
  assert.deepEqual(
    r.hits.map((x) => [x.message_id, x.score]),
    [
      [1, 0.0328],
      [3, 0.0161],
      [2, 0.0159],
    ],
  );
  assert.equal(r.hits[0].text, 'the **lease** agreement is ready');
  assert.equal(r.hits[0].conversation, 'Harper');
  assert.equal(r.hits[1].text, 'photo attached');
  assert.equal(r.hits[2].text, 'great, see https://maps.example.com/x');
  assert.deepEqual(r.semantic, { used: true, model: 'test-embed' });
  for (const x of r.hits) {
    assert.equal(x.source, 'signal');
    assert.equal(x.conversation_id, 1);
    assert.equal(x.link, LINK(1, x.message_id as number));
  }
  const last = embed.requests[embed.requests.length - 1];
  assert.deepEqual(JSON.parse(last.body), { model: 'test-embed', input: ['lease'] });
});

test('search_messages without an embedding model: keyword half with the reason', async () => {
  const r = await noLlm.call('search_messages', { query: 'lease' });
  assert.ok(!r.isError);
  const s = r.structuredContent as { hits: Record<string, unknown>[]; semantic: { used: boolean; reason: string } };
  assert.deepEqual(
    s.hits.map((x) => [x.message_id, x.score]),
    [[1, 0.0164]],
  );
  assert.equal(s.semantic.used, false);
  assert.match(s.semantic.reason, /no embedding model configured — set MSGBROWSE_LLM_EMBED_MODEL/);
  assert.match(textOf(r), /keyword only — semantic half unavailable/);
});

test('semantic_search {query:"rental contract", k:3}: ids 1, 3, 2 with cosines 0.995, 0.1961, 0.0995', async () => {
  const r = await h.ok<{ hits: Record<string, unknown>[]; model: string }>('semantic_search', {
    query: 'rental contract',
    k: 3,
  });
  assert.deepEqual(
    r.hits.map((x) => [x.message_id, x.score]),
    [
      [1, 0.995],
      [3, 0.1961],
      [2, 0.0995],
    ],
  );
  assert.match(String(r.hits[0].text), /lease/);
  assert.equal(r.model, 'test-embed');
});

test('semantic_search without a model: isError saying how to enable it', async () => {
  const msg = await noLlm.err('semantic_search', { query: 'x' });
  assert.equal(
    msg,
    'semantic search is unavailable: no embedding model configured — set MSGBROWSE_LLM_EMBED_MODEL (CLI) or the msgbrowse.embeddings.model setting (VS Code)',
  );
});

test('get_context {message_id:1, window:1}: ids [1, 2]', async () => {
  const r = await h.ok<{ messages: Record<string, unknown>[]; conversation_id: number; message_id: number }>(
    'get_context',
    { message_id: 1, window: 1 },
  );
  assert.deepEqual(
    r.messages.map((m) => m.message_id),
    [1, 2],
  );
  assert.ok(r.messages.every((m) => m.source === 'signal' && m.conversation === 'Harper'));
  assert.equal(r.message_id, 1);
});

test('list_media {kind:"image"}: the one image', async () => {
  const r = await h.ok<{ media: Record<string, unknown>[]; has_more: boolean }>('list_media', { kind: 'image' });
  assert.deepEqual(r.media, [
    {
      conversation: 'Harper',
      conversation_id: 1,
      source: 'signal',
      kind: 'image',
      name: 'p.jpg',
      path: 'media/p.jpg',
      timestamp: '2022-03-01 09:02:00',
      message_id: 3,
      link: LINK(1, 3),
    },
  ]);
  assert.equal(r.has_more, false);
});

test('list_links {domain:"maps.example.com"}: the one link', async () => {
  const r = await h.ok<{ links: Record<string, unknown>[] }>('list_links', { domain: 'maps.example.com' });
  assert.deepEqual(r.links, [
    {
      url: 'https://maps.example.com/x',
      domain: 'maps.example.com',
      count: 1,
      conversation: 'Harper',
      conversation_id: 1,
      source: 'signal',
      timestamp: '2022-03-01 09:01:00',
      message_id: 2,
      link: LINK(1, 2),
    },
  ]);
  // Parent domain, case and www. variations find it too (msgbrowse quirk §11.17).
  for (const domain of ['example.com', 'WWW.Example.COM', 'https://www.maps.example.com/path']) {
    const x = await h.ok<{ links: unknown[] }>('list_links', { domain });
    assert.equal(x.links.length, 1, domain);
  }
  assert.equal((await h.ok<{ links: unknown[] }>('list_links', { domain: 'ample.com' })).links.length, 0);
});
