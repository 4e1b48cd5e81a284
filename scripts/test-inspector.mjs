#!/usr/bin/env node
// The official MCP Inspector (CLI mode) as an independent client of the built server (dist/cli.js).
//
//   node scripts/test-inspector.mjs
//
// Installs (once, outside the repo, see scripts/inspector/setup.mjs) a Node >= 22 and the pinned inspector, builds
// the bundle if stale, writes the curated fixture archive into a temp dir, and drives a copy of dist/ (no
// node_modules reachable) over stdio and over streamable HTTP with a bearer token. Every check asserts on the
// inspector's JSON output. Prints one line per check, then `N passed, N failed`; exits 0 only if all passed.
// Environment: MSGBROWSE_TEST_HOST_DIR (cache dir, default ~/.cache/msgbrowse-test-host).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  digestDir,
  ensureBundle,
  nodeModulesReachable,
  runInspector,
  startHttpServer,
  writeCuratedArchive,
} from './inspector/harness.mjs';
import { ensureInspector, ensureNode } from './inspector/setup.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const results = { passed: 0, failed: 0 };
const note = (msg) => process.stderr.write(`test-inspector: ${msg}\n`);

// Every tool with a committed contract snapshot (test/mcp/__toolsnaps__/<name>.snap.json), sorted; not src/mcp/tools.
const EXPECTED_TOOLS = fs
  .readdirSync(path.join(root, 'test', 'mcp', '__toolsnaps__'))
  .filter((f) => f.endsWith('.snap.json'))
  .map((f) => f.slice(0, -'.snap.json'.length))
  .sort();
const AUTHORITY = 'msgbrowse.msgbrowse-vscode';
const MESSAGE_LINK = new RegExp(`^vscode://${AUTHORITY.replace(/\./g, '\\.')}/c/(\\d+)/at/(\\d+)\\?h=([0-9a-f]{16})$`);
const CONVERSATION_LINK = new RegExp(`^vscode://${AUTHORITY.replace(/\./g, '\\.')}/c/(\\d+)$`);
const TOKEN = 'inspector-test-token-0123456789abcdef';

class CheckFailure extends Error {}
function assert(cond, message) {
  if (!cond) throw new CheckFailure(message);
}

function oneLine(s) {
  return String(s).replace(/\s+/g, ' ').trim().slice(0, 400);
}

/** Runs one named check; a thrown error fails it with a one-line reason. */
async function check(name, fn) {
  try {
    await fn();
    results.passed++;
    console.log(`ok    ${name}`);
  } catch (e) {
    results.failed++;
    console.log(`FAIL  ${name}: ${oneLine(e instanceof Error ? e.message : e)}`);
  }
}

/** The inspector's parsed JSON, or a failure naming its exit code and output. */
function jsonOf(r) {
  assert(r.code === 0, `inspector exited ${r.code}: ${oneLine(r.stderr || r.stdout)}`);
  assert(r.json !== undefined, `inspector stdout is not JSON: ${oneLine(r.stdout)}`);
  return r.json;
}

