/**
 * The 2026-07-28 leg of the HTTP transport: the SDK's per-request entry, a fresh server per request, no sessions.
 * http.ts reaches it only after its guard (token, Host, Origin), for requests that claim 2026-07-28 (`claims`).
 */
import type * as http from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, type McpServer } from '@modelcontextprotocol/server';
import { DEFAULT_MAX_BODY_BYTES } from './body';
import { type ListenWatchFactory, listenRequestId, requestedFilter } from './listen-streams';

export interface ModernLeg {
  /** Whether the request is 2026-07-28's rather than an initialize-era session's (the SDK's own classification). */
  claims(req: http.IncomingMessage, body: unknown): Promise<boolean>;
  serve(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void>;
  /** Ends the open listen streams gracefully and aborts requests in flight. */
  close(): Promise<void>;
}

/** Headers only (not the SDK's toWebRequest, which serialises the body again): the predicate reads the parsed one. */
function headersOf(req: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  return headers;
}

export function modernLeg(
  createServer: () => McpServer | Promise<McpServer>,
  opts: { listens?: ListenWatchFactory; onerror?: (e: Error) => void } = {},
): ModernLeg {
  const handler = createMcpHandler(createServer, {
    legacy: 'reject',
    onerror: opts.onerror,
    maxRequestBodySize: DEFAULT_MAX_BODY_BYTES,
  });
  const node = toNodeHandler(handler, { onerror: opts.onerror, maxRequestBodySize: DEFAULT_MAX_BODY_BYTES });
  const listens = opts.listens?.(handler.notify);
  return {
    claims: async (req, body) => {
      const request = new Request('http://localhost/', { method: req.method, headers: headersOf(req) });
      return !(await isLegacyRequest(request, body, { maxRequestBodySize: DEFAULT_MAX_BODY_BYTES }));
    },
    serve: async (req, res, body) => {
      if (listens && listenRequestId(body) !== undefined) {
        // Changes are noticed from before the acknowledgement, and published once the stream is on the SDK's bus:
        // its response starts only after that (a refused listen gets its error response and ends at once).
        let end = () => {};
        let closed = false;
        res.once('close', () => {
          closed = true;
          end();
        });
        const slot = await listens.reserve();
        if (closed) return slot.release();
        end = () => slot.release();
        const writeHead = res.writeHead;
        res.writeHead = ((...args: Parameters<typeof writeHead>) => {
          res.writeHead = writeHead;
          end = slot.add(requestedFilter(body));
          return writeHead.apply(res, args);
        }) as typeof writeHead;
      }
      await node(req, res, body);
    },
    close: () => handler.close(),
  };
}
