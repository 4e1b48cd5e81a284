import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildCuratedArchive, cosine, decodeVector, type CuratedArchive } from '../fixtures/index';
import { startEmbedServer, type TestEmbedServer } from '../embed/test-server';
import { CLI_NODE, CLI_NODE_VERSION, cleanEnv, clientChoosing, isolatedCli } from './helpers';
import { EXPECTED_TOOLS } from '../mcp/expected-tools';

const TOKEN = 'cli-http-test-token-0123456789';
const QUERY_VEC = [0.9, -0.3, 0.2, 0.4, -0.8, 0.1, 0.6, -0.5];

let tmp: string;
let cli: string;
let curated: CuratedArchive;
let embed: TestEmbedServer;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-cli-http-'));
  cli = isolatedCli(tmp);
  curated = buildCuratedArchive(path.join(tmp, 'data'));
  embed = await startEmbedServer((req) => {
    const parsed = JSON.parse(req.body) as { input: string[] };
    return { body: { data: parsed.input.map((_, index) => ({ index, embedding: QUERY_VEC })) } };
  });
});
after(async () => {
  await embed.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Running {
  child: ChildProcessWithoutNullStreams;
  url: string;
  port: number;
  stderr: () => string;
}

async function start(args: string[], env: Record<string, string>): Promise<Running> {
  const child = spawn(CLI_NODE, [cli, '--http', '--listen', '127.0.0.1:0', ...args], { cwd: tmp, env: cleanEnv(env) });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const deadline = Date.now() + 20_000;
  let m: RegExpMatchArray | null = null;
  while (
    !(m = err.match(/at (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/)) &&
    Date.now() < deadline &&
    child.exitCode === null
  ) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(m, `server did not report its URL: ${err}`);
  return { child, url: m[1], port: Number(m[2]), stderr: () => err };
}

/** Sends SIGINT; resolves with the exit code, or the signal's name when the process died of one. */
async function stop(r: Running): Promise<number | string | null> {
  const exited = new Promise<number | string | null>((resolve) => r.child.on('exit', (c, sig) => resolve(c ?? sig)));
  r.child.kill('SIGINT');
  return exited;
}

function post(port: number, headers: Record<string, string>, p = '/mcp'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: p,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
      }),
    );
  });
}

function exactTop(file: string, model: string, q: number[], k: number): number[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare(
        'SELECT m.id AS id, e.vec AS vec, e.dim AS dim FROM embeddings e JOIN messages m ON m.hash = e.message_hash WHERE e.model = ? AND m.is_system = 0',
      )
      .all(model) as { id: number; vec: Buffer; dim: number }[];
    return rows
      .map((r) => ({ id: r.id, s: cosine(q, decodeVector(r.vec, r.dim)) }))
      .sort((a, b) => b.s - a.s || a.id - b.id)
      .slice(0, k)
      .map((r) => r.id);
  } finally {
    db.close();
  }
}

