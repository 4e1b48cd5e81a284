import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { serveStdio } from '../../src/transport/index';

function makeServer(): McpServer {
  const s = new McpServer({ name: 't', version: '1.0.0' });
  s.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return s;
}

function lines(stream: PassThrough): { next(): Promise<unknown>; all: string[] } {
  const all: string[] = [];
  const waiters: ((v: unknown) => void)[] = [];
  const queue: unknown[] = [];
  let buf = '';
  stream.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      all.push(line);
      const msg: unknown = JSON.parse(line);
      const w = waiters.shift();
      if (w) w(msg);
      else queue.push(msg);
    }
  });
  return {
    all,
    next: () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiters.push(r))),
  };
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
};

describe('stdio transport', () => {
  it('answers JSON-RPC line by line and ends cleanly when stdin ends', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const out = lines(stdout);
    const server = makeServer();
    let closedByServer = false;
    server.server.onclose = () => (closedByServer = true);
    const handle = await serveStdio(server, { stdin, stdout, handleSignals: false });
    stdin.write(`${JSON.stringify(INIT)}\n`);
    const init = (await out.next()) as { id: number; result: { serverInfo: { name: string } } };
    assert.equal(init.id, 1);
    assert.equal(init.result.serverInfo.name, 't');
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'hé' } },
      })}\n`,
    );
    const call = (await out.next()) as { id: number; result: { content: { text: string }[] } };
    assert.equal(call.result.content[0].text, 'hé');
    stdin.end();
    assert.equal(await handle.closed, 'stdin-end');
    assert.ok(closedByServer);
    // Every stdout line was JSON-RPC.
    assert.ok(out.all.every((l) => (JSON.parse(l) as { jsonrpc: string }).jsonrpc === '2.0'));
  });

  it('close() is idempotent and resolves `closed`', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const handle = await serveStdio(makeServer(), { stdin, stdout, handleSignals: false });
    await Promise.all([handle.close(), handle.close()]);
    assert.equal(await handle.closed, 'closed');
  });

  it('stops on SIGTERM and removes its signal handlers', async () => {
    const before = process.listenerCount('SIGTERM');
    const stdin = new PassThrough();
    const handle = await serveStdio(makeServer(), { stdin, stdout: new PassThrough() });
    assert.equal(process.listenerCount('SIGTERM'), before + 1);
    process.emit('SIGTERM');
    assert.equal(await handle.closed, 'signal');
    assert.equal(process.listenerCount('SIGTERM'), before);
  });
});
