/**
 * Prompts, completions and live resources through the production CLI bundle, over stdio and over HTTP, in both
 * protocol eras, with the SDK's own client: a prompt is listed and rendered, a completion answered, and a
 * subscription (resources/subscribe, or a 2026-07-28 subscriptions/listen stream) notified after msgbrowse writes to
 * the archive while the CLI serves it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { ArchiveWriter, buildCuratedArchive, openWritable, type CuratedArchive } from '../fixtures/index';
import { CLI_NODE, CLI_NODE_VERSION, cleanEnv, isolatedCli } from './helpers';

const TOKEN = 'cli-live-surface-token-0123456789';

let tmp: string;
let cli: string;
let curated: CuratedArchive;

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-cli-live-'));
  cli = isolatedCli(tmp);
  curated = buildCuratedArchive(path.join(tmp, 'data'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function startHttp(): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = spawn(CLI_NODE, [cli, '--http', '--listen', '127.0.0.1:0', '--archive', curated.path], {
    cwd: tmp,
    env: cleanEnv({ MSGBROWSE_MCP_TOKEN: TOKEN, MSGBROWSE_LLM_EMBED_MODEL: '' }),
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const deadline = Date.now() + 20_000;
  let m: RegExpMatchArray | null = null;
  while (!(m = err.match(/at (http:\/\/127\.0\.0\.1:\d+\/mcp)/)) && Date.now() < deadline && child.exitCode === null)
    await new Promise((r) => setTimeout(r, 20));
  assert.ok(m, `server did not report its URL: ${err}`);
  return { child, url: m[1] };
}

async function exercise(client: Client, conversationName: string, body: string): Promise<void> {
  const { prompts } = await client.listPrompts();
  assert.ok(prompts.some((p) => p.name === 'summarize_conversation'));
  const prompt = await client.getPrompt({
    name: 'summarize_conversation',
    arguments: { conversation: conversationName },
  });
  assert.match(
    prompt.messages[0].content.type === 'text' ? prompt.messages[0].content.text : '',
    /get_conversation \{"conversation_id":\d+/,
  );
  const done = await client.complete({
    ref: { type: 'ref/prompt', name: 'summarize_conversation' },
    argument: { name: 'conversation', value: conversationName.slice(0, 3).toLowerCase() },
  });
  assert.ok(done.completion.values.includes(conversationName), JSON.stringify(done.completion));

  const conv = curated.conversations.find((c) => c.name === conversationName)!;
  const uri = `msgbrowse://conversation/${conv.id}`;
  const updated: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
  if (client.getProtocolEra() === 'modern') {
    const listening = await client.listen({ resourceSubscriptions: [uri], resourcesListChanged: true });
    assert.deepEqual(listening.honoredFilter, { resourceSubscriptions: [uri], resourcesListChanged: true });
  } else await client.subscribeResource({ uri });
  // msgbrowse writes into the conversation while the CLI serves it.
  const db = openWritable(curated.path);
  try {
    new ArchiveWriter(db).appendMessages(conv.id, conv.source, conv.name, [
      { ts: '2031-01-01 10:00:00', sender: conv.name, body },
    ]);
  } finally {
    db.close();
  }
  const deadline = Date.now() + 15_000;
  while (!updated.includes(uri) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(updated.includes(uri), 'notifications/resources/updated arrived for the subscribed conversation');
  const r = await client.callTool({
    name: 'get_conversation',
    arguments: { conversation_id: conv.id, order: 'newest', limit: 1 },
  });
  assert.equal(
    (r.structuredContent as { messages: { text: string }[] }).messages[0].text,
    body,
    'the written message is read back',
  );
}

describe(`CLI prompts, completions and live resources (production bundle, Node ${CLI_NODE_VERSION})`, () => {
  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    const how = era === '2025-11-25' ? '' : ' (the notification arrives on the subscriptions/listen stream)';
    it(`over stdio at ${era}${how}`, async () => {
      const transport = new StdioClientTransport({
        command: CLI_NODE,
        args: [cli, '--archive', curated.path],
        cwd: tmp,
        env: cleanEnv({ MSGBROWSE_LLM_EMBED_MODEL: '' }),
        stderr: 'pipe',
      });
      const client = new Client(
        { name: 'cli-live-stdio', version: '0' },
        era === '2026-07-28' ? { versionNegotiation: { mode: { pin: era } } } : {},
      );
      await client.connect(transport);
      try {
        assert.equal(client.getProtocolEra(), era === '2026-07-28' ? 'modern' : 'legacy');
        await exercise(client, 'Harper', `written while served over stdio at ${era}`);
      } finally {
        await client.close();
      }
    });
  }

  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    const how = era === '2025-11-25' ? 'on the session stream' : 'on the subscriptions/listen stream, no session';
    it(`over HTTP at ${era} (the notification arrives ${how})`, async () => {
      const s = await startHttp();
      const transport = new StreamableHTTPClientTransport(new URL(s.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      });
      const client = new Client(
        { name: 'cli-live-http', version: '0' },
        era === '2026-07-28' ? { versionNegotiation: { mode: { pin: era } } } : {},
      );
      await client.connect(transport as unknown as Transport);
      try {
        assert.equal(client.getProtocolEra(), era === '2026-07-28' ? 'modern' : 'legacy');
        assert.equal(transport.sessionId === undefined, era === '2026-07-28');
        await exercise(client, 'Zoë', `written while served over HTTP at ${era}`);
      } finally {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
        const exited = new Promise((resolve) => s.child.on('exit', resolve));
        s.child.kill('SIGINT');
        await exited;
      }
    });
  }
});
