/**
 * Streamable HTTP for MCP on plain `node:http`, every request guarded first: initialize-era sessions (one McpServer
 * each) and, when a modern leg is given, 2026-07-28 requests (http-modern.ts).
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest, type McpServer } from '@modelcontextprotocol/server';
import { BodyError, DEFAULT_MAX_BODY_BYTES, readJsonBody } from './body';
import { checkRequest, type GuardOptions, loopbackHosts, loopbackOrigins, REFUSAL_STATUS } from './guard';
import type { ModernLeg } from './http-modern';
import { type BoundEndpoint, bind, cleanupEndpoint, isWildcardHost, type ListenTarget } from './listen';
import { type Session, SessionRegistry } from './sessions';

export type TransportLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

export interface HttpServeOptions {
  /** Builds a fresh McpServer for each new session. */
  createServer: () => McpServer | Promise<McpServer>;
  listen: ListenTarget;
  secret: string;
  /** Custom header carrying the secret (the extension's); absent → `Authorization: Bearer`. */
  secretHeader?: string;
  /** Served path, default `/mcp`. */
  path?: string;
  /** Extra accepted `Host` values (`name:port`), e.g. a LAN name when remote access is allowed. */
  allowedHosts?: string[];
  /** Extra accepted browser origins (`scheme://host:port`). */
  allowedOrigins?: string[];
  /** Beyond it the least recently used idle session is evicted. */
  maxSessions?: number;
  /** Sessions with no open request for this long are closed. */
  sessionIdleMs?: number;
  /** Serves 2026-07-28 requests too (the CLI); without it only initialize-era sessions are served (the extension's). */
  modern?: ModernLeg;
  log?: TransportLog;
}

export interface HttpServerHandle {
  /** For a socket or pipe: the HTTP URL to use over `endpoint.path`. */
  readonly url: string;
  readonly endpoint: BoundEndpoint;
  sessionCount(): number;
  /** Closes every session and the listener; resolves when all connections are gone. */
  close(): Promise<void>;
}

interface Listener {
  createServer: HttpServeOptions['createServer'];
  log: TransportLog;
  maxSessions: number;
  sessions: SessionRegistry;
  modern?: ModernLeg;
  /** Set once bound. */
  guard?: GuardOptions;
  closing: boolean;
}

const ALLOW = 'GET, POST, DELETE';

