// The stdio bridge: relays JSON-RPC between stdio and the extension host's endpoint over node:http (the Copilot agent
// host can open no Unix socket and breaks behind a proxy). It never hangs: it exits with one stderr line when stdin
// ends, the extension host is gone, or its endpoint was replaced or refuses it.
import * as http from 'node:http';
import { Readable, type Writable } from 'node:stream';
import { type JSONRPCMessage, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type BridgeEndpoint, processAlive, readBridgeEndpoint } from './bridge-endpoint';
import { LineTransport } from './line-transport';

type Log = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
type End = (code: number, why?: string) => void;

export interface BridgeOptions {
  endpointFile: string;
  stdin?: Readable;
  stdout?: Writable;
  /** One line per problem (stderr in the CLI). */
  log: Log;
}

/** `fetch` over node:http to the endpoint: a Unix socket or loopback TCP, ignoring any proxy settings. */
function endpointFetch(ep: BridgeEndpoint): typeof fetch {
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
              : (Readable.toWeb(res) as unknown as ConstructorParameters<typeof Response>[0]);
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
  if (code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'ECONNRESET' || code === 'EPIPE')
    return `the msgbrowse endpoint in the VS Code extension host is not reachable (${code})`;
  // The SDK's SdkHttpError carries the HTTP status. Our endpoint answers every refusal with 404: without a session
  // the secret was refused; with one, the session is gone (endpoint restarted).
  if (e instanceof SdkHttpError && e.status === 404)
    return 'the msgbrowse endpoint refused this bridge (its secret changed: the extension host restarted)';
  return undefined;
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The endpoint the file names, when its extension host still runs. */
function openEndpoint(file: string, log: Log): BridgeEndpoint | undefined {
  let ep: BridgeEndpoint;
  try {
    ep = readBridgeEndpoint(file);
  } catch (e) {
    log('error', (e as Error).message);
    return undefined;
  }
  if (processAlive(ep.pid)) return ep;
  const open = 'open VS Code with the msgbrowse extension';
  log('error', `the VS Code extension host that wrote ${file} (pid ${ep.pid}) is not running: ${open}`);
  return undefined;
}

function upstreamTo(ep: BridgeEndpoint): StreamableHTTPClientTransport {
  const url = new URL(ep.kind === 'socket' ? `http://localhost${ep.path}` : `http://${ep.host}:${ep.port}${ep.path}`);
  return new StreamableHTTPClientTransport(url, {
    fetch: endpointFetch(ep),
    requestInit: { headers: { [ep.header]: ep.secret } },
    // A dropped SSE stream is reconnected a few times; a host that is gone is caught by the watchdog.
    reconnectionOptions: {
      initialReconnectionDelay: 500,
      maxReconnectionDelay: 2000,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 3,
    },
  });
}

/** Relays both ways; an upstream error retrying cannot help ends the bridge. */
function relay(upstream: StreamableHTTPClientTransport, downstream: LineTransport, end: End, log: Log): void {
  const restart = 'restart the server (MCP: List Servers → msgbrowse → Restart) after VS Code is back';
  const unreachable = (why: string) => end(1, `msgbrowse bridge: ${why}; ${restart}`);
  // The HTTP client must send the negotiated protocol version on later requests, as the SDK's Client tells it to.
  const initializeIds = new Set<string | number>();
  upstream.onmessage = (msg: JSONRPCMessage) => {
    const m = msg as { id?: string | number; result?: { protocolVersion?: string } };
    if (m.id !== undefined && initializeIds.delete(m.id) && typeof m.result?.protocolVersion === 'string')
      upstream.setProtocolVersion(m.result.protocolVersion);
    downstream.send(msg).catch(() => end(0));
  };
  upstream.onerror = (e) => {
    const why = fatal(e);
    if (why) unreachable(why);
    else log('debug', `upstream: ${e.message}`);
  };
  downstream.onmessage = (msg: JSONRPCMessage) => {
    const m = msg as { id?: string | number; method?: string };
    if (m.method === 'initialize' && m.id !== undefined) initializeIds.add(m.id);
    upstream.send(msg).catch((e: unknown) => {
      const why = fatal(e);
      if (m.method !== undefined && m.id !== undefined) {
        // A request that could not be delivered is answered, so the client never waits for it.
        const error = { code: why ? -32000 : -32601, message: `msgbrowse bridge: ${why ?? errorText(e)}` };
        void downstream.send({ jsonrpc: '2.0', id: m.id, error } as JSONRPCMessage).catch(() => {});
      }
      if (why) unreachable(why);
      else log('debug', `relay of ${m.method ?? 'a response'} failed: ${errorText(e)}`);
    });
  };
  downstream.onclose = () => end(0);
}

/** Ends the bridge when the extension host is gone or has restarted its endpoint (a new secret). */
function watchHost(file: string, ep: BridgeEndpoint, end: End, ms: number): NodeJS.Timeout {
  const watch = setInterval(() => {
    if (!processAlive(ep.pid)) {
      const back = 'VS Code restarts this server when it is back';
      return end(1, `msgbrowse bridge: the VS Code extension host (pid ${ep.pid}) has exited; ${back}`);
    }
    try {
      const now = readBridgeEndpoint(file);
      const why = 'the extension host restarted its endpoint (new secret); restart the server to reconnect';
      if (now.secret !== ep.secret || now.pid !== ep.pid) end(1, `msgbrowse bridge: ${why}`);
    } catch {
      // The file is rewritten atomically; a missing file alone is not fatal while the host lives.
    }
  }, ms);
  watch.unref?.();
  return watch;
}

/** Runs until stdin ends or the endpoint is gone; resolves with the exit code. */
export async function runBridge(opts: BridgeOptions): Promise<number> {
  const { log } = opts;
  const ep = openEndpoint(opts.endpointFile, log);
  if (!ep) return 1;
  const upstream = upstreamTo(ep);
  const stdin = opts.stdin ?? process.stdin;
  const downstream = new LineTransport(stdin, opts.stdout ?? process.stdout);

  let finish!: (code: number) => void;
  const done = new Promise<number>((resolve) => (finish = resolve));
  let ending = false;
  const end: End = (code, why) => {
    if (ending) return;
    ending = true;
    clearInterval(watch);
    if (why) log(code === 0 ? 'info' : 'error', why);
    void (async () => {
      if (code === 0)
        await Promise.race([upstream.terminateSession().catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
      await upstream.close().catch(() => {});
      await downstream.close().catch(() => {});
      finish(code);
    })();
  };
  relay(upstream, downstream, end, log);
  stdin.once('end', () => end(0));
  const watch = watchHost(opts.endpointFile, ep, end, 1000);

  await upstream.start();
  await downstream.start();
  log('debug', `bridging stdio to ${ep.kind === 'socket' ? `unix socket ${ep.socketPath}` : `${ep.host}:${ep.port}`}`);
  return done;
}
