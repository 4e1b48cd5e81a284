/**
 * 2026-07-28 `subscriptions/listen` streams against the CLI's wiring (mcp/subscriptions.ts `listenWatch` over the
 * HTTP and stdio transports), with a context whose archive changes on demand: one change reaches each open stream
 * exactly once however many are open, the archive is followed only while a stream is open, and a listen the SDK
 * refuses, or one cancelled, leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
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

/** A context whose one conversation grows (and a second appears) when `change()` is called; `hold()` stalls its reads. */
function changingContext() {
  const listeners = new Set<() => void>();
  let rows = [{ id: 1, messages: 1, minId: 1, maxId: 1 }];
  let gate: Promise<void> | undefined;
  const archive = {
    conversationSignatures: async () => {
      await gate;
      return rows;
    },
    listConversations: async () => {
      await gate;
      return [];
    },
    messageById: async () => undefined,
    messageByHash: async () => undefined,
  };
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
  const hold = () => {
    let open = () => {};
    gate = new Promise((r) => (open = r));
    return () => {
      gate = undefined;
      open();
    };
  };
  return { ctx, listeners, change, hold };
}

type Wire = { id?: unknown; method?: string; error?: unknown; params?: { _meta?: Record<string, unknown> } };

/** The CLI's stdio serving on in-memory streams: `send` writes lines, `out` collects what comes back. */
async function stdioServing(ctx: ServerContext) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: Wire[] = [];
  let buf = '';
  stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      out.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
  });
  const server = createMcpServer(ctx);
  const handle = await serveStdio(server, {
    stdin,
    stdout,
    handleSignals: false,
    listens: listenWatch(ctx, serverSink(server)),
  });
  const line = (m: object) => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`;
  const listenLine = (id: string, uris: unknown[], more: object = {}) =>
    line({
      id,
      method: 'subscriptions/listen',
      params: { _meta: META, notifications: { resourceSubscriptions: uris, ...more } },
    });
  const cancelLine = (id: string) =>
    line({ method: 'notifications/cancelled', params: { requestId: id, _meta: META } });
  const subscriptionOf = (m: Wire) => m.params?._meta?.['io.modelcontextprotocol/subscriptionId'];
  return { out, handle, write: (text: string) => stdin.write(text), listenLine, cancelLine, subscriptionOf };
}

/** The CLI's HTTP serving on a free loopback port, both eras. */
function httpServing(ctx: ServerContext) {
  const createServer = () => createMcpServer(ctx);
  return serveHttp({
    createServer,
    modern: modernLeg(createServer, { listens: (notify) => listenWatch(ctx, notify) }),
    listen: { host: '127.0.0.1', port: 0 },
    secret: SECRET,
  });
}

/** Runs `test` against a fresh stdio serving, closed afterwards whatever happens. */
async function withStdio(ctx: ServerContext, test: (io: Awaited<ReturnType<typeof stdioServing>>) => Promise<void>) {
  const io = await stdioServing(ctx);
  try {
    await test(io);
  } finally {
    await io.handle.close();
  }
}

describe('2026-07-28 listen streams (the CLI wiring)', () => {
  it('over HTTP: three clients on one URI each hear one change once; the archive is followed only while a stream is open, and per-request servers leave nothing watching', async () => {
    const { ctx, listeners, change } = changingContext();
    const h = await httpServing(ctx);
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
    await withStdio(ctx, async (io) => {
      io.write(io.listenLine('a', [URI]) + io.listenLine('b', [URI]) + io.listenLine('bad', [URI, 5])); // 5: refused
      await settle();
      assert.ok(
        io.out.some((m) => m.id === 'bad' && m.error),
        JSON.stringify(io.out),
      );
      io.out.length = 0;
      change();
      await settle();
      const updates = io.out.filter((m) => m.method === 'notifications/resources/updated');
      assert.deepEqual(updates.map(io.subscriptionOf).sort(), ['a', 'b'], 'one notification per open stream');
      io.write(io.cancelLine('a') + io.cancelLine('b'));
      await settle();
      assert.equal(listeners.size, 0, 'the refused and the cancelled streams leave nothing watching');
      io.write(io.listenLine('c', [URI]));
      await settle();
      assert.equal(listeners.size, 1);
    });
    assert.equal(listeners.size, 0, 'closing the connection ends its streams');
  });

  it('over stdio: a refused listen alone, and a stream on a message closed at once, leave nothing watching', async () => {
    const { ctx, listeners } = changingContext();
    await withStdio(ctx, async (io) => {
      io.write(io.listenLine('bad', [URI, 5]));
      await settle();
      assert.ok(io.out.some((m) => m.id === 'bad' && m.error));
      assert.equal(listeners.size, 0, 'a refused listen gives its slot back');
      io.write(io.listenLine('m', ['msgbrowse://message/7']) + io.cancelLine('m'));
      await settle();
      assert.equal(listeners.size, 0, 'its message lookup does not start the watch again');
    });
  });

  it('over stdio: a stream that replaces the last open one (listen b, cancel a, in one write) still hears changes', async () => {
    const { ctx, listeners, change } = changingContext();
    await withStdio(ctx, async (io) => {
      io.write(io.listenLine('a', [URI]));
      await settle();
      io.write(io.listenLine('b', [URI], { resourcesListChanged: true }) + io.cancelLine('a'));
      await settle();
      assert.equal(listeners.size, 1);
      io.out.length = 0;
      change();
      await settle();
      const heard = io.out.filter((m) => m.method?.startsWith('notifications/resources/'));
      assert.deepEqual(heard.map((m) => [m.method, io.subscriptionOf(m)]).sort(), [
        ['notifications/resources/list_changed', 'b'],
        ['notifications/resources/updated', 'b'],
      ]);
    });
  });

  it('over stdio: a listen cancelled while it waits is never served; the same id sent again is, once', async () => {
    const { ctx, listeners, hold } = changingContext();
    await withStdio(ctx, async (io) => {
      const open = hold();
      io.write(io.listenLine('x', ['msgbrowse://conversation/9']) + io.cancelLine('x') + io.listenLine('x', [URI]));
      await settle(50);
      open();
      await settle();
      const acks = io.out.filter((m) => m.method === 'notifications/subscriptions/acknowledged');
      assert.equal(acks.length, 1, JSON.stringify(io.out));
      assert.deepEqual((acks[0].params as { notifications?: unknown }).notifications, { resourceSubscriptions: [URI] });
      assert.equal(listeners.size, 1);
      io.write(io.cancelLine('x'));
      await settle();
      assert.equal(listeners.size, 0);
    });
  });

  it('over HTTP: a client gone before its stream is ready leaves nothing watching', async () => {
    const { ctx, listeners, hold } = changingContext();
    const h = await httpServing(ctx);
    try {
      const open = hold();
      const gone = new AbortController();
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'subscriptions/listen',
        params: { _meta: META, notifications: { resourceSubscriptions: [URI] } },
      });
      const request = fetch(h.url, {
        method: 'POST',
        body,
        signal: gone.signal,
        headers: {
          authorization: `Bearer ${SECRET}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'subscriptions/listen',
        },
      }).catch(() => undefined);
      await settle(100);
      assert.equal(listeners.size, 1, 'the stream is on its way');
      gone.abort();
      await request;
      await settle(100);
      open();
      await settle();
      assert.equal(listeners.size, 0);
    } finally {
      await h.close();
    }
  });

  it('an initialize-era session closed while its resources/list is answered does not start watching afterwards', async () => {
    const { ctx, listeners, hold } = changingContext();
    const server = createMcpServer(ctx);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 'legacy', version: '0' });
    await client.connect(b);
    const open = hold();
    const listing = client.listResources().catch(() => undefined);
    await settle(50);
    await client.close();
    await server.close();
    open();
    await listing;
    await settle();
    assert.equal(listeners.size, 0);
  });
});
