/**
 * The stdio bridge: a thin local process that relays JSON-RPC between stdio (its MCP client: VS Code's Local harness,
 * or the Copilot runtime of the agent host, which cannot open Unix sockets and breaks behind a proxy) and the
 * extension host's in-process streamable-HTTP endpoint (Unix socket, or loopback TCP; never through a proxy — the
 * requests go straight to the socket / 127.0.0.1 with node:http). Faithful both ways: requests, notifications,
 * responses, server→client messages on SSE streams, cancellation. It never hangs: it exits with one stderr line when
 * the extension host is gone, the endpoint was replaced (secret rotated), or the endpoint refuses it; and when stdin
 * ends (closing its HTTP session first).
 */
import * as http from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { Readable as ReadableStream } from 'node:stream';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LineTransport } from './line-transport';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { processAlive, readBridgeEndpoint, type BridgeEndpoint } from './bridge-endpoint';

export interface BridgeOptions {
  endpointFile: string;
  stdin?: Readable;
  stdout?: Writable;
  /** One line per problem (stderr in the CLI). */
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  /** How often the extension host and the endpoint file are checked (default 1 s). */
  watchMs?: number;
}

/** `fetch` over node:http to the endpoint: a Unix socket or loopback TCP, ignoring any proxy settings. */
export function endpointFetch(ep: BridgeEndpoint): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      const headers: Record<string, string> = {};
      for (const [k, v] of new Headers(init?.headers)) headers[k] = v;
      const target = ep.kind === 'socket' ? { socketPath: ep.socketPath } : { host: ep.host, port: ep.port };
      const req = http.request(
        { ...target, path: url.pathname + url.search, method: init?.method ?? 'GET', headers, agent: false },
        (res) => {
          const status = res.statusCode ?? 502;
          const rh = new Headers();
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) rh.set(k, Array.isArray(v) ? v.join(', ') : v);
          const body =
            status === 204 || status === 304
              ? null
              : (ReadableStream.toWeb(res) as unknown as ConstructorParameters<typeof Response>[0]);
          resolve(new Response(body, { status, headers: rh }));
        },
      );
      req.on('error', reject);
      const signal = init?.signal;
      if (signal) {
        const abort = () => {
          const err = new Error('This operation was aborted');
          err.name = 'AbortError';
          req.destroy(err);
        };
        if (signal.aborted) abort();
        else signal.addEventListener('abort', abort, { once: true });
      }
      const b = init?.body;
      if (b === undefined || b === null) req.end();
      else if (typeof b === 'string' || b instanceof Uint8Array) req.end(b);
      else reject(new Error('bridge fetch: unsupported request body'));
    })) as typeof fetch;
}

/** Errors that mean the endpoint is gone or refuses us: retrying cannot help. */
function fatal(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException)?.code ?? (e as { cause?: NodeJS.ErrnoException })?.cause?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'ECONNRESET' || code === 'EPIPE') {
    return `the msgbrowse endpoint in the VS Code extension host is not reachable (${code})`;
  }
  // The SDK's StreamableHTTPError carries the HTTP status as `code`. Our endpoint answers every refusal with 404
  // (never 401/403): without a session the secret was refused; with one, the session is gone (endpoint restarted).
  if ((e as { code?: unknown })?.code === 404)
    return 'the msgbrowse endpoint refused this bridge (its secret changed: the extension host restarted)';
  return undefined;
}

