import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { type ListenWatchFactory, modernLeg, serveHttp, type HttpServerHandle } from '../../src/transport/index';

const SECRET = 'test-secret-0123456789abcdef';
const HEADER = 'X-Msgbrowse-Secret';

let built = 0;
function makeServer(): McpServer {
  built++;
  const s = new McpServer({ name: 't', version: '1.0.0' });
  s.registerTool(
    'echo',
    { description: 'echo', inputSchema: z.object({ text: z.string() }), annotations: { readOnlyHint: true } },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo:${text}` }] }),
  );
  return s;
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function raw(
  target: { port: number } | { socketPath: string },
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        ...('port' in target ? { host: '127.0.0.1', port: target.port } : { socketPath: target.socketPath }),
        method: opts.method ?? 'POST',
        path: opts.path ?? '/mcp',
        headers: opts.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    if (opts.body) req.write(opts.body);
    req.end();
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
const ACCEPT = 'application/json, text/event-stream';

async function connect(
  url: string,
  headers: Record<string, string>,
): Promise<{ client: Client; t: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'test', version: '0' });
  const t = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(t);
  return { client, t };
}

describe('HTTP transport, extension mode (custom header, never 401/403)', () => {
  let h: HttpServerHandle;
  let port: number;
  before(async () => {
    h = await serveHttp({ createServer: makeServer, listen: { port: 0 }, secret: SECRET, secretHeader: HEADER });
    assert.equal(h.endpoint.kind, 'tcp');
    port = h.endpoint.kind === 'tcp' ? h.endpoint.port : 0;
  });
  after(async () => {
    await h.close();
  });

  it('binds only loopback by default and reports a 127.0.0.1 URL', () => {
    assert.equal(h.url, `http://127.0.0.1:${port}/mcp`);
    assert.ok(h.endpoint.kind === 'tcp' && h.endpoint.host === '127.0.0.1' && !h.endpoint.remote);
  });

  it('serves tools/list and tools/call through the SDK client with the right secret', async () => {
    const { client, t } = await connect(h.url, { [HEADER]: SECRET });
    const tools = await client.listTools();
    assert.deepEqual(
      tools.tools.map((x) => x.name),
      ['echo'],
    );
    const res = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual(res.content, [{ type: 'text', text: 'echo:hi' }]);
    assert.equal(h.sessionCount(), 1);
    await t.terminateSession();
    await client.close();
    assert.equal(h.sessionCount(), 0);
  });

  it('refuses a missing or wrong secret with 404 and a JSON-RPC error body', async () => {
    const variants: Record<string, string>[] = [
      {},
      { [HEADER]: 'wrong' },
      { [HEADER]: `${SECRET}x` },
      { Authorization: `Bearer ${SECRET}` },
    ];
    for (const headers of variants) {
      const r = await raw(
        { port },
        { headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body: INIT },
      );
      assert.equal(r.status, 404, JSON.stringify(headers));
      const body = JSON.parse(r.body);
      assert.equal(body.jsonrpc, '2.0');
      assert.match(body.error.message, /secret/);
      assert.ok(!r.body.includes(SECRET));
    }
    assert.equal(h.sessionCount(), 0);
  });

  it('the SDK client with a wrong secret fails to connect (no session is created)', async () => {
    await assert.rejects(connect(h.url, { [HEADER]: 'nope' }));
    assert.equal(h.sessionCount(), 0);
  });

  it('refuses a rebinding Host, a foreign Origin and other paths — never 401/403', async () => {
    const ok = { 'content-type': 'application/json', accept: ACCEPT, [HEADER]: SECRET };
    const cases: { headers?: Record<string, string>; path?: string; method?: string }[] = [
      { headers: { ...ok, host: `evil.example:${port}` } },
      { headers: { ...ok, host: `127.0.0.1:${port + 1}` } },
      { headers: { ...ok, host: '127.0.0.1' } },
      { headers: { ...ok, origin: 'https://evil.example' } },
      { headers: { ...ok, origin: 'null' } },
      { headers: { ...ok, origin: `http://evil.example:${port}` } },
      { headers: ok, path: '/' },
      { headers: ok, path: '/mcp/' },
      { headers: ok, path: '/.well-known/oauth-protected-resource' },
      { headers: ok, path: '/sse', method: 'GET' },
      { headers: {}, path: '/anything', method: 'GET' },
    ];
    for (const c of cases) {
      const r = await raw(
        { port },
        { method: c.method, path: c.path, headers: c.headers, body: c.method === 'GET' ? undefined : INIT },
      );
      assert.equal(r.status, 404, JSON.stringify(c));
      assert.notEqual(r.status, 401);
      assert.notEqual(r.status, 403);
    }
    assert.equal(h.sessionCount(), 0);
  });

  it('accepts localhost:<port> as Host and a loopback Origin', async () => {
    const r = await raw(
      { port },
      {
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT,
          [HEADER]: SECRET,
          host: `localhost:${port}`,
          origin: `http://127.0.0.1:${port}`,
        },
        body: INIT,
      },
    );
    assert.equal(r.status, 200);
    const sid = r.headers['mcp-session-id'];
    assert.ok(typeof sid === 'string' && sid.length > 0);
    const del = await raw({ port }, { method: 'DELETE', headers: { [HEADER]: SECRET, 'mcp-session-id': sid } });
    assert.equal(del.status, 200);
    assert.equal(h.sessionCount(), 0);
  });

  it('unknown session → 404; DELETE closes the session and it is gone afterwards', async () => {
    const hdr = { [HEADER]: SECRET, 'content-type': 'application/json', accept: ACCEPT };
    const unknown = await raw(
      { port },
      {
        headers: { ...hdr, 'mcp-session-id': 'no-such-session' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      },
    );
    assert.equal(unknown.status, 404);
    assert.equal(JSON.parse(unknown.body).error.code, -32001);

    const init = await raw({ port }, { headers: hdr, body: INIT });
    assert.equal(init.status, 200);
    const sid = String(init.headers['mcp-session-id']);
    assert.equal(h.sessionCount(), 1);
    const del = await raw({ port }, { method: 'DELETE', headers: { ...hdr, 'mcp-session-id': sid } });
    assert.equal(del.status, 200);
    assert.equal(h.sessionCount(), 0);
    const again = await raw(
      { port },
      {
        headers: { ...hdr, 'mcp-session-id': sid },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
      },
    );
    assert.equal(again.status, 404);
  });

  it('unsupported methods → 405 with Allow; GET without a session → 405; non-initialize without session → 400', async () => {
    const hdr = { [HEADER]: SECRET };
    const put = await raw({ port }, { method: 'PUT', headers: hdr, body: '{}' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.allow, 'GET, POST, DELETE');
    const get = await raw({ port }, { method: 'GET', headers: { ...hdr, accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    const list = await raw(
      { port },
      {
        headers: { ...hdr, 'content-type': 'application/json', accept: ACCEPT },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      },
    );
    assert.equal(list.status, 400);
  });

  it('rejects bodies over the limit (413) and malformed JSON (400)', async () => {
    const hdr = { [HEADER]: SECRET, 'content-type': 'application/json', accept: ACCEPT };
    const big = await raw({ port }, { headers: hdr, body: `{"x":"${'a'.repeat(5 * 1024 * 1024)}"}` });
    assert.equal(big.status, 413);
    const bad = await raw({ port }, { headers: hdr, body: '{not json' });
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.body).error.code, -32700);
  });

  it('a bad Accept on initialize does not leave a session behind', async () => {
    const r = await raw(
      { port },
      { headers: { [HEADER]: SECRET, 'content-type': 'application/json', accept: 'application/json' }, body: INIT },
    );
    assert.equal(r.status, 406);
    assert.equal(h.sessionCount(), 0);
  });
});

describe('HTTP transport: VS Code client request sequence (extHostMcp.ts)', () => {
  it('POST initialize → notifications/initialized → GET back-channel (SSE) → tools/call → DELETE; no 401/403 anywhere', async () => {
    const h = await serveHttp({ createServer: makeServer, listen: { port: 0 }, secret: SECRET, secretHeader: HEADER });
    const port = h.endpoint.kind === 'tcp' ? h.endpoint.port : 0;
    const seen: number[] = [];
    // What VS Code sends on every request: definition headers + its own user-agent; Host is the URI's authority.
    const base = { [HEADER]: SECRET, 'user-agent': 'Visual Studio Code/1.105.0', host: `127.0.0.1:${port}` };
    const postHeaders = { ...base, 'content-type': 'application/json', accept: 'text/event-stream, application/json' };
    try {
      const init = await raw({ port }, { headers: postHeaders, body: INIT });
      seen.push(init.status);
      assert.equal(init.status, 200);
      const sid = String(init.headers['mcp-session-id']);
      const withSid = { ...postHeaders, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
      const notif = await raw(
        { port },
        { headers: withSid, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) },
      );
      seen.push(notif.status);
      assert.equal(notif.status, 202);

      // The GET back-channel stays open as an SSE stream.
      const sse = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'GET',
            path: '/mcp',
            headers: {
              ...base,
              accept: 'text/event-stream',
              'mcp-session-id': sid,
              'mcp-protocol-version': '2025-06-18',
            },
            agent: false,
          },
          resolve,
        );
        req.on('error', reject);
        req.end();
      });
      seen.push(sse.statusCode ?? 0);
      assert.equal(sse.statusCode, 200);
      assert.match(String(sse.headers['content-type']), /text\/event-stream/);

      const call = await raw(
        { port },
        {
          headers: withSid,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 5,
            method: 'tools/call',
            params: { name: 'echo', arguments: { text: 'vs' } },
          }),
        },
      );
      seen.push(call.status);
      assert.equal(call.status, 200);
      assert.match(call.body, /echo:vs/);

      const ended = new Promise<void>((resolve) => sse.on('close', () => resolve()));
      sse.resume();
      const del = await raw(
        { port },
        { method: 'DELETE', headers: { ...base, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' } },
      );
      seen.push(del.status);
      assert.equal(del.status, 200);
      await ended; // DELETE ends the back-channel too
      assert.equal(h.sessionCount(), 0);

      // After the session is gone VS Code gets 404 and re-initializes (never a sign-in prompt).
      const stale = await raw(
        { port },
        { headers: withSid, body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' }) },
      );
      seen.push(stale.status);
      assert.equal(stale.status, 404);
      assert.ok(!seen.includes(401) && !seen.includes(403), String(seen));
    } finally {
      await h.close();
    }
  });

  it('closes sessions idle longer than sessionIdleMs, but not one with an open back-channel', async () => {
    const h = await serveHttp({
      createServer: makeServer,
      listen: { port: 0 },
      secret: SECRET,
      secretHeader: HEADER,
      sessionIdleMs: 200,
    });
    const port = h.endpoint.kind === 'tcp' ? h.endpoint.port : 0;
    const hdr = { [HEADER]: SECRET, 'content-type': 'application/json', accept: ACCEPT };
    try {
      const idle = await raw({ port }, { headers: hdr, body: INIT });
      const busy = await raw({ port }, { headers: hdr, body: INIT });
      const busySid = String(busy.headers['mcp-session-id']);
      const sse = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'GET',
            path: '/mcp',
            headers: { [HEADER]: SECRET, accept: 'text/event-stream', 'mcp-session-id': busySid },
            agent: false,
          },
          resolve,
        );
        req.on('error', reject);
        req.end();
      });
      assert.equal(sse.statusCode, 200);
      sse.resume();
      assert.equal(h.sessionCount(), 2);
      const t0 = Date.now();
      while (h.sessionCount() > 1 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 50));
      assert.equal(h.sessionCount(), 1);
      const gone = await raw(
        { port },
        {
          headers: { ...hdr, 'mcp-session-id': String(idle.headers['mcp-session-id']) },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        },
      );
      assert.equal(gone.status, 404);
    } finally {
      await h.close();
    }
  });
});