/** A successful tools/call result: not isError, has text content and structuredContent. */
function toolResult(r) {
  const res = jsonOf(r);
  const text = (res.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
  assert(res.isError !== true, `tool returned isError: ${oneLine(text)}`);
  assert(text.length > 0, 'no text content');
  assert(res.structuredContent && typeof res.structuredContent === 'object', 'no structuredContent');
  return { res, text, data: res.structuredContent };
}

function assertHit(h, where) {
  assert(Number.isInteger(h.message_id) && h.message_id > 0, `${where}: message_id ${h.message_id}`);
  assert(/^[0-9a-f]{64}$/.test(h.hash ?? ''), `${where}: hash ${JSON.stringify(h.hash)} is not a sha256 hex`);
  const m = MESSAGE_LINK.exec(h.link ?? '');
  assert(m, `${where}: link ${JSON.stringify(h.link)} is not vscode://${AUTHORITY}/c/<id>/at/<id>?h=<16 hex>`);
  assert(
    Number(m[1]) === h.conversation_id && Number(m[2]) === h.message_id,
    `${where}: link ${h.link} disagrees with ids`,
  );
  assert(h.hash.startsWith(m[3]), `${where}: link ${h.link} carries another hash than ${h.hash}`);
  for (const k of ['conversation', 'source', 'sender', 'timestamp', 'text']) {
    assert(typeof h[k] === 'string', `${where}: ${k} missing`);
  }
}

function fatal(step, e) {
  results.failed++;
  console.log(`FAIL  ${step}: ${oneLine(e instanceof Error ? e.message : e)}`);
  console.log(`${results.passed} passed, ${results.failed} failed`);
  process.exit(1);
}

async function main() {
  // 1. Toolchain: Node >= 22 and the pinned inspector (installed outside the repo on first run).
  let node, inspectorPkg;
  try {
    node = ensureNode(note);
    inspectorPkg = ensureInspector(node, note);
  } catch (e) {
    fatal('install Node >= 22 and the MCP Inspector', e);
  }
  note(`@modelcontextprotocol/inspector@${inspectorPkg.version} under Node ${node.version} (${node.bin})`);
  const inspector = { node: node.bin, entry: inspectorPkg.entry };

  // 2. The built server (copied where no node_modules is reachable) and a fixture archive in a temp dir.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-inspector-'));
  process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  let cli, summary, archiveDir, before;
  try {
    if (ensureBundle(root)) note('built dist/ with node esbuild.js');
    fs.cpSync(path.join(root, 'dist'), path.join(tmp, 'dist'), { recursive: true });
    cli = path.join(tmp, 'dist', 'cli.js');
    archiveDir = path.join(tmp, 'archive');
    summary = writeCuratedArchive(root, archiveDir);
    before = digestDir(archiveDir);
  } catch (e) {
    fatal('build the bundle and the fixture archive', e);
  }
  await check('the bundle runs from a copy with no node_modules reachable', () => {
    assert(!nodeModulesReachable(path.dirname(cli)), `node_modules reachable from ${path.dirname(cli)}`);
  });

  // The inspector inherits this environment and passes it to the stdio server: Node >= 22 first on PATH (the
  // inspector re-spawns `node`), a throwaway HOME, semantic search off (deterministic, no network).
  const home = path.join(tmp, 'home');
  fs.mkdirSync(home);
  const env = {
    PATH: `${path.dirname(node.bin)}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    XDG_CACHE_HOME: path.join(home, '.cache'),
    LANG: 'C.UTF-8',
    MSGBROWSE_LLM_EMBED_MODEL: '',
  };
  const serverArgs = [cli, '--archive', archiveDir, '--cache-dir', path.join(tmp, 'vector-cache')];
  const stdio = [process.execPath, ...serverArgs];
  const call = (tool, args = {}, target = stdio, extra = []) =>
    runInspector(inspector, env, target, [
      ...extra,
      '--method',
      'tools/call',
      '--tool-name',
      tool,
      ...(Object.keys(args).length ? ['--tool-arg', ...Object.entries(args).map(([k, v]) => `${k}=${v}`)] : []),
    ]);

  // 3. stdio.
  let stdioTools;
  await check(
    'stdio tools/list: every snapshotted tool with titles, read-only annotations, input and output schemas',
    async () => {
      const { tools } = jsonOf(await runInspector(inspector, env, stdio, ['--method', 'tools/list']));
      assert(Array.isArray(tools), 'no tools array');
      const names = tools.map((t) => t.name);
      assert(
        JSON.stringify([...names].sort()) === JSON.stringify(EXPECTED_TOOLS),
        `tools are ${names.join(', ')}; expected ${EXPECTED_TOOLS.join(', ')}`,
      );
      for (const t of tools) {
        assert(typeof t.title === 'string' && t.title.length > 0, `${t.name}: no title`);
        assert(typeof t.description === 'string' && t.description.length > 20, `${t.name}: no description`);
        const a = t.annotations ?? {};
        assert(
          a.readOnlyHint === true &&
            a.destructiveHint === false &&
            a.idempotentHint === true &&
            a.openWorldHint === false,
          `${t.name}: annotations ${JSON.stringify(a)}`,
        );
        assert(
          t.inputSchema?.type === 'object' && t.inputSchema.additionalProperties === false,
          `${t.name}: inputSchema not a strict object`,
        );
        assert(t.outputSchema?.type === 'object' && t.outputSchema.properties, `${t.name}: no object outputSchema`);
      }
      const search = tools.find((t) => t.name === 'search_messages');
      assert(search.inputSchema.required?.includes('query'), 'search_messages: query is not required');
      assert(search.outputSchema.properties.hits?.type === 'array', 'search_messages: outputSchema has no hits array');
      stdioTools = names;
    },
  );

  let leaseHits;
  await check('stdio search_messages query=lease: cited hits with message_id, hash and link', async () => {
    const { res, text, data } = toolResult(await call('search_messages', { query: 'lease' }));
    assert(Array.isArray(data.hits) && data.hits.length >= 2, `expected >= 2 hits, got ${data.hits?.length}`);
    for (const [i, h] of data.hits.entries()) assertHit(h, `hit ${i}`);
    assert(
      data.hits.every((h) => /\*\*lease\*\*/i.test(h.text)),
      'a hit text lacks the bold **lease** match',
    );
    assert(
      data.hits.some((h) => h.conversation === 'Harper' && h.text.includes('the **lease** agreement is ready')),
      'the Harper lease message is missing',
    );
    assert(
      data.semantic?.used === false && /no embedding model/.test(data.semantic.reason ?? ''),
      `semantic status ${JSON.stringify(data.semantic)}`,
    );
    for (const h of data.hits) assert(text.includes(h.link), `text content does not cite ${h.link}`);
    const links = res.content.filter((c) => c.type === 'resource_link').map((c) => c.uri);
    const first = data.hits[0];
    assert(
      links.includes(`msgbrowse://message/${first.message_id}?h=${first.hash.slice(0, 16)}`),
      `no hash-anchored resource_link for the first hit (${links.join(', ')})`,
    );
    // The payload policy: message links of a search are for the user (shown, read on demand), never inlined for the model.
    const audiences = res.content
      .filter((c) => c.type === 'resource_link')
      .map((c) => JSON.stringify(c.annotations?.audience));
    assert(
      audiences.every((a) => a === '["user"]'),
      `search message links must carry audience ["user"], got ${audiences.join(', ')}`,
    );
    leaseHits = data.hits;
  });

  await check('stdio get_context by hash: centers on the hit, same ids, neighbours in order', async () => {
    assert(leaseHits, 'needs the search hits');
    const target = leaseHits.find((h) => h.text.includes('agreement')) ?? leaseHits[0];
    const { res, data } = toolResult(await call('get_context', { hash: target.hash, window: 2 }));
    const links = res.content.filter((c) => c.type === 'resource_link').map((c) => c.uri);
    assert(
      links.length === 1 && links[0] === `msgbrowse://conversation/${target.conversation_id}`,
      `get_context links only its conversation, got ${links.join(', ')}`,
    );
    assert(data.message_id === target.message_id, `message_id ${data.message_id}, expected ${target.message_id}`);
    assert(
      data.hash === target.hash && data.conversation_id === target.conversation_id,
      'hash or conversation_id differ from the hit',
    );
    assert(
      Array.isArray(data.messages) && data.messages.some((m) => m.message_id === target.message_id),
      'target not among messages',
    );
    assert(data.messages.length >= 2 && data.messages.length <= 5, `window 2 gave ${data.messages.length} messages`);
    for (const [i, m] of data.messages.entries()) assertHit(m, `context ${i}`);
    const ts = data.messages.map((m) => m.timestamp);
    assert(
      ts.every((t, i) => i === 0 || ts[i - 1] <= t),
      `messages not in time order: ${ts.join(', ')}`,
    );
  });

  await check('stdio list_conversations: every conversation with counts and links, most recent first', async () => {
    const { data } = toolResult(await call('list_conversations'));
    const convs = data.conversations;
    assert(
      Array.isArray(convs) && convs.length === summary.conversations,
      `got ${convs?.length}, archive has ${summary.conversations}`,
    );
    const total = convs.reduce((n, c) => n + c.message_count, 0);
    assert(total === summary.messages, `message counts sum to ${total}, archive has ${summary.messages}`);
    for (const c of convs) {
      const m = CONVERSATION_LINK.exec(c.link ?? '');
      assert(m && Number(m[1]) === c.id, `${c.name}: link ${c.link}`);
    }
    const names = convs.map((c) => `${c.name}/${c.source}`);
    for (const want of [
      'Harper/signal',
      'Zoë/signal',
      'Mallory <script>/signal',
      'MJ/whatsapp',
      'Empty Thread/signal',
    ]) {
      assert(names.includes(want), `missing ${want} in ${names.join(', ')}`);
    }
    assert(convs.filter((c) => c.name === 'MJ').length === 2, 'MJ should exist in two sources');
    // Timestamps keep the archive's own text (legacy iMessage rows read "Apr 01, 2017 12:00:00 PM"): compare as dates.
    const last = convs.filter((c) => c.last_timestamp).map((c) => [c.last_timestamp, Date.parse(c.last_timestamp)]);
    assert(
      last.every(([t, ms]) => Number.isFinite(ms) || !t),
      `unparseable last_timestamp in ${last.map(([t]) => t).join(', ')}`,
    );
    assert(
      last.every(([, ms], i) => i === 0 || last[i - 1][1] >= ms),
      `not most recent first: ${last.map(([t]) => t).join(', ')}`,
    );
  });

  await check(
    'stdio get_conversation with an unknown name: isError, "not found", points to list_conversations',
    async () => {
      const res = jsonOf(await call('get_conversation', { name: 'Nobody Such' }));
      const text = (res.content ?? []).map((c) => c.text ?? '').join('\n');
      assert(res.isError === true, `isError is ${res.isError}: ${oneLine(text)}`);
      assert(
        /not found/.test(text) && text.includes('Nobody Such') && text.includes('list_conversations'),
        `message: ${oneLine(text)}`,
      );
      assert(!/\bat .+:\d+:\d+/.test(text), 'message carries a stack trace');
    },
  );

  await check('stdio unknown tool argument: isError naming the allowed parameters', async () => {
    const res = jsonOf(await call('get_conversation', { conversation: 'Harper' }));
    const text = (res.content ?? []).map((c) => c.text ?? '').join('\n');
    assert(res.isError === true, `isError is ${res.isError}`);
    assert(
      /unknown parameter "conversation"/.test(text) && /allowed: .*conversation_id/.test(text),
      `message: ${oneLine(text)}`,
    );
  });

  await check('stdio resources/templates/list: conversation and message templates', async () => {
    const { resourceTemplates } = jsonOf(
      await runInspector(inspector, env, stdio, ['--method', 'resources/templates/list']),
    );
    const uris = (resourceTemplates ?? []).map((t) => t.uriTemplate).sort();
    assert(
      JSON.stringify(uris) === JSON.stringify(['msgbrowse://conversation/{id}', 'msgbrowse://message/{id}{?h}']),
      `templates ${uris.join(', ')}`,
    );
    assert(
      resourceTemplates.every((t) => t.mimeType === 'text/markdown' && t.title),
      'a template lacks title or mimeType',
    );
  });

  await check(
    'stdio resources/read msgbrowse://message/<hit>: markdown with the citation link, JSON with the same ids',
    async () => {
      assert(leaseHits, 'needs the search hits');
      const h = leaseHits[0];
      const uri = `msgbrowse://message/${h.message_id}?h=${h.hash.slice(0, 16)}`;
      const { contents } = jsonOf(
        await runInspector(inspector, env, stdio, ['--method', 'resources/read', '--uri', uri]),
      );
      assert(
        Array.isArray(contents) && contents.length > 0 && contents.every((c) => c.uri === uri),
        `contents ${oneLine(JSON.stringify(contents))}`,
      );
      const md = contents.find((c) => c.mimeType === 'text/markdown');
      assert(
        md?.text.includes(h.link) && md.text.includes('lease'),
        'no markdown content with the citation link and the message',
      );
      const js = contents.find((c) => c.mimeType === 'application/json');
      assert(js, `no application/json content (got ${contents.map((c) => c.mimeType).join(', ')})`);
      const m = JSON.parse(js.text).message;
      assert(
        m?.message_id === h.message_id && m.hash === h.hash && m.link === h.link,
        `JSON message ${oneLine(JSON.stringify(m))}`,
      );
    },
  );

  // 4. Streamable HTTP with a bearer token (server on a kernel-chosen free loopback port, URL read from its banner).
  let server;
  try {
    server = await startHttpServer(
      [
        cli,
        '--archive',
        path.join(archiveDir, 'msgbrowse.sqlite'),
        '--cache-dir',
        path.join(tmp, 'vector-cache'),
        '--http',
        '--listen',
        '127.0.0.1:0',
      ],
      { ...env, MSGBROWSE_MCP_TOKEN: TOKEN },
    );
  } catch (e) {
    await check('HTTP server starts', () => {
      throw e;
    });
  }
  if (server) {
    const http = [server.url];
    const auth = ['--transport', 'http', '--header', `Authorization: Bearer ${TOKEN}`];
    await check('http tools/list with the bearer token: the same tools', async () => {
      const { tools } = jsonOf(await runInspector(inspector, env, http, [...auth, '--method', 'tools/list']));
      const names = (tools ?? []).map((t) => t.name);
      assert(
        JSON.stringify(stdioTools ? names : [...names].sort()) === JSON.stringify(stdioTools ?? EXPECTED_TOOLS),
        `tools ${names.join(', ')}`,
      );
    });
    await check('http search_messages: the same structured hits as over stdio', async () => {
      const { data } = toolResult(await call('search_messages', { query: 'lease' }, http, auth));
      assert(leaseHits, 'needs the stdio hits');
      assert(JSON.stringify(data.hits) === JSON.stringify(leaseHits), 'hits differ from the stdio run');
    });
    await check('http list_conversations source=whatsapp: filtered', async () => {
      const { data } = toolResult(await call('list_conversations', { source: 'whatsapp' }, http, auth));
      assert(
        data.conversations.length >= 2 && data.conversations.every((c) => c.source === 'whatsapp'),
        `got ${oneLine(JSON.stringify(data.conversations.map((c) => c.source)))}`,
      );
    });
    await check('http with a wrong token: the inspector is refused (non-zero exit, "Refused")', async () => {
      const r = await runInspector(inspector, env, http, [
        '--transport',
        'http',
        '--header',
        'Authorization: Bearer wrong-token-wrong-token',
        '--method',
        'tools/list',
      ]);
      assert(r.code !== 0, 'inspector exited 0');
      assert(/Refused: missing or wrong secret/.test(r.stdout + r.stderr), `output: ${oneLine(r.stdout + r.stderr)}`);
    });
    await check('http server stops cleanly on SIGTERM', async () => {
      const code = await server.stop();
      assert(code === 0, `exit ${code}: ${oneLine(server.stderr())}`);
    });
  }

  // 5. Read-only: the archive dir holds the same bytes and no new files (-wal, -shm, journals).
  await check('the archive is byte-for-byte unchanged and no files were added', () => {
    const after = digestDir(archiveDir);
    assert(
      JSON.stringify(Object.keys(after)) === JSON.stringify(Object.keys(before)),
      `files ${Object.keys(before).join(',')} → ${Object.keys(after).join(',')}`,
    );
    for (const [name, digest] of Object.entries(before)) assert(after[name] === digest, `${name} changed`);
  });

  note(`inspector ${inspectorPkg.version}, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${results.passed} passed, ${results.failed} failed`);
  process.exit(results.failed === 0 ? 0 : 1);
}

main().catch((e) => fatal('unexpected error', e));
