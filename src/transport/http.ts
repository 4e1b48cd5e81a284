/**
 * Stateful streamable HTTP for MCP on plain `node:http`: one McpServer per session, every request
 * guarded (path, Host, Origin, secret) before anything else, never 401/403 unless asked for.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { BodyError, DEFAULT_MAX_BODY_BYTES, readJsonBody } from './body';
import {
  checkRequest,
  loopbackHosts,
  loopbackOrigins,
  REFUSAL_STATUS,
  type GuardOptions,
  type SecretScheme,
} from './guard';
import { bind, cleanupEndpoint, isWildcardHost, type BoundEndpoint, type ListenTarget } from './listen';
import { SessionRegistry, type Session } from './sessions';

export type TransportLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

export interface HttpServeOptions {
  /** Builds a fresh McpServer for each new session. */
  createServer: () => McpServer | Promise<McpServer>;
  listen: ListenTarget;
  /** Shared secret every request must present. */
  secret: string;
  /** Custom header carrying the secret (extension: e.g. `X-Msgbrowse-Secret`); absent → `Authorization: Bearer`. */
  secretHeader?: string;
  /** Served path, default `/mcp`. */
  path?: string;
  /** Extra accepted `Host` values (`name:port`), e.g. a LAN name when remote access is allowed. */
  allowedHosts?: string[];
  /** Extra accepted browser origins (`scheme://host:port`). */
  allowedOrigins?: string[];
  /** POST body limit in bytes (default 4 MiB); larger bodies get 413. */
  maxBodyBytes?: number;
  /** Maximum concurrent sessions (default 64); the least recently used idle one is evicted beyond it. */
  maxSessions?: number;
  /** Sessions with no open request for this long are closed (default 30 min). */
  sessionIdleMs?: number;
  log?: TransportLog;
}

export interface HttpServerHandle {
  /** For TCP: `http://127.0.0.1:<port>/mcp`. For sockets/pipes: the HTTP URL to use over `endpoint.path`. */
  readonly url: string;
  readonly endpoint: BoundEndpoint;
  sessionCount(): number;
  /** Closes every session and the listener; resolves when all connections are gone. */
  close(): Promise<void>;
}

const ALLOW = 'GET, POST, DELETE';

function sendJsonError(
  res: http.ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(body);
}

function isInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