describe('HTTP transport, CLI mode (Bearer token; refusals 404 as in the extension, the reason in the body)', () => {
  let h: HttpServerHandle;
  let port: number;
  before(async () => {
    h = await serveHttp({ createServer: makeServer, listen: { host: '127.0.0.1', port: 0 }, secret: SECRET });
    port = h.endpoint.kind === 'tcp' ? h.endpoint.port : 0;
  });
  after(() => h.close());

  it('works with Authorization: Bearer', async () => {
    const { client, t } = await connect(h.url, { Authorization: `Bearer ${SECRET}` });
    const res = await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    assert.deepEqual(res.content, [{ type: 'text', text: 'echo:x' }]);
    await t.terminateSession();
    await client.close();
  });

  it('404 for a missing or wrong token, a foreign Host or Origin and other paths, each saying why', async () => {
    const base = { 'content-type': 'application/json', accept: ACCEPT };
    const auth = { ...base, authorization: `Bearer ${SECRET}` };
    for (const [headers, path, why] of [
      [base, '/mcp', /token|secret|authori/i],
      [{ ...base, authorization: 'Bearer nope' }, '/mcp', /token|secret|authori/i],
      [{ ...base, authorization: `Basic ${SECRET}` }, '/mcp', /token|secret|authori/i],
      [{ ...auth, host: `evil.example:${port}` }, '/mcp', /Host/],
      [{ ...auth, origin: 'https://evil.example' }, '/mcp', /origin/i],
      [auth, '/other', /path|\/mcp/],
    ] as const) {
      const r = await raw({ port }, { headers, path, body: INIT });
      assert.equal(r.status, 404, r.body);
      assert.match(r.body, why);
    }
  });
});

