/**
 * Threat-model proofs (SECURITY.md T1–T6): every attack listed there is attempted here against the real
 * components and must be refused. Transport attacks run against a real listening `serveHttp`.
 */
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { checkRequest, isLoopbackHost, ListenError, secretsEqual, serveHttp, type HttpServerHandle } from '../../src/transport/index';
import { initializeBody, MCP_POST_HEADERS, rawRequest, rawSocketStatus, type RawResponse } from '../stress/harness/http-raw';

const SECRET = crypto.randomBytes(32).toString('base64url');
const HEADER = 'X-Msgbrowse-Secret';

/** Counts servers built and tool calls executed: a refused request must reach neither. */
const reached = { servers: 0, calls: 0 };
function countingServer(): McpServer {
  reached.servers++;
  const s = new McpServer({ name: 'probe', version: '0.0.0' });
  s.registerTool('probe', { inputSchema: { q: z.string() }, annotations: { readOnlyHint: true } }, async ({ q }) => {
    reached.calls++;
    return { content: [{ type: 'text', text: `probe:${q}` }] };
  });
  return s;
}

function assertRefused(r: RawResponse, label: string, mode: 'vscode' | 'http'): void {
  assert.ok(r.status >= 400 && r.status < 500, `${label}: expected a 4xx refusal, got ${r.status} ${r.body}`);
  if (mode === 'vscode') {
    assert.ok(r.status !== 401 && r.status !== 403, `${label}: extension mode must never answer ${r.status} (VS Code would start OAuth)`);
    assert.equal(r.headers['www-authenticate'], undefined, `${label}: WWW-Authenticate would start a sign-in flow`);
  }
  assert.equal(r.headers['access-control-allow-origin'], undefined, `${label}: CORS header lets a page read the reply`);
  assert.ok(!r.body.includes(SECRET), `${label}: reply echoes the secret`);
  assert.ok(!r.headers['mcp-session-id'], `${label}: a session was created`);
}

function externalAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => !!a && !a.internal && a.family === 'IPv4')
    .map((a) => a.address);
}

