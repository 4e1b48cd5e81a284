// The Copilot harness check, run with Node >= 22 by suite/copilot-harness.ts while the extension host is alive:
// hands the MCP server configs (already projected exactly as VS Code projects provider definitions for the agent
// host) to the Copilot runtime bundled with the host, offline (no sign-in), once plainly and once with
// HTTP(S)_PROXY pointing at a dead proxy, and prints one JSON line: per run, each server's status, error and tools.
// Usage: node copilot-harness-check.mjs <input.json>   input: { sdk, mcpServers, timeoutMs? }
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const { CopilotClient, approveAll } = await import(pathToFileURL(path.join(input.sdk, 'dist', 'index.js')).href);
const deadline = input.timeoutMs ?? 30_000;

/** A loopback port nobody listens on: every proxied request fails to connect. */
const deadPort = await new Promise((resolve) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const dead = `http://127.0.0.1:${deadPort}`;
const PROXY_KEYS = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'http_proxy',
  'https_proxy',
  'ALL_PROXY',
  'all_proxy',
  'NO_PROXY',
  'no_proxy',
];

async function run(label, proxy) {
  const env = { ...process.env };
  for (const k of PROXY_KEYS) delete env[k];
  if (proxy) Object.assign(env, { HTTP_PROXY: dead, HTTPS_PROXY: dead, http_proxy: dead, https_proxy: dead });
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-copilot-'));
  const client = new CopilotClient({ useLoggedInUser: false, baseDirectory: base, env, logLevel: 'none' });
  try {
    await client.start();
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      enableConfigDiscovery: false,
      mcpServers: input.mcpServers,
    });
    const until = Date.now() + deadline;
    let servers = [];
    for (;;) {
      const list = await session.rpc.mcp.list();
      servers = list.servers ?? [];
      const settled = Object.keys(input.mcpServers).every((n) => {
        const s = servers.find((x) => x.name === n);
        return s && (s.status === 'connected' || s.status === 'failed' || s.status === 'needs-auth');
      });
      if (settled || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const out = [];
    for (const s of servers) {
      let tools = [];
      if (s.status === 'connected')
        tools = (await session.rpc.mcp.listTools({ serverName: s.name })).tools.map((t) => t.name);
      out.push({ name: s.name, status: s.status, error: s.error, tools });
    }
    await session.disconnect?.().catch(() => {});
    return { label, proxy: proxy ? dead : undefined, servers: out };
  } finally {
    await client.stop().catch(() => {});
    fs.rmSync(base, { recursive: true, force: true });
  }
}

const runs = [await run('plain', false), await run('dead proxy', true)];
process.stdout.write(`${JSON.stringify({ runs })}\n`);
process.exit(0);