/** A tools/list at 2026-07-28 as it travels: the `_meta` envelope in the body, the standard headers beside it. */
const MODERN_LIST = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/list',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});
const MODERN_HEADERS = {
  'content-type': 'application/json',
  accept: ACCEPT,
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/list',
};

describe('HTTP transport, both eras (the CLI: initialize-era sessions beside 2026-07-28 requests)', () => {
  let h: HttpServerHandle;
  let port: number;
  let closed = 0;
  const listens: { filter: unknown; stopped: boolean }[] = [];
  let readied = 0;
  const watch: ListenWatchFactory = () => ({
    reserve: async () => {
      readied++;
      return {
        add: (filter) => {
          const entry = { filter, stopped: false };
          listens.push(entry);
          return () => void (entry.stopped = true);
        },
        release: () => {},
      };
    },
  });
  const counted = () => {
    const s = makeServer();
    s.server.registerCapabilities({ resources: { subscribe: true } }); // or a listen stream is closed at once
    s.server.onclose = () => void closed++;
    return s;
  };
  before(async () => {
    h = await serveHttp({
      createServer: counted,
      modern: modernLeg(counted, { listens: watch }),
      listen: { host: '127.0.0.1', port: 0 },
      secret: SECRET,
    });
    port = h.endpoint.kind === 'tcp' ? h.endpoint.port : 0;
  });
  after(() => h.close());

  it('a 2026-07-28 client is served per request (no session, each server closed after its request) while an initialize-era client keeps its session', async () => {
    const legacy = await connect(h.url, { Authorization: `Bearer ${SECRET}` });
    const modern = new Client(
      { name: 'modern', version: '0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const t = new StreamableHTTPClientTransport(new URL(h.url), {
      requestInit: { headers: { Authorization: `Bearer ${SECRET}` } },
    });
    await modern.connect(t);
    try {
      assert.equal(modern.getProtocolEra(), 'modern');
      const before = closed;
      for (const text of ['a', 'b', 'c']) {
        const res = await modern.callTool({ name: 'echo', arguments: { text } });
        assert.deepEqual(res.content, [{ type: 'text', text: `echo:${text}` }]);
      }
      assert.equal(t.sessionId, undefined);
      assert.equal(h.sessionCount(), 1, 'only the initialize-era client has a session');
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(closed - before, 3, 'every per-request server is closed');
      const res = await legacy.client.callTool({ name: 'echo', arguments: { text: 'old' } });
      assert.deepEqual(res.content, [{ type: 'text', text: 'echo:old' }]);
    } finally {
      await modern.close();
      await legacy.t.terminateSession();
      await legacy.client.close();
    }
  });

  it('guards every 2026-07-28 request like a session: token, Host and Origin (each 404, saying why)', async () => {
    const auth = { ...MODERN_HEADERS, authorization: `Bearer ${SECRET}` };
    const served = await raw({ port }, { headers: auth, body: MODERN_LIST });
    assert.equal(served.status, 200, served.body);
    assert.match(served.body, /"echo"/);
    assert.equal(served.headers['mcp-session-id'], undefined);
    for (const [headers, why] of [
      [MODERN_HEADERS, /token|secret|authori/i],
      [{ ...MODERN_HEADERS, authorization: 'Bearer nope' }, /token|secret|authori/i],
      [{ ...auth, host: `evil.example:${port}` }, /Host/],
      [{ ...auth, origin: 'https://evil.example' }, /origin/i],
    ] as const) {
      const r = await raw({ port }, { headers, body: MODERN_LIST });
      assert.equal(r.status, 404, r.body);
      assert.match(r.body, why);
      assert.doesNotMatch(r.body, /"echo"/);
    }
  });

  it('a claim-less request without a session is told both ways in', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const r = await raw(
      { port },
      { headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${SECRET}` }, body },
    );
    assert.equal(r.status, 400);
    assert.match(r.body, /initialize first, or send 2026-07-28 requests with their _meta envelope/);
  });

  it('tells the listen watch of a subscriptions/listen stream (ready first, then what it asks for) and when it closes', async () => {
    const modern = new Client(
      { name: 'listener', version: '0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(h.url), {
        requestInit: { headers: { Authorization: `Bearer ${SECRET}` } },
      }),
    );
    try {
      listens.length = 0;
      readied = 0;
      const sub = await modern.listen({ resourceSubscriptions: ['msgbrowse://conversation/3'] });
      assert.deepEqual(sub.honoredFilter, { resourceSubscriptions: ['msgbrowse://conversation/3'] });
      assert.deepEqual(
        listens.map((l) => l.filter),
        [{ resourcesListChanged: false, resourceSubscriptions: ['msgbrowse://conversation/3'] }],
      );
      assert.equal(readied, 1);
      assert.equal(listens[0].stopped, false);
      await sub.close();
      const deadline = Date.now() + 5_000;
      while (!listens[0].stopped && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.equal(listens[0].stopped, true, 'the watch hears the stream close');
    } finally {
      await modern.close();
    }
  });
});

describe('HTTP transport listeners', () => {
  it('refuses a non-loopback host unless allowRemote', async () => {
    await assert.rejects(
      serveHttp({ createServer: makeServer, listen: { host: '0.0.0.0', port: 0 }, secret: SECRET }),
      /not a loopback address/,
    );
    await assert.rejects(serveHttp({ createServer: makeServer, listen: { port: 0 }, secret: '' }), /secret/);
  });

  it('reports a port already in use clearly', async () => {
    const a = await serveHttp({ createServer: makeServer, listen: { port: 0 }, secret: SECRET });
    const port = a.endpoint.kind === 'tcp' ? a.endpoint.port : 0;
    await assert.rejects(
      serveHttp({ createServer: makeServer, listen: { port }, secret: SECRET }),
      /address already in use/,
    );
    await a.close();
  });

  it('serves over a Unix socket in a private directory, removed on close', {
    skip: process.platform === 'win32',
  }, async () => {
    const h = await serveHttp({
      createServer: makeServer,
      listen: { socketPath: 'auto' },
      secret: SECRET,
      secretHeader: HEADER,
    });
    assert.equal(h.endpoint.kind, 'socket');
    const sock = h.endpoint.kind === 'socket' ? h.endpoint.path : '';
    const dir = path.dirname(sock);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    const hdr = { [HEADER]: SECRET, 'content-type': 'application/json', accept: ACCEPT };
    const init = await raw({ socketPath: sock }, { headers: hdr, body: INIT });
    assert.equal(init.status, 200);
    const sid = String(init.headers['mcp-session-id']);
    await raw(
      { socketPath: sock },
      {
        headers: { ...hdr, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      },
    );
    const list = await raw(
      { socketPath: sock },
      {
        headers: { ...hdr, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      },
    );
    assert.equal(list.status, 200);
    assert.match(list.body, /"name":"echo"/);
    const noSecret = await raw(
      { socketPath: sock },
      { headers: { 'content-type': 'application/json', accept: ACCEPT }, body: INIT },
    );
    assert.equal(noSecret.status, 404);
    const foreignOrigin = await raw(
      { socketPath: sock },
      { headers: { ...hdr, origin: 'https://evil.example' }, body: INIT },
    );
    assert.equal(foreignOrigin.status, 404);
    await h.close();
    assert.equal(fs.existsSync(dir), false);
  });

  it('refuses a socket path in a directory other users can access', {
    skip: process.platform === 'win32',
  }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-sock-'));
    fs.chmodSync(dir, 0o755);
    try {
      await assert.rejects(
        serveHttp({ createServer: makeServer, listen: { socketPath: path.join(dir, 's.sock') }, secret: SECRET }),
        /accessible to other users/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('close() ends open sessions and SSE streams, frees the port and leaves no handles', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
    const h = await serveHttp({ createServer: makeServer, listen: { port: 0 }, secret: SECRET, secretHeader: HEADER });
    const port = h.endpoint.kind === 'tcp' ? h.endpoint.port : 0;
    const clients = await Promise.all([1, 2, 3].map(() => connect(h.url, { [HEADER]: SECRET })));
    await Promise.all(clients.map(({ client }) => client.listTools()));
    assert.equal(h.sessionCount(), 3);
    const t0 = Date.now();
    await h.close();
    assert.ok(Date.now() - t0 < 3000, 'close is prompt');
    assert.equal(h.sessionCount(), 0);
    await Promise.all(clients.map(({ client }) => client.close()));
    // The port is free again.
    await new Promise<void>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => s.close(() => resolve()));
    });
    await new Promise((r) => setTimeout(r, 50));
    const afterCount = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
    assert.ok(
      afterCount <= before,
      `active resources before ${before}, after ${afterCount}: ${process.getActiveResourcesInfo()}`,
    );
  });

  it('evicts the least recently used idle session beyond maxSessions', async () => {
    const h = await serveHttp({
      createServer: makeServer,
      listen: { port: 0 },
      secret: SECRET,
      secretHeader: HEADER,
      maxSessions: 2,
    });
    const port = h.endpoint.kind === 'tcp' ? h.endpoint.port : 0;
    const hdr = { [HEADER]: SECRET, 'content-type': 'application/json', accept: ACCEPT };
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await raw({ port }, { headers: hdr, body: INIT });
      assert.equal(r.status, 200);
      ids.push(String(r.headers['mcp-session-id']));
      await new Promise((res) => setTimeout(res, 5));
    }
    assert.equal(h.sessionCount(), 2);
    const first = await raw(
      { port },
      {
        headers: { ...hdr, 'mcp-session-id': ids[0] },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      },
    );
    assert.equal(first.status, 404);
    await h.close();
  });
});

after(() => {
  assert.ok(built > 0);
});