function sendJsonError(
  res: http.ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32000,
): void {
  if (res.headersSent) return void res.end();
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  const type = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
  res.writeHead(status, { ...type, 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}

/** Answers an error without reading the request's body. */
function refuse(req: http.IncomingMessage, ...answer: Parameters<typeof sendJsonError>): void {
  req.resume();
  sendJsonError(...answer);
}

function isInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

function urlHost(host: string): string {
  if (isWildcardHost(host)) return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

async function handle(l: Listener, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (!l.guard || l.closing) return refuse(req, res, 503, 'Server is shutting down', { Connection: 'close' });
  const refusal = checkRequest(req, l.guard);
  if (refusal) {
    // Wrong paths are routine noise (probes); Host/Origin/secret refusals are worth a warning.
    const where = refusal.reason === 'path' ? JSON.stringify((req.url ?? '').slice(0, 200)) : l.guard.path;
    l.log(refusal.reason === 'path' ? 'debug' : 'warn', `refused ${req.method} ${where}: ${refusal.reason}`);
    return refuse(req, res, REFUSAL_STATUS, refusal.message);
  }
  const method = req.method ?? '';
  if (method !== 'GET' && method !== 'POST' && method !== 'DELETE')
    return refuse(req, res, 405, `Method not allowed: use ${ALLOW}`, { Allow: ALLOW });
  const body = method === 'POST' ? await readJsonBody(req, DEFAULT_MAX_BODY_BYTES) : undefined;
  if (l.modern && (await l.modern.claims(req, body))) return l.modern.serve(req, res, body);
  const sid = req.headers['mcp-session-id'];
  if (sid === undefined) return newSession(l, req, res, body);
  const session = l.sessions.get(Array.isArray(sid) ? sid[0] : sid);
  if (!session) return refuse(req, res, 404, 'Session not found: start a new session with initialize', {}, -32001);
  res.once('close', l.sessions.track(session));
  await session.transport.handleRequest(req, res, body);
}

/** An initialize-era request without a session: only an initialize POST may start one. */
async function newSession(l: Listener, req: http.IncomingMessage, res: http.ServerResponse, body: unknown) {
  if (req.method === 'GET') {
    const message = 'Method not allowed: GET needs an Mcp-Session-Id (no standalone stream)';
    return refuse(req, res, 405, message, { Allow: 'POST' });
  }
  if (req.method === 'DELETE') return refuse(req, res, 400, 'Bad Request: Mcp-Session-Id header is required');
  if (!isInitialize(body)) {
    const or = l.modern ? ', or send 2026-07-28 requests with their _meta envelope' : '';
    return sendJsonError(res, 400, `Bad Request: Mcp-Session-Id header is required (initialize first${or})`);
  }
  if (l.sessions.size >= l.maxSessions) {
    const victim = l.sessions.leastRecentlyUsedIdle();
    if (!victim) {
      const message = `Too many sessions (${l.maxSessions}); close one and retry`;
      return sendJsonError(res, 503, message, { 'Retry-After': '1' });
    }
    l.log('info', `session limit reached; closing least recently used session ${victim.id}`);
    await l.sessions.close(victim.id);
  }
  await startSession(l, req, res, body);
}

async function startSession(l: Listener, req: http.IncomingMessage, res: http.ServerResponse, body: unknown) {
  let session: Session | undefined;
  const server = await l.createServer();
  const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    maxRequestBodySize: DEFAULT_MAX_BODY_BYTES,
    onsessioninitialized: (id) => {
      session = { id, server, transport, active: 0, lastSeen: Date.now() };
      l.sessions.set(id, session);
      l.log('debug', `session ${id} started (${l.sessions.size} open)`);
    },
    onsessionclosed: (id) => void l.sessions.close(id),
  });
  transport.onclose = () => {
    if (transport.sessionId) l.sessions.forget(transport.sessionId);
  };
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
  // Initialization was rejected (an unacceptable Accept, a bad protocol version): nothing to keep.
  if (!session) await server.close().catch(() => {});
}

function createListener(l: Listener): http.Server {
  const server = http.createServer((req, res) => {
    handle(l, req, res).catch((err: unknown) => {
      if (err instanceof BodyError) {
        sendJsonError(res, err.status, err.message, err.status === 413 ? { Connection: 'close' } : {}, err.code);
        return;
      }
      l.log('error', `request failed: ${err instanceof Error ? err.message : String(err)}`);
      sendJsonError(res, 500, 'Internal error', {}, -32603);
    });
  });
  server.requestTimeout = 0; // SSE streams are long-lived
  server.headersTimeout = 10_000;
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  return server;
}

function guardFor(endpoint: BoundEndpoint, opts: HttpServeOptions, path: string): GuardOptions {
  const secret = opts.secret;
  const scheme = opts.secretHeader ? { kind: 'header' as const, name: opts.secretHeader } : { kind: 'bearer' as const };
  const origins = (opts.allowedOrigins ?? []).map((o) => o.toLowerCase().replace(/\/$/, ''));
  // No browser can reach a socket or pipe, so there is no DNS rebinding to check for.
  if (endpoint.kind !== 'tcp') return { path, secret, scheme, allowedOrigins: new Set(origins) };
  const hosts = (opts.allowedHosts ?? []).map((h) => h.toLowerCase());
  return {
    path,
    secret,
    scheme,
    allowedHosts: new Set([...loopbackHosts(endpoint.host, endpoint.port), ...hosts]),
    anyHostOnPort: isWildcardHost(endpoint.host) && endpoint.remote ? endpoint.port : undefined,
    allowedOrigins: new Set([...loopbackOrigins(endpoint.port), ...origins]),
  };
}

async function shutdown(l: Listener, server: http.Server, sweep: NodeJS.Timeout, endpoint: BoundEndpoint) {
  l.closing = true;
  clearInterval(sweep);
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all([l.sessions.closeAll(), l.modern?.close()]);
  server.closeIdleConnections();
  // Anything still open (a stuck stream) is cut after a short grace period.
  const force = setTimeout(() => server.closeAllConnections(), 1000);
  force.unref();
  await stopped;
  clearTimeout(force);
  cleanupEndpoint(endpoint);
}

export async function serveHttp(opts: HttpServeOptions): Promise<HttpServerHandle> {
  if (!opts.secret) throw new Error('serveHttp: a non-empty secret is required');
  const log: TransportLog = opts.log ?? (() => {});
  const mcpPath = opts.path ?? '/mcp';
  const idleMs = opts.sessionIdleMs ?? 30 * 60_000;
  const l: Listener = {
    createServer: opts.createServer,
    log,
    maxSessions: opts.maxSessions ?? 64,
    sessions: new SessionRegistry((id) => log('debug', `session ${id} closed`)),
    modern: opts.modern,
    closing: false,
  };
  const server = createListener(l);
  const endpoint = await bind(server, opts.listen);
  l.guard = guardFor(endpoint, opts, mcpPath);
  if (endpoint.kind === 'tcp' && endpoint.remote)
    log('warn', `listening on ${endpoint.host}:${endpoint.port}: reachable beyond this machine`);

  const sweep = setInterval(
    () => {
      for (const s of l.sessions.idleSince(Date.now() - idleMs)) {
        log('debug', `closing idle session ${s.id}`);
        void l.sessions.close(s.id);
      }
    },
    Math.max(1000, Math.min(60_000, Math.floor(idleMs / 2))),
  );
  sweep.unref();

  const url =
    endpoint.kind === 'tcp'
      ? `http://${urlHost(endpoint.host)}:${endpoint.port}${mcpPath}`
      : `http://localhost${mcpPath}`;
  let closed: Promise<void> | undefined;
  return {
    url,
    endpoint,
    sessionCount: () => l.sessions.size,
    close: () => (closed ??= shutdown(l, server, sweep, endpoint)),
  };
}
