/** Raw HTTP requests against the in-process endpoint, to check what a client without the secret gets. */
import http from 'node:http';
import type { EndpointInfo } from '../../../src/extension/mcp-endpoint';

export interface RawResponse {
  status: number;
  body: string;
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'integration-test', version: '1' } },
});

export function rawRequest(ep: EndpointInfo, headers: Record<string, string>, body = INITIALIZE): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const target = ep.kind === 'socket' ? { socketPath: ep.socketPath } : { host: ep.host, port: ep.port };
    const req = http.request(
      {
        ...target,
        method: 'POST',
        path: '/mcp',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(ep.kind === 'tcp' && !('host' in headers) ? { host: `127.0.0.1:${ep.port}` } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('request timed out')));
    req.end(body);
  });
}