function urlHost(host: string): string {
  if (isWildcardHost(host)) return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export async function serveHttp(opts: HttpServeOptions): Promise<HttpServerHandle> {
  if (!opts.secret) throw new Error('serveHttp: a non-empty secret is required');
  const log: TransportLog = opts.log ?? (() => {});
  const mcpPath = opts.path ?? '/mcp';
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxSessions = opts.maxSessions ?? 64;
  const idleMs = opts.sessionIdleMs ?? 30 * 60_000;
  const scheme: SecretScheme = opts.secretHeader ? { kind: 'header', name: opts.secretHeader } : { kind: 'bearer' };

  const sessions = new SessionRegistry((id) => log('debug', `session ${id} closed`));
  let guard: GuardOptions | undefined;
  let closing = false;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!guard || closing) {
      req.resume();
      return sendJsonError(res, 503, -32000, 'Server is shutting down', { Connection: 'close' });
    }
    const refusal = checkRequest(req, guard);
    if (refusal) {
      req.resume();
      // Wrong paths are routine noise (probes); Host/Origin/secret refusals are worth a warning.
      const where = refusal.reason === 'path' ? JSON.stringify((req.url ?? '').slice(0, 200)) : mcpPath;
      log(refusal.reason === 'path' ? 'debug' : 'warn', `refused ${req.method} ${where}: ${refusal.reason}`);
      return sendJsonError(res, REFUSAL_STATUS, -32000, refusal.message);
    }
    const method = req.method ?? '';
    if (method !== 'GET' && method !== 'POST' && method !== 'DELETE') {
      req.resume();
      return sendJsonError(res, 405, -32000, `Method not allowed: use ${ALLOW}`, { Allow: ALLOW });
    }

    const sidHeader = req.headers['mcp-session-id'];
    const sid = Array.isArray(sidHeader) ? sidHeader[0] : sidHeader;
    if (sid !== undefined) {
      const session = sessions.get(sid);
      if (!session) {
        req.resume();
        return sendJsonError(res, 404, -32001, 'Session not found: start a new session with initialize');
      }
      const done = sessions.track(session);
      res.once('close', done);
      const body = method === 'POST' ? await readJsonBody(req, maxBody) : undefined;
      await session.transport.handleRequest(req, res, body);
      return;
    }

    if (method === 'GET') {
      req.resume();
      return sendJsonError(res, 405, -32000, 'Method not allowed: GET needs an Mcp-Session-Id (no standalone stream)', {
        Allow: 'POST',
      });
    }
    if (method === 'DELETE') {
      req.resume();
      return sendJsonError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    const body = await readJsonBody(req, maxBody);
    if (!isInitialize(body)) {
      return sendJsonError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required (initialize first)');
    }
    if (sessions.size >= maxSessions) {
      const victim = sessions.leastRecentlyUsedIdle();
      if (!victim) {
        return sendJsonError(res, 503, -32000, `Too many sessions (${maxSessions}); close one and retry`, {
          'Retry-After': '1',
        });
      }
      log('info', `session limit reached; closing least recently used session ${victim.id}`);
      await sessions.close(victim.id);
    }
    await startSession(req, res, body);
  }

  async function startSession(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> {
    let session: Session | undefined;
    const server = await opts.createServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: maxBody,
      onsessioninitialized: (id) => {
        session = { id, server, transport, active: 0, lastSeen: Date.now() };
        sessions.add(session);
        log('debug', `session ${id} started (${sessions.size} open)`);
      },
      onsessionclosed: (id) => {
        void sessions.close(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.forget(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    if (!session) {
      // Initialization was rejected (e.g. 406 Accept, bad protocol version): nothing to keep.
      await server.close().catch(() => {});
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof BodyError) {
        sendJsonError(res, err.status, err.code, err.message, err.status === 413 ? { Connection: 'close' } : {});
        return;
      }
      log('error', `request failed: ${err instanceof Error ? err.message : String(err)}`);
      sendJsonError(res, 500, -32603, 'Internal error');
    });
  });
  server.requestTimeout = 0; // SSE streams are long-lived
  server.headersTimeout = 10_000;
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  const endpoint = await bind(server, opts.listen);
  if (endpoint.kind === 'tcp') {
    const wildcard = isWildcardHost(endpoint.host);
    guard = {
      path: mcpPath,
      secret: opts.secret,
      scheme,
      allowedHosts: new Set([
        ...loopbackHosts(endpoint.host, endpoint.port),
        ...(opts.allowedHosts ?? []).map((h) => h.toLowerCase()),
      ]),
      anyHostOnPort: wildcard && endpoint.remote ? endpoint.port : undefined,
      allowedOrigins: new Set([
        ...loopbackOrigins(endpoint.port),
        ...(opts.allowedOrigins ?? []).map((o) => o.toLowerCase().replace(/\/$/, '')),
      ]),
    };
    if (endpoint.remote) log('warn', `listening on ${endpoint.host}:${endpoint.port}: reachable beyond this machine`);
  } else {
    // No browser can reach a socket or pipe, so there is no DNS rebinding to check for.
    guard = {
      path: mcpPath,
      secret: opts.secret,
      scheme,
      allowedHosts: undefined,
      allowedOrigins: new Set((opts.allowedOrigins ?? []).map((o) => o.toLowerCase().replace(/\/$/, ''))),
    };
  }

  const sweep = setInterval(
    () => {
      for (const s of sessions.idleSince(Date.now() - idleMs)) {
        log('debug', `closing idle session ${s.id}`);
        void sessions.close(s.id);
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
    sessionCount: () => sessions.size,
    close() {
      closed ??= (async () => {
        closing = true;
        clearInterval(sweep);
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await sessions.closeAll();
        server.closeIdleConnections();
        // Anything still open (a stuck stream) is cut after a short grace period.
        const force = setTimeout(() => server.closeAllConnections(), 1000);
        force.unref();
        await stopped;
        clearTimeout(force);
        cleanupEndpoint(endpoint);
      })();
      return closed;
    },
  };
}