describe('T1/T2: the HTTP gate in extension mode (secret header, never 401/403)', () => {
  let h: HttpServerHandle;
  let port: number;
  const good = () => ({ ...MCP_POST_HEADERS, [HEADER]: SECRET });

  before(async () => {
    h = await serveHttp({ createServer: countingServer, listen: {}, secret: SECRET, secretHeader: HEADER });
    assert.equal(h.endpoint.kind, 'tcp');
    port = h.endpoint.kind === 'tcp' ? h.endpoint.port : 0;
  });
  after(() => h.close());

  it('positive control: the right secret, a loopback Host and no Origin start a session', async () => {
    const before = reached.servers;
    const r = await rawRequest({ port }, { headers: good(), body: initializeBody() });
    assert.equal(r.status, 200, r.body);
    assert.ok(r.headers['mcp-session-id']);
    assert.equal(reached.servers, before + 1);
    const r2 = await rawRequest(
      { port },
      { headers: { ...good(), Origin: `http://127.0.0.1:${port}`, Host: `localhost:${port}` }, body: initializeBody() },
    );
    assert.equal(r2.status, 200, `a same-origin loopback page of this server is allowed: ${r2.body}`);
  });

  const secretCases: [string, Record<string, string | string[]>][] = [
    ['missing secret', {}],
    ['empty secret', { [HEADER]: '' }],
    ['wrong secret of the same length', { [HEADER]: SECRET.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) }],
    ['shorter secret (a prefix)', { [HEADER]: SECRET.slice(0, 8) }],
    ['longer secret (secret + suffix)', { [HEADER]: `${SECRET}x` }],
    ['a 64 KB secret', { [HEADER]: 'x'.repeat(64 * 1024) }],
    ['secret in Authorization: Bearer instead of the header', { Authorization: `Bearer ${SECRET}` }],
    ['secret in another header name', { 'X-Msgbrowse-Token': SECRET }],
    ['duplicated secret header (right + wrong)', { [HEADER]: [SECRET, 'wrong'] }],
  ];
  for (const [name, extra] of secretCases) {
    it(`refuses: ${name}`, async () => {
      const before = { ...reached };
      const r = await rawRequest({ port }, { headers: { ...MCP_POST_HEADERS, ...extra }, body: initializeBody() });
      assertRefused(r, name, 'vscode');
      assert.deepEqual(reached, before, `${name}: the request reached the MCP server`);
    });
  }

  it('refuses the secret passed in the query string', async () => {
    const r = await rawRequest(
      { port },
      { path: `/mcp?${HEADER}=${SECRET}`, headers: { ...MCP_POST_HEADERS }, body: initializeBody() },
    );
    assertRefused(r, 'secret in query', 'vscode');
  });

  it('refuses DNS-rebinding Host headers (even with the right secret)', async () => {
    const hosts = [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1.nip.io:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1:${port + 1 > 65535 ? port - 1 : port + 1}`,
      `127.0.0.1:${port}.evil.example`,
      `0.0.0.0:${port}`,
      `[::ffff:7f00:1]:${port}evil`,
      '',
    ];
    for (const host of hosts) {
      const before = { ...reached };
      const r = await rawRequest({ port }, { headers: { ...good(), Host: host }, body: initializeBody() });
      assertRefused(r, `Host ${JSON.stringify(host)}`, 'vscode');
      assert.deepEqual(reached, before, `Host ${host} reached the server`);
    }
  });

  it('refuses foreign Origins (even with the right secret and Host)', async () => {
    const origins = [
      'https://evil.example',
      'null',
      `http://127.0.0.1.evil.example:${port}`,
      `http://localhost:${port}.evil.example`,
      `http://127.0.0.1:${port === 65535 ? port - 1 : port + 1}`,
      `https://127.0.0.1:${port}`,
      'vscode-webview://1234abcd',
      'file://',
    ];
    for (const origin of origins) {
      const before = { ...reached };
      const r = await rawRequest({ port }, { headers: { ...good(), Origin: origin }, body: initializeBody() });
      assertRefused(r, `Origin ${origin}`, 'vscode');
      assert.deepEqual(reached, before, `Origin ${origin} reached the server`);
    }
  });

  it('answers a CORS preflight without any Access-Control-Allow-* header', async () => {
    const r = await rawRequest(
      { port },
      {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://evil.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': `content-type, ${HEADER.toLowerCase()}`,
        },
      },
    );
    assertRefused(r, 'preflight', 'vscode');
    for (const k of Object.keys(r.headers)) assert.ok(!k.startsWith('access-control-'), `preflight reply has ${k}`);
  });

  it('refuses every other path and absolute-form targets', async () => {
    const paths = ['/', '/mcp/', '/MCP', '/mcp/../mcp', '//mcp', '/mcp%2F', '/sse', '/messages', '/.well-known/oauth-protected-resource', '/favicon.ico', '/mcp/x'];
    for (const p of paths) {
      for (const method of ['GET', 'POST']) {
        const r = await rawRequest({ port }, { method, path: p, headers: good(), body: method === 'POST' ? initializeBody() : undefined });
        assertRefused(r, `${method} ${p}`, 'vscode');
      }
    }
    const body = initializeBody();
    const status = await rawSocketStatus(
      port,
      `POST http://evil.example/mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${HEADER}: ${SECRET}\r\n` +
        `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    assert.ok(status >= 400 && status < 500 && status !== 401 && status !== 403, `absolute-form target got ${status}`);
  });

  it('a refused request never reaches a tool: calls with a session id but without the secret are refused', async () => {
    const init = await rawRequest({ port }, { headers: good(), body: initializeBody() });
    const sid = String(init.headers['mcp-session-id']);
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'probe', arguments: { q: 'x' } } });
    const before = reached.calls;
    for (const headers of [
      { ...MCP_POST_HEADERS, 'Mcp-Session-Id': sid },
      { ...MCP_POST_HEADERS, 'Mcp-Session-Id': sid, [HEADER]: 'wrong' },
      { ...good(), 'Mcp-Session-Id': sid, Host: `evil.example:${port}` },
      { ...good(), 'Mcp-Session-Id': sid, Origin: 'https://evil.example' },
    ]) {
      const r = await rawRequest({ port }, { headers, body: call });
      assertRefused(r, `session request ${JSON.stringify(Object.keys(headers))}`, 'vscode');
    }
    assert.equal(reached.calls, before, 'a tool ran for a refused request');
  });
});

describe('T1: the HTTP gate in CLI mode (Bearer token, conventional statuses)', () => {
  let h: HttpServerHandle;
  let port: number;
  before(async () => {
    h = await serveHttp({ createServer: countingServer, listen: {}, secret: SECRET, refusal: 'http' });
    port = h.endpoint.kind === 'tcp' ? h.endpoint.port : 0;
  });
  after(() => h.close());

  it('refuses missing, wrong, Basic and header-carried tokens; accepts only Bearer <token>', async () => {
    const cases: [string, Record<string, string>, number][] = [
      ['missing', {}, 401],
      ['wrong', { Authorization: 'Bearer wrong' }, 401],
      ['prefix', { Authorization: `Bearer ${SECRET.slice(0, 10)}` }, 401],
      ['basic', { Authorization: `Basic ${Buffer.from(`u:${SECRET}`).toString('base64')}` }, 401],
      ['bare token', { Authorization: SECRET }, 401],
      ['custom header', { [HEADER]: SECRET }, 401],
    ];
    for (const [name, extra, status] of cases) {
      const r = await rawRequest({ port }, { headers: { ...MCP_POST_HEADERS, ...extra }, body: initializeBody() });
      assert.equal(r.status, status, `${name}: ${r.body}`);
      assertRefused(r, name, 'http');
    }
    const hostile = await rawRequest(
      { port },
      { headers: { ...MCP_POST_HEADERS, Authorization: `Bearer ${SECRET}`, Host: `evil.example:${port}` }, body: initializeBody() },
    );
    assert.equal(hostile.status, 403);
    const ok = await rawRequest({ port }, { headers: { ...MCP_POST_HEADERS, Authorization: `Bearer ${SECRET}` }, body: initializeBody() });
    assert.equal(ok.status, 200, ok.body);
  });
});

describe('T1: the secret comparison is constant-time by construction', () => {
  type CryptoMutable = { createHash: typeof crypto.createHash; timingSafeEqual: typeof crypto.timingSafeEqual };
  // The CJS view of node:crypto; tsx compiles both this file and the guard to CJS property accesses.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mutable = require('node:crypto') as CryptoMutable;

  function spy<T>(fn: () => T): { result: T; hashes: string[]; compares: [number, number][] } {
    const origHash = mutable.createHash;
    const origEq = mutable.timingSafeEqual;
    const hashes: string[] = [];
    const compares: [number, number][] = [];
    mutable.createHash = ((alg: string, o?: crypto.HashOptions) => {
      hashes.push(alg);
      return origHash(alg, o);
    }) as typeof crypto.createHash;
    mutable.timingSafeEqual = ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compares.push([a.byteLength, b.byteLength]);
      return origEq(a, b);
    }) as typeof crypto.timingSafeEqual;
    syncBuiltinESMExports();
    try {
      return { result: fn(), hashes, compares };
    } finally {
      mutable.createHash = origHash;
      mutable.timingSafeEqual = origEq;
      syncBuiltinESMExports();
    }
  }

  it('hashes both values and compares equal-length digests with crypto.timingSafeEqual', () => {
    for (const [given, expected, equal] of [
      [SECRET, SECRET, true],
      ['a', SECRET, false],
      ['x'.repeat(10_000), SECRET, false],
      ['', SECRET, false],
      [SECRET.slice(0, -1), SECRET, false],
      ['é🙂\u0000', SECRET, false],
    ] as [string, string, boolean][]) {
      const s = spy(() => secretsEqual(given, expected));
      assert.equal(s.result, equal, `secretsEqual(${given.length} chars)`);
      assert.equal(s.compares.length, 1, 'exactly one timingSafeEqual per comparison (no early exit)');
      assert.equal(s.compares[0][0], s.compares[0][1], 'equal-length inputs to timingSafeEqual');
      assert.ok(s.compares[0][0] >= 32, 'compares digests, not the raw strings');
      assert.equal(s.hashes.length, 2, 'both values are hashed, whatever their lengths');
    }
  });

  it('runs the comparison even when no secret is presented (no short-circuit on absence)', () => {
    const req = { url: '/mcp', headers: { host: '127.0.0.1:1' } } as unknown as http.IncomingMessage;
    const opts = {
      path: '/mcp',
      secret: SECRET,
      scheme: { kind: 'header' as const, name: HEADER },
      allowedHosts: new Set(['127.0.0.1:1']),
      allowedOrigins: new Set<string>(),
    };
    const s = spy(() => checkRequest(req, opts));
    assert.equal(s.result?.reason, 'secret');
    assert.equal(s.compares.length, 1);
    const s2 = spy(() => checkRequest({ ...req, headers: { ...req.headers, [HEADER.toLowerCase()]: 'short' } } as unknown as http.IncomingMessage, opts));
    assert.equal(s2.result?.reason, 'secret');
    assert.equal(s2.compares.length, 1);
  });

  it('the guard source compares the secret only through secretsEqual', () => {
    const src = fs.readFileSync(path.join(__dirname, '../../src/transport/guard.ts'), 'utf8');
    assert.match(src, /timingSafeEqual\(/);
    assert.doesNotMatch(src, /(?:[!=]==?\s*(?:opts\.)?secret\b)|(?:\bsecret\s*[!=]==?)/, 'a direct ===/!== on the secret');
    assert.doesNotMatch(src, /\.startsWith\((?:opts\.)?secret|localeCompare/, 'a short-circuiting string comparison');
  });
});

describe('T2: binding never goes beyond loopback by default', () => {
  it('the default listen address is 127.0.0.1 and other interfaces cannot connect', async () => {
    const h = await serveHttp({ createServer: countingServer, listen: {}, secret: SECRET, secretHeader: HEADER });
    try {
      assert.ok(h.endpoint.kind === 'tcp');
      if (h.endpoint.kind !== 'tcp') return;
      assert.equal(h.endpoint.host, '127.0.0.1');
      assert.equal(h.endpoint.remote, false);
      assert.match(h.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      for (const addr of externalAddresses()) {
        await assert.rejects(
          rawRequest({ port: h.endpoint.port, host: addr }, { headers: { [HEADER]: SECRET } }),
          (e: NodeJS.ErrnoException) => e.code === 'ECONNREFUSED',
          `reachable on external interface ${addr}`,
        );
      }
    } finally {
      await h.close();
    }
  });

  it('refuses non-loopback addresses unless allowRemote is set explicitly', async () => {
    for (const host of ['0.0.0.0', '::', ...externalAddresses(), 'example.com', '127.0.0.1.nip.io']) {
      await assert.rejects(
        serveHttp({ createServer: countingServer, listen: { host }, secret: SECRET }),
        (e: unknown) => e instanceof ListenError && /loopback/.test(e.message),
        `listen on ${host} without allowRemote`,
      );
    }
    for (const h of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.1.2.3', '::ffff:127.0.0.1']) assert.ok(isLoopbackHost(h), h);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.1', 'localhost.evil', '127.0.0.1.evil', '::ffff:10.0.0.1']) {
      assert.ok(!isLoopbackHost(h), h);
    }
  });

  it('a socket listener is private: 0700 directory, 0600 socket', { skip: process.platform === 'win32' }, async () => {
    const h = await serveHttp({ createServer: countingServer, listen: { socketPath: 'auto' }, secret: SECRET, secretHeader: HEADER });
    try {
      assert.equal(h.endpoint.kind, 'socket');
      if (h.endpoint.kind !== 'socket') return;
      assert.equal(fs.statSync(path.dirname(h.endpoint.path)).mode & 0o777, 0o700);
      assert.equal(fs.statSync(h.endpoint.path).mode & 0o077, 0);
      const r = await rawRequest({ socketPath: h.endpoint.path }, { headers: { ...MCP_POST_HEADERS }, body: initializeBody() });
      assertRefused(r, 'socket without secret', 'vscode');
    } finally {
      await h.close();
    }
  });
});