/** Runs until stdin ends or the endpoint is gone; resolves with the exit code. */
export async function runBridge(opts: BridgeOptions): Promise<number> {
  const { log } = opts;
  let ep: BridgeEndpoint;
  try {
    ep = readBridgeEndpoint(opts.endpointFile);
  } catch (e) {
    log('error', (e as Error).message);
    return 1;
  }
  if (!processAlive(ep.pid)) {
    log(
      'error',
      `the VS Code extension host that wrote ${opts.endpointFile} (pid ${ep.pid}) is not running: open VS Code with the msgbrowse extension`,
    );
    return 1;
  }

  const url = new URL(ep.kind === 'socket' ? `http://localhost${ep.path}` : `http://${ep.host}:${ep.port}${ep.path}`);
  const upstream = new StreamableHTTPClientTransport(url, {
    fetch: endpointFetch(ep),
    requestInit: { headers: { [ep.header]: ep.secret } },
    // A dropped SSE stream is reconnected a few times; a host that is gone is caught by the watchdog below.
    reconnectionOptions: {
      initialReconnectionDelay: 500,
      maxReconnectionDelay: 2000,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 3,
    },
  });
  const downstream = new LineTransport(opts.stdin ?? process.stdin, opts.stdout ?? process.stdout);

  let finish!: (code: number) => void;
  const done = new Promise<number>((resolve) => (finish = resolve));
  let ending = false;
  const end = async (code: number, why?: string) => {
    if (ending) return;
    ending = true;
    clearInterval(watch);
    if (why) log(code === 0 ? 'info' : 'error', why);
    if (code === 0) {
      await Promise.race([upstream.terminateSession().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
    }
    await upstream.close().catch(() => {});
    await downstream.close().catch(() => {});
    finish(code);
  };

  const initializeIds = new Set<string | number>();
  upstream.onmessage = (msg: JSONRPCMessage) => {
    const m = msg as { id?: string | number; result?: { protocolVersion?: string } };
    if (m.id !== undefined && initializeIds.delete(m.id) && typeof m.result?.protocolVersion === 'string') {
      upstream.setProtocolVersion(m.result.protocolVersion);
    }
    downstream.send(msg).catch(() => void end(0, undefined));
  };
  upstream.onerror = (e) => {
    const why = fatal(e);
    if (why)
      void end(
        1,
        `msgbrowse bridge: ${why}; restart the server (MCP: List Servers → msgbrowse → Restart) after VS Code is back`,
      );
    else log('debug', `upstream: ${e.message}`);
  };
  downstream.onmessage = (msg: JSONRPCMessage) => {
    const m = msg as { id?: string | number; method?: string };
    if (m.method === 'initialize' && m.id !== undefined) initializeIds.add(m.id);
    upstream.send(msg).catch((e: unknown) => {
      const why = fatal(e);
      if (m.method !== undefined && m.id !== undefined) {
        // A request that could not be delivered is answered, so the client never waits for it.
        const message = why ?? (e instanceof Error ? e.message : String(e));
        void downstream
          .send({
            jsonrpc: '2.0',
            id: m.id,
            error: { code: why ? -32000 : -32601, message: `msgbrowse bridge: ${message}` },
          } as JSONRPCMessage)
          .catch(() => {});
      }
      if (why)
        void end(
          1,
          `msgbrowse bridge: ${why}; restart the server (MCP: List Servers → msgbrowse → Restart) after VS Code is back`,
        );
      else log('debug', `relay of ${m.method ?? 'a response'} failed: ${e instanceof Error ? e.message : String(e)}`);
    });
  };
  downstream.onclose = () => void end(0);
  const stdin = opts.stdin ?? process.stdin;
  stdin.once('end', () => void end(0));

  // The watchdog: the extension host gone, or the endpoint replaced (new secret) — exit instead of hanging.
  const watch = setInterval(() => {
    if (!processAlive(ep.pid)) {
      void end(
        1,
        `msgbrowse bridge: the VS Code extension host (pid ${ep.pid}) has exited; VS Code restarts this server when it is back`,
      );
      return;
    }
    try {
      const now = readBridgeEndpoint(opts.endpointFile);
      if (now.secret !== ep.secret || now.pid !== ep.pid) {
        void end(
          1,
          'msgbrowse bridge: the extension host restarted its endpoint (new secret); restart the server to reconnect',
        );
      }
    } catch {
      /* the file is rewritten atomically; a missing file alone is not fatal while the host lives */
    }
  }, opts.watchMs ?? 1000);
  watch.unref?.();

  await upstream.start();
  await downstream.start();
  log('debug', `bridging stdio to ${ep.kind === 'socket' ? `unix socket ${ep.socketPath}` : `${ep.host}:${ep.port}`}`);
  return done;
}
