/**
 * The stdio bridge (`msgbrowse-mcp --bridge FILE`), as a real process between an MCP client on stdio and the guarded
 * streamable-HTTP endpoint on a Unix socket / loopback TCP: relays faithfully (requests, server→client progress
 * notifications, cancellation), and never hangs — a refused secret, a dead host or a replaced endpoint end it with
 * one stderr line.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { z } from 'zod';
import {
  bridgeEndpointFile,
  serveHttp,
  sweepStaleBridgeEndpoints,
  writeBridgeEndpoint,
  type BridgeEndpoint,
  type HttpServerHandle,
} from '../../src/transport/index';

const ROOT = path.resolve(__dirname, '..', '..');
const SECRET = 'bridge-secret-0123456789abcdef';
const HEADER = 'x-msgbrowse-secret';

function makeServer(): McpServer {
  const s = new McpServer({ name: 't', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
  s.registerTool('echo', { description: 'echo', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text: `echo:${text}` }],
  }));
  s.registerTool(
    'poke',
    { description: 'sends a notification outside any request (the session stream)', inputSchema: z.object({}) },
    async () => {
      setTimeout(
        () => void s.server.sendResourceUpdated({ uri: 'msgbrowse://conversation/1' }).catch(() => undefined),
        200,
      );
      return { content: [{ type: 'text', text: 'poked' }] };
    },
  );
  s.registerTool(
    'slow',
    { description: 'progress, then waits to be cancelled', inputSchema: z.object({}) },
    async (_a, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined)
        await ctx.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1, total: 2 },
        });
      await new Promise<void>((resolve) => {
        if (ctx.mcpReq.signal.aborted) resolve();
        ctx.mcpReq.signal.addEventListener('abort', () => resolve());
        setTimeout(resolve, 20_000).unref();
      });
      return { content: [{ type: 'text', text: ctx.mcpReq.signal.aborted ? 'cancelled' : 'done' }] };
    },
  );
  return s;
}

function bridgeArgs(file: string): string[] {
  return ['--import', 'tsx', path.join(ROOT, 'src', 'cli', 'main.ts'), '--bridge', file];
}

/** Runs the bridge with nothing on stdin, returns its exit code, stderr and how long it took. */
function runToExit(file: string, timeoutMs = 15_000): Promise<{ code: number | null; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, bridgeArgs(file), { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, ms: Date.now() - t0 });
    });
    // An initialize request: a refused secret must surface as an exit, not a hang.
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })}\n`,
    );
  });
}

for (const kind of process.platform === 'win32' ? (['tcp'] as const) : (['socket', 'tcp'] as const)) {
  describe(`stdio bridge to the ${kind} endpoint`, () => {
    let handle: HttpServerHandle;
    let dir: string;
    let file: string;
    let ep: BridgeEndpoint;
    before(async () => {
      handle = await serveHttp({
        createServer: makeServer,
        listen: kind === 'socket' ? { socketPath: 'auto' } : { host: '127.0.0.1', port: 0 },
        secret: SECRET,
        secretHeader: HEADER,
      });
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-bridge-'));
      file = path.join(dir, 'mcp-endpoint.json');
      const b = handle.endpoint;
      ep = {
        v: 1,
        pid: process.pid,
        kind: b.kind,
        ...(b.kind === 'socket' ? { socketPath: b.path } : { host: b.host, port: b.port }),
        path: '/mcp',
        header: HEADER,
        secret: SECRET,
      };
      writeBridgeEndpoint(file, ep);
    });
    after(async () => {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('writes the endpoint file 0600', { skip: process.platform === 'win32' }, () => {
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    });

    it('relays requests, server→client progress and cancellation, and closes its session on stdin end', async () => {
      const client = new Client({ name: 'bridge-test', version: '1.0.0' });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: bridgeArgs(file),
        cwd: ROOT,
        stderr: 'pipe',
      });
      await client.connect(transport);
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['echo', 'poke', 'slow']);
      // A notification outside any request (resources/updated) reaches the stdio client over the session's GET stream.
      const updated: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
      await client.callTool({ name: 'poke', arguments: {} });
      for (let i = 0; i < 60 && !updated.length; i++) await new Promise((res) => setTimeout(res, 50));
      assert.deepEqual(
        updated,
        ['msgbrowse://conversation/1'],
        'the session-stream notification came through the bridge',
      );
      const r = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'echo:hi' }]);
      assert.equal(handle.sessionCount(), 1);
      const ac = new AbortController();
      let progressed = false;
      const call = client.callTool(
        { name: 'slow', arguments: {} },
        {
          signal: ac.signal,
          onprogress: () => {
            progressed = true;
            ac.abort();
          },
        },
      );
      await assert.rejects(call, /abort/i);
      assert.ok(progressed, 'the progress notification came back through the bridge');
      await client.close();
      for (let i = 0; i < 40 && handle.sessionCount() > 0; i++) await new Promise((res) => setTimeout(res, 50));
      assert.equal(handle.sessionCount(), 0, 'the bridge closed its HTTP session when stdin ended');
    });

    it('a wrong secret ends the bridge with a clear error, not a hang', async () => {
      const bad = path.join(dir, 'bad.json');
      writeBridgeEndpoint(bad, { ...ep, secret: 'not-the-secret-0123456789' });
      const r = await runToExit(bad);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /refused this bridge/);
    });

    it('a gone extension host ends the bridge at once', async () => {
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
      const gone = path.join(dir, 'gone.json');
      writeBridgeEndpoint(gone, { ...ep, pid: Number(dead) });
      const r = await runToExit(gone);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /is not running/);
    });

    it('a replaced endpoint (new secret) ends a running bridge within seconds', async () => {
      const moving = path.join(dir, 'moving.json');
      writeBridgeEndpoint(moving, ep);
      const client = new Client({ name: 'bridge-test', version: '1.0.0' });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: bridgeArgs(moving),
        cwd: ROOT,
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (d) => (stderr += d));
      const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
      await client.connect(transport);
      writeBridgeEndpoint(moving, { ...ep, secret: 'rotated-0123456789abcdef' });
      const t0 = Date.now();
      await closed;
      assert.ok(Date.now() - t0 < 5000, 'exited promptly');
      assert.match(stderr, /new secret/);
    });

    it('one endpoint file per extension host; files of gone hosts are swept', () => {
      const many = path.join(dir, 'hosts');
      const dead = Number(
        spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString(),
      );
      writeBridgeEndpoint(bridgeEndpointFile(many), ep);
      writeBridgeEndpoint(bridgeEndpointFile(many, dead), { ...ep, pid: dead });
      writeBridgeEndpoint(bridgeEndpointFile(many, process.ppid), { ...ep, pid: process.ppid });
      sweepStaleBridgeEndpoints(many);
      assert.deepEqual(fs.readdirSync(many).sort(), [`${process.pid}.json`, `${process.ppid}.json`].sort());
    });

    it('no endpoint file: one clear line', async () => {
      const r = await runToExit(path.join(dir, 'missing.json'));
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        /no msgbrowse endpoint file at .*missing\.json: open VS Code with the msgbrowse extension/,
      );
    });
  });
}
