import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import {
  buildCuratedArchive,
  buildHeavyFtsArchive,
  buildLegacyArchive,
  HEAVY_QUERY,
  makeFutureArchive,
  writeArchiveWithoutColumn,
  type CuratedArchive,
} from '../fixtures/index';
import { EXPECTED_TOOLS } from '../mcp/expected-tools';
import { CLI_NODE, CLI_NODE_VERSION, cleanEnv, clientChoosing, isolatedCli } from './helpers';

const TOOL_NAMES = [...EXPECTED_TOOLS];

let tmp: string;
let cli: string;
let curated: CuratedArchive;
let archiveBytes: Buffer;

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-cli-'));
  cli = isolatedCli(tmp);
  curated = buildCuratedArchive(path.join(tmp, 'data'));
  archiveBytes = fs.readFileSync(curated.path);
});
after(() => {
  // The archive is byte-for-byte unchanged by everything the CLI did.
  assert.ok(fs.readFileSync(curated.path).equals(archiveBytes), 'archive bytes changed');
  fs.rmSync(tmp, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}, input?: string) {
  return spawnSync(CLI_NODE, [cli, ...args], {
    cwd: tmp,
    env: cleanEnv(env),
    encoding: 'utf8',
    input,
    timeout: 30_000,
  });
}

/** `client` (set up beforehand: its protocol era, its handlers) connected to the CLI serving `archive`. */
async function connect(archive: string, client = new Client({ name: 'cli-test', version: '0' })) {
  const transport = new StdioClientTransport({
    command: CLI_NODE,
    args: [cli, '--archive', archive],
    cwd: tmp,
    env: cleanEnv({ MSGBROWSE_LLM_EMBED_MODEL: '' }),
    stderr: 'pipe',
  });
  await client.connect(transport);
  return { client };
}

describe(`CLI over stdio (production bundle, no node_modules reachable, Node ${CLI_NODE_VERSION})`, () => {
  it('serves the 2026-07-28 revision on the same stdio: a client pinned to it discovers, lists (with cache hints) and searches', async () => {
    const pinned = new Client(
      { name: 'cli-modern', version: '0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const { client } = await connect(curated.path, pinned);
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      const tools = await client.listTools();
      assert.deepEqual(
        tools.tools.map((t) => t.name),
        TOOL_NAMES,
      );
      // Fixed while the server runs: a client may keep the list; the conversation listing changes with imports.
      const hinted = tools as unknown as { ttlMs?: number; cacheScope?: string };
      assert.deepEqual([hinted.ttlMs, hinted.cacheScope], [600_000, 'private']);
      const listing = (await client.listResources()) as unknown as { ttlMs?: number; resources: unknown[] };
      assert.equal(listing.ttlMs, 0);
      assert.ok(listing.resources.length > 0);
      const res = await client.callTool({ name: 'search_messages', arguments: { query: 'lease' } });
      assert.notEqual(res.isError, true, JSON.stringify(res.content));
      assert.ok((res.structuredContent as { hits: unknown[] }).hits.length > 0);
    } finally {
      await client.close();
    }
  });

  it('asks a 2026-07-28 client which conversation it means with input_required, and goes on with the answer', async () => {
    const mjWa = curated.conversations.find((x) => x.name === 'MJ' && x.source === 'whatsapp')!;
    const { client, check } = clientChoosing('cli-modern-ask', mjWa.id);
    await connect(curated.path, client);
    try {
      await check();
    } finally {
      await client.close();
    }
  });

  it('serves every tool to the SDK client and answers a keyword search with citations', async () => {
    const stderr: string[] = [];
    const transport = new StdioClientTransport({
      command: CLI_NODE,
      args: [cli, '--archive', curated.path],
      cwd: tmp,
      env: cleanEnv({ MSGBROWSE_LLM_EMBED_MODEL: '' }),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    const client = new Client({ name: 'cli-test', version: '0' });
    await client.connect(transport);
    assert.equal(
      client.getServerVersion()?.version,
      JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')).version,
    );
    const tools = await client.listTools();
    assert.deepEqual(
      tools.tools.map((t) => t.name),
      TOOL_NAMES,
    );
    const conv = curated.conversations.find((c) => c.messageCount > 3)!;
    const res = await client.callTool({ name: 'get_conversation', arguments: { conversation_id: conv.id, limit: 2 } });
    assert.notEqual(res.isError, true, JSON.stringify(res.content));
    const sc = res.structuredContent as { messages: { link: string; conversation_id: number }[] };
    assert.equal(sc.messages.length, 2);
    assert.match(
      sc.messages[0].link,
      new RegExp(`^vscode://msgbrowse\\.msgbrowse-vscode/c/${conv.id}/at/\\d+\\?h=[0-9a-f]{16}$`),
    );
    // Semantic is disabled (empty model): the tool says so instead of failing silently.
    const sem = await client.callTool({ name: 'semantic_search', arguments: { query: 'anything' } });
    assert.equal(sem.isError, true);
    assert.match(JSON.stringify(sem.content), /MSGBROWSE_LLM_EMBED_MODEL/);
    await client.close();
    assert.ok(!stderr.join('').includes('    at '), 'no stack traces on stderr');
  });

  it('a 999-token query answers fast, searched once with a note in its receipt; sender resolves', async () => {
    const { client } = await connect(curated.path);
    try {
      const t0 = performance.now();
      const res = await client.callTool({
        name: 'search_messages',
        arguments: { query: Array(999).fill('t').join(' '), sender: 'me' },
      });
      const ms = performance.now() - t0;
      assert.notEqual(res.isError, true, JSON.stringify(res.content));
      assert.ok(ms < 2000, `took ${ms.toFixed(0)} ms`);
      const sc = res.structuredContent as {
        receipt: { scope: { sender?: string }; keyword: { tokens: string[]; duplicates_removed: number } };
        notes?: string[];
      };
      assert.deepEqual(sc.receipt.keyword.tokens, ['t']);
      assert.equal(sc.receipt.keyword.duplicates_removed, 998);
      assert.equal(sc.receipt.scope.sender, 'Me');
      assert.ok(sc.notes?.some((n) => /998 repeated words were searched once/.test(n)));
    } finally {
      await client.close();
    }
  });

  it('a long call runs off the main thread (pings answer meanwhile) and cancelling it frees the server at once', async () => {
    const heavyDir = path.join(tmp, 'heavy');
    buildHeavyFtsArchive(path.join(heavyDir, 'msgbrowse.sqlite'), 12000);
    const { client } = await connect(heavyDir);
    try {
      const args = { name: 'search_messages', arguments: { query: HEAVY_QUERY } };
      const t0 = performance.now();
      await client.callTool(args, { timeout: 60_000 });
      const fullMs = performance.now() - t0;
      assert.ok(fullMs > 500, `the heavy query must be long enough to matter (took ${fullMs.toFixed(0)} ms)`);

      const ac = new AbortController();
      const pending = client.callTool(args, { signal: ac.signal, timeout: 60_000 });
      await new Promise((r) => setTimeout(r, 100));
      const p0 = performance.now();
      await client.ping();
      const pingMs = performance.now() - p0;
      assert.ok(
        pingMs < fullMs / 3,
        `ping took ${pingMs.toFixed(0)} ms while the query ran (full query ${fullMs.toFixed(0)} ms)`,
      );
      const abortedAt = performance.now();
      ac.abort();
      await assert.rejects(pending);
      const next = await client.callTool({ name: 'list_conversations', arguments: {} });
      const nextMs = performance.now() - abortedAt;
      assert.notEqual(next.isError, true);
      assert.ok(
        nextMs < fullMs / 2,
        `the next call answered ${nextMs.toFixed(0)} ms after the cancel; the query takes ${fullMs.toFixed(0)} ms, so it was not stopped`,
      );
    } finally {
      await client.close();
    }
  });

  it('stdout carries only JSON-RPC, and the server exits 0 when stdin ends', () => {
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_conversations', arguments: {} } },
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'search_messages', arguments: { query: '"(NEAR OR' } },
      },
    ];
    const r = run(
      ['--archive', path.dirname(curated.path)],
      { MSGBROWSE_LLM_EMBED_MODEL: '' },
      `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    );
    assert.equal(r.status, 0, r.stderr);
    const out = r.stdout.split('\n').filter((l) => l !== '');
    assert.ok(out.length >= 4, r.stdout);
    const ids = new Set<number>();
    for (const line of out) {
      const msg = JSON.parse(line) as { jsonrpc: string; id?: number };
      assert.equal(msg.jsonrpc, '2.0');
      if (msg.id !== undefined) ids.add(msg.id);
    }
    assert.deepEqual([...ids].sort(), [1, 2, 3, 4]);
    assert.match(r.stderr, /msgbrowse-mcp: /);
  });

  it('serving over stdio never loads the HTTP stack (http, http2, tls, zlib, undici): only --http does', () => {
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'search_messages', arguments: { query: 'lease' } },
      },
    ];
    const r = spawnSync(
      CLI_NODE,
      ['--require', path.join(__dirname, 'loaded-builtins.cjs'), cli, '--archive', curated.path],
      {
        cwd: tmp,
        env: cleanEnv({ MSGBROWSE_LLM_EMBED_MODEL: '' }),
        encoding: 'utf8',
        input: `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
        timeout: 30_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const answered = r.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id?: number; result?: { isError?: boolean } });
    assert.ok(
      answered.some((m) => m.id === 2 && m.result && !m.result.isError),
      r.stdout,
    );
    const loaded = JSON.parse(/LOADED-BUILTINS (.*)/.exec(r.stderr)?.[1] ?? 'null') as string[] | null;
    assert.ok(
      loaded?.includes('NativeModule worker_threads'),
      `the list of loaded built-ins is readable here (${CLI_NODE_VERSION})`,
    );
    const http = (loaded ?? []).filter((m) =>
      /^NativeModule (_?https?\b|_http_|http2|_?tls\b|_tls_|zlib|internal\/deps\/undici)/.test(m),
    );
    assert.deepEqual(http, [], 'stdio serving loaded the HTTP stack');
  });

  it('ends on SIGTERM with exit code 0', async () => {
    const child = spawn(CLI_NODE, [cli, '--archive', curated.path], {
      cwd: tmp,
      env: cleanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const deadline = Date.now() + 15_000;
    while (!err.includes('serving') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.match(err, /serving/);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(code, 0, err);
  });

  it('a bad --archive gives one clear stderr line and a non-zero exit', () => {
    const missing = run(['--archive', path.join(tmp, 'nope', 'msgbrowse.sqlite')]);
    assert.equal(missing.status, 1);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /^msgbrowse-mcp: archive not found: .*nope.*--archive/);
    assert.equal(missing.stderr.trim().split('\n').length, 1, missing.stderr);

    const junk = path.join(tmp, 'junk.sqlite');
    fs.writeFileSync(junk, 'this is not a database '.repeat(200));
    const bad = run(['--archive', junk]);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /cannot open archive: /);
    assert.ok(!bad.stderr.includes('    at '), bad.stderr);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);

    const emptyDir = fs.mkdtempSync(path.join(tmp, 'empty-'));
    const noFile = run(['--archive', emptyDir]);
    assert.equal(noFile.status, 1);
    assert.ok(noFile.stderr.includes(emptyDir), noFile.stderr);
  });

  it('defaults to $MSGBROWSE_DATA_DIR/msgbrowse.sqlite, then ./data/msgbrowse.sqlite', () => {
    const viaEnv = run(['--summary'], { MSGBROWSE_DATA_DIR: path.dirname(curated.path) });
    assert.equal(viaEnv.status, 0, viaEnv.stderr);
    assert.match(
      viaEnv.stdout,
      new RegExp(`Content +${curated.conversations.length} conversations, ${curated.messages.length} messages`),
    );
    // cwd is tmp, whose ./data holds the curated archive.
    const viaCwd = run(['--summary']);
    assert.equal(viaCwd.status, 0, viaCwd.stderr);
    assert.ok(viaCwd.stdout.includes(curated.path));
    const notThere = run(['--summary'], { MSGBROWSE_DATA_DIR: path.join(tmp, 'elsewhere') });
    assert.equal(notThere.status, 1);
    assert.match(notThere.stderr, /elsewhere/);
  });

  it('--summary prints the summary and a sample keyword search with citation links', () => {
    const r = run(['--archive', curated.path, '--summary', '--link-scheme', 'vscode-insiders']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Schema +v20/);
    assert.match(r.stdout, /Embeddings +.*test-embed \(\d+ vectors, dim 8\)/);
    assert.match(r.stdout, /Keyword search "[^"]+": top \d/);
    assert.match(r.stdout, /vscode-insiders:\/\/msgbrowse\.msgbrowse-vscode\/c\/\d+\/at\/\d+/);
  });

  it('an archive a newer msgbrowse wrote (v23) is served, with the notice in --summary and the start line only', async () => {
    const future = buildLegacyArchive(path.join(tmp, 'future'), 20);
    makeFutureArchive(future.path);
    const summary = run(['--archive', future.path, '--summary']);
    assert.equal(summary.status, 0, summary.stderr);
    assert.match(
      summary.stdout,
      /Schema +v23\nNotice +schema v23 — newer than v20, the newest this version was tested with; reading the tables it knows\n/,
    );
    assert.doesNotMatch(summary.stdout, /Without/);
    const stderr: string[] = [];
    const transport = new StdioClientTransport({
      command: CLI_NODE,
      args: [cli, '--archive', future.path],
      cwd: tmp,
      env: cleanEnv({ MSGBROWSE_LLM_EMBED_MODEL: '' }),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    const client = new Client({ name: 'cli-test', version: '0' });
    await client.connect(transport);
    const r = await client.callTool({ name: 'search_messages', arguments: { query: 'lease' } });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    assert.equal(
      (r.structuredContent as { hits: unknown[] }).hits.length,
      future.messages.filter((m) => /\blease/.test(m.body)).length,
    );
    assert.doesNotMatch(JSON.stringify(r), /newer|v23/, 'the notice is for people, never in a tool result');
    await client.close();
    assert.match(stderr.join(''), /serving .*msgbrowse\.sqlite \(schema v23 — newer than v20[^)]*\) over stdio/);
  });

  it('--exclude: matched as names are (case, accents), each listed by --summary; one that hides nothing is a warning on stderr', () => {
    const r = run(['--archive', curated.path, '--summary', '--exclude', 'zoe', '--exclude', 'Famly']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Hidden +"zoe" → \w+:Zoë$/m);
    assert.match(r.stdout, /^Hidden +"Famly" → nothing: it matches no conversation \(closest: "Family"/m);
    assert.match(r.stderr, /--exclude "Famly" matches no conversation, so it hides nothing — closest: "Family"/);
    assert.doesNotMatch(r.stderr, /"zoe" matches no/);
  });

  it('MSGBROWSE_EXCLUDE_FILE hides the conversations it lists (what an MCP bundle sets); an unreadable file stops the start', () => {
    const list = path.join(tmp, 'hidden.txt');
    fs.writeFileSync(list, 'zoe\r\n\nFamily\n');
    const r = run(['--archive', curated.path, '--summary'], { MSGBROWSE_EXCLUDE_FILE: list });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Hidden +"zoe" → \w+:Zoë$/m);
    assert.match(r.stdout, /^Hidden +"Family" → /m);
    // What Windows PowerShell 5 writes (`"zoe" > hidden.txt`): UTF-16LE with its BOM; and UTF-16BE, and a UTF-8 BOM.
    const encodings: [string, Buffer][] = [
      ['utf-16le', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('zoe\r\n', 'utf16le')])],
      ['utf-16be', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('zoe\r\n', 'utf16le').swap16()])],
      ['utf-8 bom', Buffer.from('\ufeffzoe\n', 'utf8')],
    ];
    for (const [name, bytes] of encodings) {
      fs.writeFileSync(list, bytes);
      const e = run(['--archive', curated.path, '--summary'], { MSGBROWSE_EXCLUDE_FILE: list });
      assert.equal(e.status, 0, `${name}: ${e.stderr}`);
      assert.match(e.stdout, /^Hidden +"zoe" → \w+:Zoë$/m, name);
    }
    // UTF-16 without a BOM would hide nothing: refused rather than served.
    fs.writeFileSync(list, Buffer.from('zoe\n', 'utf16le'));
    const noBom = run(['--archive', curated.path, '--summary'], { MSGBROWSE_EXCLUDE_FILE: list });
    assert.equal(noBom.status, 2);
    assert.match(noBom.stderr, /it holds NUL bytes: not UTF-8 text/);
    const missing = run(['--archive', curated.path, '--summary'], {
      MSGBROWSE_EXCLUDE_FILE: path.join(tmp, 'nope.txt'),
    });
    assert.equal(missing.status, 2);
    assert.match(
      missing.stderr,
      /cannot read MSGBROWSE_EXCLUDE_FILE .*nope\.txt \(ENOENT\): give a text file \(UTF-8 or UTF-16\) with one conversation name/,
    );
    assert.doesNotMatch(missing.stderr, /^\s+at /m, 'no stack trace');
  });

  it('what cannot be read on the wire is answered and the server keeps serving: not JSON (-32700), a line over 10 MiB (-32600), arguments that are no object (-32602)', async () => {
    const child = spawn(CLI_NODE, [cli, '--archive', curated.path], {
      cwd: tmp,
      env: cleanEnv({ MSGBROWSE_LLM_EMBED_MODEL: '' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const replies = new Map<string | number | null, Record<string, unknown>>();
    const nulls: Record<string, unknown>[] = [];
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const msg = JSON.parse(buf.slice(0, nl)) as { id?: string | number | null };
        buf = buf.slice(nl + 1);
        if (msg.id === null) nulls.push(msg);
        else if (msg.id !== undefined) replies.set(msg.id, msg);
      }
    });
    const send = (line: string) => child.stdin.write(`${line}\n`);
    const reply = async (id: string | number) => {
      for (let i = 0; i < 300 && !replies.has(id); i++) await new Promise((r) => setTimeout(r, 50));
      return replies.get(id) as
        | { result?: Record<string, unknown>; error?: { code: number; message: string } }
        | undefined;
    };
    try {
      send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'wire', version: '0' } },
        }),
      );
      assert.ok((await reply(1))?.result, 'initialized');
      send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      send('{"jsonrpc": "2.0", "id": 2, "method": tools/list}');
      send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'search_messages', arguments: 'lease' },
        }),
      );
      send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: { name: 'search_messages', arguments: { query: 'x'.repeat(11 * 1024 * 1024) } },
        }),
      );
      send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'search_messages', arguments: { query: 'le\u200base' } },
        }),
      );
      const bad = await reply(3);
      assert.deepEqual(bad?.error, {
        code: -32602,
        message:
          'arguments of search_messages must be an object of named parameters, e.g. {"query": "Lisbon"}; got a string ("lease")',
      });
      const big = await reply(4);
      assert.equal(big?.error?.code, -32600);
      assert.match(
        big?.error?.message ?? '',
        /longer than 10485760 bytes \(10 MiB\), the most one line may carry; it was not read/,
      );
      const zw = await reply(5);
      const sc = (zw?.result?.structuredContent ?? {}) as { hits: unknown[]; notes?: string[] };
      assert.ok(sc.hits.length > 0, 'a zero-width space inside a word no longer empties the search');
      assert.ok(sc.notes?.some((n) => /invisible characters .* were removed from the query/.test(n)));
      assert.deepEqual(
        nulls.map((n) => (n as { error: { code: number } }).error.code),
        [-32700],
        'the line that is not JSON is answered, id null',
      );
      assert.equal(replies.has(2), false);
    } finally {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    }
    assert.equal(child.exitCode, 0);
  });

  it('an archive without messages.sender is refused with one line naming the column', () => {
    const broken = writeArchiveWithoutColumn(path.join(tmp, 'nosender', 'msgbrowse.sqlite'), 'messages', 'sender');
    const r = run(['--archive', broken, '--summary']);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /^msgbrowse-mcp: cannot open archive: .*messages\.sender is missing \(msgbrowse v1–v20 have it\)/,
    );
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  });

  it('--ledger FILE: a JSON line per tool call and resource read (client, arguments, hashes); refused inside the archive folder', async () => {
    const ledger = path.join(tmp, 'state', 'disclosures.jsonl');
    const transport = new StdioClientTransport({
      command: CLI_NODE,
      args: [cli, '--archive', curated.path, '--ledger', ledger],
      cwd: tmp,
      env: cleanEnv({ MSGBROWSE_LLM_EMBED_MODEL: '' }),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-test', version: '0' });
    await client.connect(transport);
    const res = await client.callTool({ name: 'search_messages', arguments: { query: 'lease' } });
    const hits = (res.structuredContent as { hits: { hash: string }[] }).hits;
    assert.ok(hits.length > 0);
    const lease = curated.marks.leaseAgreement;
    await client.readResource({ uri: `msgbrowse://message/${lease.hash}` });
    await client.close();
    const lines = fs
      .readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 2);
    assert.deepEqual(
      {
        v: lines[0].v,
        client: lines[0].client,
        kind: lines[0].kind,
        name: lines[0].name,
        arguments: lines[0].arguments,
        ok: lines[0].ok,
      },
      {
        v: 1,
        client: { name: 'cli-test', version: '0' },
        kind: 'tool',
        name: 'search_messages',
        arguments: { query: 'lease' },
        ok: true,
      },
    );
    assert.deepEqual(
      lines[0].messages.map((m: { hash: string }) => m.hash),
      hits.map((x) => x.hash),
    );
    assert.equal(lines[1].kind, 'resource');
    assert.equal(lines[1].messages[0].hash, lease.hash);

    const refused = run([
      '--archive',
      path.dirname(curated.path),
      '--ledger',
      path.join(path.dirname(curated.path), 'l.jsonl'),
    ]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /refusing --ledger .*inside the archive's folder/);
    assert.ok(!fs.existsSync(path.join(path.dirname(curated.path), 'l.jsonl')));
    // The same folder reached through a symlink is the same folder.
    const link = path.join(tmp, 'archive-folder-link');
    fs.symlinkSync(path.dirname(curated.path), link);
    const throughLink = run(['--archive', curated.path, '--ledger', path.join(link, 'l.jsonl')]);
    assert.equal(throughLink.status, 2);
    assert.match(throughLink.stderr, /refusing --ledger .*inside the archive's folder/);
    assert.ok(!fs.existsSync(path.join(path.dirname(curated.path), 'l.jsonl')));
  });

  it('usage errors exit 2; --help and --version exit 0', () => {
    const help = run(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage: msgbrowse-mcp/);
    const version = run(['--version']);
    assert.equal(version.status, 0);
    assert.match(version.stdout, /^msgbrowse-mcp \d+\.\d+\.\d+/);
    for (const args of [
      ['--bogus'],
      ['--listen', '127.0.0.1:1'],
      ['--http', '--listen', 'nonsense'],
      ['--http', '--listen', '127.0.0.1:99999'],
      ['--http', '--listen', '0.0.0.0:8788'],
      ['--link-scheme', 'no spaces'],
    ]) {
      const r = run(args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.ok(!r.stderr.includes('    at '));
    }
    assert.match(run(['--http', '--listen', '0.0.0.0:8788']).stderr, /--allow-remote/);
  });
});
