/** The tools over the real runtime (lazy archive, real int8 vector index + cache) rather than the test harness. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { createMcpServer } from '../../src/mcp';
import { createRuntime, type Runtime } from '../../src/core';
import {
  buildCuratedArchive,
  buildMsgbrowseMcpFixture,
  cosine,
  embedText,
  embeddingInput,
  isEmbeddable,
  MCP_FIXTURE_MODEL,
} from '../fixtures/index';
import { tempDir, CITATION } from './harness';
import { startEmbedServer, type TestEmbedServer } from '../embed/test-server';

let dir: string;
let embed: TestEmbedServer;
/** Which fake model the endpoint serves: §10's constant [1, 0], or the fixtures' 8-d text embedding. */
let mode: 'constant' | 'text' = 'constant';
const sha = (p: string) => crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');

before(async () => {
  dir = tempDir('mcp-e2e');
  embed = await startEmbedServer((req) => {
    const body = JSON.parse(req.body) as { model: string; input: string[] };
    const vec = (t: string) => (mode === 'constant' ? [1, 0] : embedText(t, 8, 'test-embed'));
    return { body: { data: body.input.map((t, index) => ({ index, embedding: vec(t) })) } };
  });
});
after(async () => {
  await embed?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function serve(
  archivePath: string,
  model: string,
): Promise<{
  runtime: Runtime;
  call: (n: string, a: Record<string, unknown>) => Promise<CallToolResult>;
  close(): Promise<void>;
}> {
  const runtime = createRuntime({
    archivePath,
    embed: { baseUrl: embed.baseUrl, model },
    citation: CITATION,
    cacheDir: path.join(dir, 'cache'),
    version: 'e2e',
  });
  const server = createMcpServer(runtime.context);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'e2e', version: '1' });
  await client.connect(a);
  return {
    runtime,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
      await runtime.dispose();
    },
  };
}

test('§10 through the real runtime: hybrid ids 1,3,2 (0.0328, 0.0161, 0.0159); cosines 0.995, 0.1961, 0.0995', async () => {
  const file = buildMsgbrowseMcpFixture(path.join(dir, 'mcp')).path;
  const before = sha(file);
  const s = await serve(file, MCP_FIXTURE_MODEL);
  try {
    // The first use builds the index; search_messages does not wait for it (keyword hits now, hybrid next).
    const early = await s.call('search_messages', { query: 'lease' });
    assert.match(
      (early.structuredContent as { semantic: { reason?: string } }).semantic.reason ?? '',
      /^index building: \d+%$/,
    );
    await s.runtime.context.semantic();
    const hy = await s.call('search_messages', { query: 'lease' });
    assert.ok(!hy.isError, JSON.stringify(hy.content));
    const hits = (hy.structuredContent as { hits: { message_id: number; score: number }[] }).hits;
    assert.deepEqual(
      hits.map((x) => [x.message_id, x.score]),
      [
        [1, 0.0328],
        [3, 0.0161],
        [2, 0.0159],
      ],
    );
    const sem = await s.call('semantic_search', { query: 'rental contract', k: 3 });
    assert.ok(!sem.isError, JSON.stringify(sem.content));
    assert.deepEqual(
      (sem.structuredContent as { hits: { message_id: number; score: number }[] }).hits.map((x) => [
        x.message_id,
        x.score,
      ]),
      [
        [1, 0.995],
        [3, 0.1961],
        [2, 0.0995],
      ],
    );
  } finally {
    await s.close();
  }
  assert.equal(sha(file), before);
});

test('curated archive through the real int8 index: semantic_search equals exact float64 cosine top-k', async () => {
  mode = 'text';
  const desc = buildCuratedArchive(path.join(dir, 'curated'));
  const s = await serve(desc.path, 'test-embed');
  try {
    for (const query of ['lease terms for the cabin', 'coffee café', 'weather forecast rain', 'video of the kids']) {
      const qv = embedText(query, 8, 'test-embed');
      const expected = desc.messages
        .filter(isEmbeddable)
        .map((m) => ({ id: m.id, score: cosine(qv, embedText(embeddingInput(m.body), 8, 'test-embed')) }))
        .sort((a, b) => b.score - a.score || a.id - b.id)
        .slice(0, 10);
      const r = await s.call('semantic_search', { query, k: 10 });
      assert.ok(!r.isError, JSON.stringify(r.content));
      const hits = (r.structuredContent as { hits: { message_id: number; score: number }[] }).hits;
      assert.deepEqual(
        hits.map((x) => x.score),
        expected.map((e) => Math.round(e.score * 1e4) / 1e4),
        query,
      );
      assert.deepEqual(
        hits.map((x) => x.message_id),
        expected.map((e) => e.id),
        query,
      );
    }
    const wrong = await s.call('semantic_search', { query: 'x', conversation: 'MJ' });
    assert.equal(wrong.isError, true);
  } finally {
    await s.close();
  }
});
