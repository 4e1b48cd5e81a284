/**
 * 2026-07-28 `subscriptions/listen` streams against the CLI's wiring (mcp/subscriptions.ts `listenWatch` over the
 * HTTP and stdio transports), with a context whose archive changes on demand: one change reaches each open stream
 * exactly once however many are open, the archive is followed only while a stream is open, and a listen the SDK
 * refuses, or one cancelled, leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ServerContext } from '../../src/core/index';
import { createMcpServer, listenWatch, serverSink } from '../../src/mcp/index';
import { modernLeg, serveHttp, serveStdio } from '../../src/transport/index';

const URI = 'msgbrowse://conversation/1';
const SECRET = 'listen-streams-secret-0123456789';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const settle = (ms = 200) => new Promise((r) => setTimeout(r, ms));

/** A context whose one conversation grows (and a second appears) when `change()` is called. */
function changingContext() {
  const listeners = new Set<() => void>();
  let rows = [{ id: 1, messages: 1, minId: 1, maxId: 1 }];
  const archive = { conversationSignatures: async () => rows, listConversations: async () => [] };
  const ctx = {
    version: '0',
    citation: { scheme: 'vscode', authority: 'test' },
    archive: async () => archive,
    semantic: async () => ({}),
    onDidChange(l: () => void) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  } as unknown as ServerContext;
  const change = () => {
    rows = [
      { id: 1, messages: rows[0].messages + 1, minId: 1, maxId: rows[0].maxId + 1 },
      { id: 2, messages: 1, minId: 100, maxId: 100 },
    ];
    for (const l of [...listeners]) l();
  };
  return { ctx, listeners, change };
}

describe('2026-07-28 listen streams (the CLI wiring)', () => {
  it('over HTTP: three clients on one URI each hear one change once; the archive is followed only while a stream is open, and per-request servers leave nothing watching', async () => {
    const { ctx, listeners, change } = changingContext();
    const createServer = () => createMcpServer(ctx);
    const h = await serveHttp({
      createServer,
      modern: modernLeg(createServer, { listens: (notify) => listenWatch(ctx, notify) }),
      listen: { host: '127.0.0.1', port: 0 },
      secret: SECRET,
    });
    const clients: Client[] = [];
    try {
      const heard: { updated: number; listed: number }[] = [];
      const streams = [];
      for (let i = 0; i < 3; i++) {
        const c = new Client({ name: `c${i}`, version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
        await c.connect(
          new StreamableHTTPClientTransport(new URL(h.url), {
            requestInit: { headers: { Authorization: `Bearer ${SECRET}` } },
          }),
        );
        clients.push(c);
        const n = { updated: 0, listed: 0 };
        heard.push(n);
        c.setNotificationHandler('notifications/resources/updated', () => void n.updated++);
        c.setNotificationHandler('notifications/resources/list_changed', () => void n.listed++);
        await c.listTools();
        await c.listResources(); // a 2026-07-28 listing does not start a session watcher
        streams.push(await c.listen({ resourceSubscriptions: [URI], resourcesListChanged: true }));
      }
      assert.equal(listeners.size, 1, 'one watcher for every stream of the endpoint');
      change();
      await settle();
      assert.deepEqual(heard, [
        { updated: 1, listed: 1 },
        { updated: 1, listed: 1 },
        { updated: 1, listed: 1 },
      ]);
      for (const s of streams) await s.close();
      await settle();
      assert.equal(listeners.size, 0, 'nothing follows the archive once every stream closed');
    } finally {
      for (const c of clients) await c.close();
      await h.close();
    }
    assert.equal(listeners.size, 0);
  });

  it('over stdio: two streams on one URI each hear a change once; a refused listen and cancelled ones leave nothing watching', async () => {
    const { ctx, listeners, change } = changingContext();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const out: { id?: unknown; method?: string; error?: unknown; params?: { _meta?: Record<string, unknown> } }[] = [];
    let buf = '';
    stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        out.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
    });
    const server = createMcpServer(ctx);
    const h = await serveStdio(server, {
      stdin,
      stdout,
      handleSignals: false,
      listens: listenWatch(ctx, serverSink(server)),
    });
    const send = (m: object) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    const listen = (id: string, uris: unknown[]) =>
      send({
        id,
        method: 'subscriptions/listen',
        params: { _meta: META, notifications: { resourceSubscriptions: uris } },
      });
    try {
      listen('a', [URI]);
      listen('b', [URI]);
      listen('bad', [URI, 5]); // the SDK refuses the filter
      await settle();
      assert.ok(
        out.some((m) => m.id === 'bad' && m.error),
        JSON.stringify(out),
      );
      out.length = 0;
      change();
      await settle();
      const updates = out.filter((m) => m.method === 'notifications/resources/updated');
      const to = updates.map((m) => m.params?._meta?.['io.modelcontextprotocol/subscriptionId']).sort();
      assert.deepEqual(to, ['a', 'b'], 'one notification per open stream');
      for (const id of ['a', 'b']) send({ method: 'notifications/cancelled', params: { requestId: id, _meta: META } });
      await settle();
      assert.equal(listeners.size, 0, 'the refused and the cancelled streams leave nothing watching');
      listen('c', [URI]);
      await settle();
      assert.equal(listeners.size, 1);
    } finally {
      await h.close();
    }
    assert.equal(listeners.size, 0, 'closing the connection ends its streams');
  });
});
