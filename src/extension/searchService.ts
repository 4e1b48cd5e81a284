/**
 * Palette search goes through the same `search_messages` tool Copilot uses (hybrid keyword + semantic, RRF),
 * via an in-memory MCP client, so both surfaces rank identically.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../mcp';
import type { ServerContext } from '../core/context';

export interface SearchHit {
  messageId: number;
  conversationId: number;
  conversation: string;
  source: string;
  sender: string;
  timestamp: string;
  text: string;
  link: string;
  score?: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Why only the keyword half was used, when the semantic half is unavailable. */
  semanticNote?: string;
}

type Raw = Record<string, unknown>;

function toHit(r: Raw): SearchHit | undefined {
  const messageId = Number(r.message_id);
  const conversationId = Number(r.conversation_id);
  if (!Number.isSafeInteger(messageId) || !Number.isSafeInteger(conversationId)) return undefined;
  return {
    messageId,
    conversationId,
    conversation: String(r.conversation ?? ''),
    source: String(r.source ?? ''),
    sender: String(r.sender ?? ''),
    timestamp: String(r.timestamp ?? ''),
    text: String(r.text ?? ''),
    link: String(r.link ?? ''),
    score: typeof r.score === 'number' ? r.score : undefined,
  };
}

export class SearchService {
  private client: Promise<Client> | undefined;

  constructor(private readonly context: ServerContext) {}

  private connect(): Promise<Client> {
    this.client ??= (async () => {
      const [clientT, serverT] = InMemoryTransport.createLinkedPair();
      const server = createMcpServer(this.context);
      await server.connect(serverT);
      const client = new Client({ name: 'msgbrowse-palette', version: this.context.version });
      await client.connect(clientT);
      return client;
    })().catch((e) => {
      this.client = undefined;
      throw e;
    });
    return this.client;
  }

  async search(query: string, limit = 30, signal?: AbortSignal): Promise<SearchResult> {
    const client = await this.connect();
    const res = await client.callTool({ name: 'search_messages', arguments: { query, limit } }, undefined, { signal });
    const content = Array.isArray(res.content) ? (res.content as { type: string; text?: string }[]) : [];
    if (res.isError) {
      throw new Error(content.find((c) => c.type === 'text')?.text ?? 'search failed');
    }
    const sc = (res.structuredContent ?? {}) as Raw;
    const hits = (Array.isArray(sc.hits) ? (sc.hits as Raw[]) : []).map(toHit).filter((h): h is SearchHit => !!h);
    const sem = (sc.semantic ?? {}) as Raw;
    const note = sem.used === false ? String(sem.reason ?? 'semantic search unavailable') : undefined;
    return { hits, semanticNote: note };
  }

  async dispose(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) await (await c.catch(() => undefined))?.close().catch(() => {});
  }
}
