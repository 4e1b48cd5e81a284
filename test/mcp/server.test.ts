/** Server-level behaviour: failures of the context, cancellation, live settings, logging, citations. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { ArchiveError } from '../../src/archive/errors';
import type { AsyncArchive } from '../../src/archive/types';
import { conversationLink, messageLink } from '../../src/core/citation-format';
import { ToolError } from '../../src/core/errors';
import { parseDayRange, parseDomainFilter } from '../../src/core';
import { createMcpServer, encodeCursor, decodeCursor } from '../../src/mcp';
import type { ServerContext } from '../../src/core/context';
import { NO_EMBED_MODEL_REASON } from '../../src/embed';
import { buildMsgbrowseMcpFixture, MCP_FIXTURE_MODEL } from '../fixtures/index';
import { startHarness, tempDir, textOf, type Harness } from './harness';
import { startEmbedServer, type TestEmbedServer } from '../embed/test-server';

let dir: string;
let file: string;
let embed: TestEmbedServer;

before(async () => {
  dir = tempDir('mcp-server');
  file = buildMsgbrowseMcpFixture(dir).path;
  embed = await startEmbedServer();
});
after(async () => {
  await embed?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function connect(ctx: ServerContext) {
  const server = createMcpServer(ctx);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 't', version: '1' });
  await client.connect(a);
  return {
    client,
    call: async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

const baseCtx = (archive: () => Promise<AsyncArchive>): ServerContext => ({
  archive,
  semantic: async () => ({ available: false, reason: NO_EMBED_MODEL_REASON }),
  citation: { scheme: 'vscode-insiders', authority: 'pub.ext' },
  version: '9.9.9',
});

test('an archive that cannot be opened → every tool returns its ArchiveError message; resources fail cleanly', async () => {
  const msg = '/nope/msgbrowse.sqlite does not exist. Pass --archive PATH or set MSGBROWSE_DATA_DIR.';
  const c = await connect(baseCtx(async () => Promise.reject(new ArchiveError('missing_path', msg, '/nope'))));
  try {
    for (const [name, args] of [
      ['list_conversations', {}],
      ['get_conversation', { name: 'x' }],
      ['search_messages', { query: 'x' }],
      ['get_context', { message_id: 1 }],
      ['list_media', {}],
      ['list_links', {}],
    ] as const) {
      const r = await c.call(name, args);
      assert.equal(r.isError, true, name);
      assert.equal(textOf(r), msg, name);
    }
    await assert.rejects(c.client.readResource({ uri: 'msgbrowse://message/1' }), /does not exist/);
    await assert.rejects(c.client.listResources(), /does not exist/);
  } finally {
    await c.close();
  }
});

test('an unexpected exception becomes a one-line internal error, no stack trace; the next call works', async () => {
  let calls = 0;
  const real = await startHarness({ archivePath: file });
  const archive = await real.ctx.archive();
  const flaky = new Proxy(archive, {
    get(target, prop, recv) {
      if (prop === 'listConversations' && calls++ === 0) {
        return async () => {
          const e = new TypeError('Cannot read properties of undefined (reading "x")');
          e.stack = 'TypeError: boom\n    at evil (/src/x.ts:1:1)';
          throw e;
        };
      }
      return Reflect.get(target, prop, recv);
    },
  });
  const c = await connect(baseCtx(async () => flaky));
  try {
    const r = await c.call('list_conversations');
    assert.equal(r.isError, true);
    assert.equal(
      textOf(r),
      'internal error: Cannot read properties of undefined (reading "x") — please report this; other calls still work',
    );
    const ok = await c.call('list_conversations');
    assert.ok(!ok.isError);
  } finally {
    await c.close();
    await real.close();
  }
});

test('citations use the injected scheme and authority', async () => {
  const real = await startHarness({ archivePath: file });
  const c = await connect(baseCtx(() => real.ctx.archive()));
  try {
    const r = await c.call('search_messages', { query: 'lease' });
    const hit = (r.structuredContent as { hits: { link: string }[] }).hits[0];
    const h1 = (r.structuredContent as { hits: { hash: string }[] }).hits[0].hash.slice(0, 16);
    assert.equal(hit.link, `vscode-insiders://pub.ext/c/1/at/1?h=${h1}`);
    assert.ok(textOf(r).includes(`](vscode-insiders://pub.ext/c/1/at/1?h=${h1})`));
    assert.equal(c.client.getServerVersion()?.version, '9.9.9');
    const conv = await c.call('get_conversation', { conversation_id: 1 });
    const rl = conv.content.filter((x) => x.type === 'resource_link');
    assert.deepEqual(
      rl.map((x) => x.type === 'resource_link' && x.uri),
      ['msgbrowse://conversation/1'],
    );
  } finally {
    await c.close();
    await real.close();
  }
});

test('semantic settings are read per call: model "" → error, then "test-embed" → results, then "" again', async () => {
  const opts = { archivePath: file, embed: { baseUrl: embed.baseUrl, model: '' } };
  const h: Harness = await startHarness(opts);
  try {
    assert.match(await h.err('semantic_search', { query: 'rental contract' }), /no embedding model configured/);
    opts.embed.model = MCP_FIXTURE_MODEL;
    const r = await h.ok<{ hits: { text: string }[] }>('semantic_search', { query: 'rental contract' });
    assert.match(r.hits[0].text, /lease/);
    opts.embed.model = '';
    assert.match(await h.err('semantic_search', { query: 'rental contract' }), /no embedding model configured/);
  } finally {
    await h.close();
  }
});

test('a cancelled call does not break the server; a hybrid fallback is logged to the client', async () => {
  embed.respond = () => ({ body: { data: [{ index: 0, embedding: [1, 0] }] }, delayMs: 3000 });
  const h = await startHarness({
    archivePath: file,
    embed: { baseUrl: embed.baseUrl, model: MCP_FIXTURE_MODEL, timeoutMs: 200 },
  });
  const logged: unknown[] = [];
  h.client.setNotificationHandler('notifications/message', (n) => {
    logged.push(n.params.data);
  });
  try {
    const ac = new AbortController();
    const p = h.client.callTool(
      { name: 'semantic_search', arguments: { query: 'x' } },
      {
        signal: ac.signal,
      },
    );
    setTimeout(() => ac.abort(), 30);
    await assert.rejects(p);
    // Timeout in the embedding call: search_messages still answers with keyword hits and says why.
    const r = await h.ok<{ hits: unknown[]; semantic: { used: boolean; reason: string } }>('search_messages', {
      query: 'lease',
    });
    assert.equal(r.hits.length, 1);
    assert.match(r.semantic.reason, /did not answer within 0\.2s/);
    await new Promise((res) => setTimeout(res, 20));
    assert.ok(
      logged.some((d) => /semantic half of search_messages failed/.test(String(d))),
      JSON.stringify(logged),
    );
    const list = await h.ok<{ conversations: unknown[] }>('list_conversations');
    assert.equal(list.conversations.length, 1);
  } finally {
    embed.respond = () => ({ body: { data: [{ index: 0, embedding: [1, 0] }] } });
    await h.close();
  }
});

test('missing required parameters say "is required"', async () => {
  const h = await startHarness({ archivePath: file });
  try {
    assert.match(await h.err('search_messages', {}), /query is required/);
    assert.match(await h.err('semantic_search', {}), /query is required/);
  } finally {
    await h.close();
  }
});

test('pure helpers: links, cursor round-trip, day ranges, domain normalisation', () => {
  const f = { scheme: 'vscode', authority: 'msgbrowse.msgbrowse-vscode' };
  assert.equal(
    messageLink(f, 3, 42, `ABCDEF0123456789${'0'.repeat(48)}`),
    'vscode://msgbrowse.msgbrowse-vscode/c/3/at/42?h=abcdef0123456789',
  );
  assert.equal(conversationLink(f, 3), 'vscode://msgbrowse.msgbrowse-vscode/c/3');
  const cur = { conversationId: 2, tsUnix: 1646125200, id: 17, startUnix: 1646092800, endUnix: undefined };
  const enc = encodeCursor(cur);
  assert.match(enc, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor(enc), cur);
  assert.throws(() => decodeCursor('abc'), ToolError);
  assert.deepEqual(parseDayRange('2022-03-01', '2022-03-01'), { startUnix: 1646092800, endUnix: 1646092800 + 86399 });
  assert.deepEqual(parseDayRange(undefined, undefined), { startUnix: undefined, endUnix: undefined });
  assert.deepEqual(parseDayRange('1969-12-31', undefined), { startUnix: -86400, endUnix: undefined });
  assert.throws(() => parseDayRange('0099-02-29', undefined), /not a real calendar date/);
  const y96 = new Date(0);
  y96.setUTCFullYear(96, 1, 29);
  assert.equal(parseDayRange('0096-02-29', undefined).startUnix, y96.getTime() / 1000);
  assert.equal(parseDomainFilter('WWW.Example.COM'), 'example.com');
  assert.equal(parseDomainFilter('https://www.maps.example.com:8443/x?y'), 'maps.example.com');
  assert.equal(parseDomainFilter('example.com.'), 'example.com');
  assert.equal(parseDomainFilter('bücher.de'), 'bücher.de');
  assert.equal(parseDomainFilter('https://BÜCHER.de/x'), 'bücher.de');
  assert.equal(parseDomainFilter('  '), undefined);
  assert.throws(() => parseDomainFilter('a b'), /not a valid domain/);
});
