/** A local OpenAI-compatible embeddings endpoint for tests, listening on 127.0.0.1:0. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Responder = (req: RecordedRequest) => { status?: number; body: unknown; delayMs?: number; raw?: boolean };

export interface TestEmbedServer {
  baseUrl: string;
  requests: RecordedRequest[];
  respond: Responder;
  close(): Promise<void>;
}

/** Starts the server; `respond` may be replaced at any time. Default: [1, 0] for every input. */
export async function startEmbedServer(respond?: Responder): Promise<TestEmbedServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const state: TestEmbedServer = {
    baseUrl: '',
    requests,
    respond:
      respond ??
      ((req) => {
        const parsed = JSON.parse(req.body) as { input: string[] };
        return {
          body: {
            object: 'list',
            data: parsed.input.map((_, index) => ({ object: 'embedding', index, embedding: [1, 0] })),
          },
        };
      }),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(rec);
      let out: ReturnType<Responder>;
      try {
        out = state.respond(rec);
      } catch (e) {
        out = { status: 500, body: String(e) };
      }
      const send = () => {
        if (res.destroyed) return;
        const text = out.raw ? String(out.body) : JSON.stringify(out.body);
        res.writeHead(out.status ?? 200, { 'content-type': 'application/json' });
        res.end(text);
      };
      if (out.delayMs) setTimeout(send, out.delayMs).unref();
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}