describe(`CLI --http (production bundle, Node ${CLI_NODE_VERSION})`, () => {
  it('serves tools with the bearer token; semantic search equals exact cosine via a local embedding endpoint', async () => {
    const cacheDir = path.join(tmp, 'cache');
    const r = await start(['--archive', curated.path, '--cache-dir', cacheDir], {
      MSGBROWSE_MCP_TOKEN: TOKEN,
      MSGBROWSE_LLM_BASE_URL: embed.baseUrl,
      MSGBROWSE_LLM_EMBED_MODEL: 'test-embed',
    });
    try {
      assert.ok(!r.stderr().includes(TOKEN), 'a token from the environment is not echoed');
      const client = new Client({ name: 'cli-http', version: '0' });
      const transport = new StreamableHTTPClientTransport(new URL(r.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      });
      await client.connect(transport);
      assert.equal((await client.listTools()).tools.length, EXPECTED_TOOLS.length);
      const res = await client.callTool({ name: 'semantic_search', arguments: { query: 'anything at all', k: 5 } });
      assert.notEqual(res.isError, true, JSON.stringify(res.content));
      const hits = (res.structuredContent as { hits: { message_id: number; link: string }[] }).hits;
      assert.deepEqual(
        hits.map((h) => h.message_id),
        exactTop(curated.path, 'test-embed', QUERY_VEC, 5),
      );
      assert.ok(hits.every((h) => h.link.startsWith('vscode://msgbrowse.msgbrowse-vscode/c/')));
      assert.ok(embed.requests.length >= 1);
      // The vector index was cached in --cache-dir, never beside the archive.
      assert.ok(fs.readdirSync(cacheDir).some((f) => f.endsWith('.idx')));
      assert.ok(!fs.readdirSync(path.dirname(curated.path)).some((f) => f.endsWith('.idx')));
      await transport.terminateSession();
      await client.close();

      // Refusals are 404, as the extension's endpoint gives them (a 401/403 sends VS Code into a sign-in flow).
      assert.equal(await post(r.port, {}), 404);
      assert.equal(await post(r.port, { authorization: 'Bearer wrong' }), 404);
      assert.equal(await post(r.port, { authorization: `Bearer ${TOKEN}`, host: `evil.example:${r.port}` }), 404);
      assert.equal(await post(r.port, { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' }), 404);
      assert.equal(await post(r.port, { authorization: `Bearer ${TOKEN}` }, '/other'), 404);
    } finally {
      assert.equal(await stop(r), 0, r.stderr());
    }
    // The port is free after the graceful shutdown.
    await new Promise<void>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(r.port, '127.0.0.1', () => s.close(() => resolve()));
    });
  });

  it('serves a 2026-07-28 client too: per request (no session), with the same search, and asks which conversation with input_required', async () => {
    const r = await start(['--archive', curated.path], { MSGBROWSE_MCP_TOKEN: TOKEN, MSGBROWSE_LLM_EMBED_MODEL: '' });
    try {
      const mjWa = curated.conversations.find((x) => x.name === 'MJ' && x.source === 'whatsapp')!;
      const { client, check } = clientChoosing('cli-http-modern', mjWa.id);
      const transport = new StreamableHTTPClientTransport(new URL(r.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      });
      await client.connect(transport);
      try {
        assert.equal(client.getProtocolEra(), 'modern');
        assert.equal(transport.sessionId, undefined);
        assert.equal((await client.listTools()).tools.length, EXPECTED_TOOLS.length);
        const found = await client.callTool({ name: 'search_messages', arguments: { query: 'lease' } });
        assert.ok((found.structuredContent as { hits: unknown[] }).hits.length > 0, JSON.stringify(found.content));
        await check();
      } finally {
        await client.close();
      }
    } finally {
      assert.equal(await stop(r), 0, r.stderr());
    }
  });

  it('without MSGBROWSE_MCP_TOKEN: one token, kept 0600 across restarts (a saved configuration keeps working); --rotate-token replaces it', async () => {
    const state = path.join(tmp, 'state-home');
    const env = { MSGBROWSE_LLM_EMBED_MODEL: '', XDG_STATE_HOME: state };
    const tokenOf = async (args: string[] = []) => {
      const r = await start(['--archive', curated.path, ...args], env);
      try {
        const deadline = Date.now() + 5000;
        while (!r.stderr().includes('claude mcp add') && Date.now() < deadline)
          await new Promise((res) => setTimeout(res, 20));
        const m = r.stderr().match(/"Authorization": "Bearer ([A-Za-z0-9_-]{32,})"/);
        assert.ok(m, r.stderr());
        return { token: m[1], err: r.stderr() };
      } finally {
        assert.equal(await stop(r), 0, r.stderr());
      }
    };
    const first = await tokenOf();
    const file = path.join(state, 'msgbrowse-mcp', 'http-token');
    assert.match(first.err, /token made and kept in .*http-token/);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    const second = await tokenOf();
    assert.equal(second.token, first.token, 'the same token after a restart');
    assert.match(second.err, /token kept in/);
    fs.chmodSync(file, 0o644);
    const tightened = await tokenOf();
    assert.equal(tightened.token, first.token);
    assert.match(tightened.err, /could be read by other users; it is private \(0600\) again/);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const rotated = await tokenOf(['--rotate-token']);
    assert.notEqual(rotated.token, first.token);
    assert.equal(fs.readFileSync(file, 'utf8').trim(), rotated.token);
  });

  it('prints a ready-to-paste client config with the kept token', async () => {
    const r = await start(['--archive', curated.path], {
      MSGBROWSE_LLM_EMBED_MODEL: '',
      XDG_STATE_HOME: path.join(tmp, 'state-config'),
    });
    try {
      const deadline = Date.now() + 5000;
      while (!r.stderr().includes('claude mcp add') && Date.now() < deadline)
        await new Promise((res) => setTimeout(res, 20));
      const err = r.stderr();
      const m = err.match(/"Authorization": "Bearer ([A-Za-z0-9_-]{20,})"/);
      assert.ok(m, err);
      assert.ok(err.includes(`"url": "${r.url}"`), err);
      const client = new Client({ name: 'cli-http', version: '0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(r.url), {
          requestInit: { headers: { Authorization: `Bearer ${m[1]}` } },
        }),
      );
      const res = await client.callTool({ name: 'list_conversations', arguments: {} });
      assert.equal(
        (res.structuredContent as { conversations: unknown[] }).conversations.length,
        curated.conversations.length,
      );
      await client.close();
    } finally {
      assert.equal(await stop(r), 0);
    }
  });

  it("the banner's Claude Desktop config starts this CLI over stdio with the same privacy options", async () => {
    const r = await start(['--archive', curated.path, '--exclude', 'Family', '--exclude=-=Gamers=-', '--no-redact'], {
      MSGBROWSE_LLM_EMBED_MODEL: '',
      XDG_STATE_HOME: path.join(tmp, 'state-desktop'),
    });
    let cfg: { command: string; args: string[]; env?: Record<string, string> };
    try {
      const deadline = Date.now() + 5000;
      while (!/Claude Desktop[^\n]*:\n\{[\s\S]*\n\}\n/.test(r.stderr()) && Date.now() < deadline)
        await new Promise((res) => setTimeout(res, 20));
      const block = /Claude Desktop[^\n]*:\n(\{[\s\S]*?\n\})\n/.exec(r.stderr());
      assert.ok(block, r.stderr());
      cfg = JSON.parse(block[1]).mcpServers.msgbrowse;
    } finally {
      assert.equal(await stop(r), 0);
    }
    assert.deepEqual(cfg.args.slice(1), [
      '--archive',
      curated.path,
      '--exclude=Family',
      '--exclude=-=Gamers=-',
      '--no-redact',
    ]);
    assert.deepEqual(cfg.env, { MSGBROWSE_LLM_EMBED_MODEL: '' });
    const client = new Client({ name: 'desktop-like', version: '0' });
    await client.connect(
      new StdioClientTransport({ command: cfg.command, args: cfg.args, env: cleanEnv(cfg.env ?? {}), stderr: 'pipe' }),
    );
    try {
      const res = await client.callTool({ name: 'list_conversations', arguments: {} });
      const names = (res.structuredContent as { conversations: { name: string }[] }).conversations.map((c) => c.name);
      assert.equal(names.length, curated.conversations.length - 1);
      assert.ok(!names.includes('Family'));
    } finally {
      await client.close();
    }
  });

  it('an empty HOME without XDG_STATE_HOME: one clear line, and no token written under the current folder', async () => {
    const here = fs.mkdtempSync(path.join(tmp, 'cwd-'));
    const child = spawn(CLI_NODE, [cli, '--archive', curated.path, '--http', '--listen', '127.0.0.1:0'], {
      cwd: here,
      env: cleanEnv({ HOME: '' }),
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000); // served instead of refusing: fail, not hang
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    clearTimeout(killer);
    assert.equal(code, 1, err);
    assert.match(
      err,
      /cannot keep the HTTP token: the home folder is "", not an absolute path; set HOME or XDG_STATE_HOME — set MSGBROWSE_MCP_TOKEN instead/,
    );
    assert.deepEqual(fs.readdirSync(here), []);
  });

  it('refuses a port already in use with one clear line', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as net.AddressInfo).port;
    const child = spawn(CLI_NODE, [cli, '--archive', curated.path, '--http', '--listen', `127.0.0.1:${port}`], {
      cwd: tmp,
      env: cleanEnv(),
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    blocker.close();
    assert.equal(code, 1);
    assert.match(err, /address already in use/);
    assert.equal(err.trim().split('\n').length, 1, err);
  });
});
