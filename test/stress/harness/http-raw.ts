/** Raw HTTP requests (exact control over Host, Origin, path and headers) for the security suite. */
import * as http from 'node:http';
import * as net from 'node:net';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type RawTarget = { port: number; host?: string } | { socketPath: string };

export interface RawRequest {
  method?: string;
  path?: string;
  /** Header pairs; a repeated name is sent repeatedly (array form). */
  headers?: Record<string, string | string[]>;
  body?: string;
}

export function rawRequest(target: RawTarget, opts: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        ...('port' in target
          ? { host: target.host ?? '127.0.0.1', port: target.port }
          : { socketPath: target.socketPath }),
        method: opts.method ?? 'POST',
        path: opts.path ?? '/mcp',
        headers: opts.headers,
        agent: false,
        setHost: !(opts.headers && Object.keys(opts.headers).some((h) => h.toLowerCase() === 'host')),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('raw request timed out')));
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/**
 * Sends bytes verbatim over TCP (for request lines Node's client will not produce, e.g. absolute-form
 * targets) and returns the status code of the reply.
 */
export function rawSocketStatus(port: number, requestText: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let data = '';
    sock.setTimeout(10_000, () => sock.destroy(new Error('raw socket timed out')));
    sock.on('data', (d) => {
      data += d.toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (m) {
        resolve(Number(m[1]));
        sock.destroy();
      }
    });
    sock.on('error', reject);
    sock.on('close', () => {
      if (!/^HTTP\/1\.[01] (\d{3})/.test(data)) reject(new Error(`no HTTP status in reply: ${JSON.stringify(data)}`));
    });
    sock.write(requestText);
  });
}

/** A JSON-RPC initialize request body. */
export function initializeBody(id = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } },
  });
}

export const MCP_POST_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
} as const;
