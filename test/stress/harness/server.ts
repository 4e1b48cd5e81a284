/**
 * Real servers for the robustness suites: the production runtime (`createRuntime`) and server factory
 * (`createMcpServer`) on an archive file, reached by the SDK `Client` over an in-memory transport or over
 * the real HTTP transport. Semantic search uses an in-process embedder (the fixtures' deterministic
 * `embedText`) so no network is involved.
 */
import { Client, StreamableHTTPClientTransport, InMemoryTransport } from '@modelcontextprotocol/client';
import type { Embedder } from '../../../src/embed/types';
import { createMcpServer } from '../../../src/mcp/index';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../../src/core/index';
import { embedText } from '../../fixtures/index';

export const TEST_CITATION = { scheme: 'vscode', authority: 'msgbrowse.msgbrowse-vscode' } as const;

/** A deterministic local embedder: the same vectors the fixtures stored (no network). */
export function fixtureEmbedder(model: string, dim: number): Embedder {
  return {
    model,
    async embed(text: string, signal?: AbortSignal) {
      signal?.throwIfAborted();
      return Float32Array.from(embedText(text, dim, model));
    },
  };
}

export interface RuntimeSetup {
  archivePath: string;
  /** Embedding model the fixtures stored; omit/empty to disable semantic search. */
  embedModel?: string;
  embedDim?: number;
  /** Extra runtime options (e.g. a tiny closeGraceMs). */
  extra?: Partial<RuntimeOptions>;
  logs?: string[];
}

export function startRuntime(s: RuntimeSetup): Runtime {
  const model = s.embedModel ?? '';
  return createRuntime({
    archivePath: s.archivePath,
    embed: { baseUrl: 'http://127.0.0.1:9/v1', model },
    citation: { ...TEST_CITATION },
    version: '0.0.0-test',
    log: (level, message) => s.logs?.push(`${level}: ${message}`),
    createEmbedder: model ? () => fixtureEmbedder(model, s.embedDim ?? 8) : undefined,
    // These suites check what reads return under load and change; pages are test/mcp/answer-budget.test.ts's.
    answerBudget: 1 << 22,
    ...s.extra,
  });
}

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** A client connected to a fresh server over InMemoryTransport (tool output schemas cached). */
export async function connectInMemory(runtime: Runtime, name = 'robust'): Promise<Connected> {
  const server = createMcpServer(runtime.context);
  const [clientT, serverT] = InMemoryTransport.createLinkedPair();
  await server.connect(serverT);
  const client = new Client({ name, version: '0.0.0' });
  await client.connect(clientT);
  await client.listTools(); // caches output schemas: the client validates structuredContent against them
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** A client connected over streamable HTTP (with the given secret headers). */
export async function connectHttp(
  url: string,
  headers: Record<string, string>,
  name = 'robust-http',
  timeoutMs = 60_000,
): Promise<Connected & { transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name, version: '0.0.0' });
  await client.connect(transport, { timeout: timeoutMs });
  await client.listTools(undefined, { timeout: timeoutMs });
  return {
    client,
    transport,
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}
