/**
 * Test harness for the MCP server: a real fixture archive opened with the real archive layer, an SDK Client
 * over an in-memory transport, and a tiny exact-cosine VectorIndex over archive.embeddings(model).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { openArchive, inThread } from '../../src/archive/index';
import type { Archive, AsyncArchive } from '../../src/archive/types';
import { OpenAIEmbedder, modelAvailabilityProblem, NO_EMBED_MODEL_REASON } from '../../src/embed';
import type { Embedder } from '../../src/embed/types';
import { createMcpServer } from '../../src/mcp';
import type { ServerContext, SemanticState, LogLevel } from '../../src/core/context';
import type { VectorFilter, VectorHit, VectorIndex } from '../../src/search/types';

export const CITATION = { scheme: 'vscode', authority: 'msgbrowse.msgbrowse-vscode' };

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `msgbrowse-${prefix}-`));
}

/** Exact cosine (float64) over every stored vector of one model; ties by message id. */
export class ExactCosineIndex implements VectorIndex {
  readonly size: number;
  private constructor(
    readonly model: string,
    readonly dim: number,
    private readonly rows: {
      id: number;
      conv: number;
      ts: number;
      sender?: string;
      source?: string;
      vec: Float32Array;
    }[],
  ) {
    this.size = rows.length;
  }
  static fromArchive(archive: Archive, model: string): ExactCosineIndex {
    const rows = [];
    let dim = 0;
    for (const r of archive.embeddings(model)) {
      dim = r.vec.length;
      rows.push({
        id: r.messageId,
        conv: r.conversationId,
        ts: r.tsUnix,
        sender: r.sender,
        source: r.source,
        vec: r.vec,
      });
    }
    return new ExactCosineIndex(model, dim, rows);
  }
  async search(q: Float32Array, k: number, f: VectorFilter = {}): Promise<VectorHit[]> {
    let qn = 0;
    for (const x of q) qn += x * x;
    qn = Math.sqrt(qn);
    const out: VectorHit[] = [];
    for (const r of this.rows) {
      if (f.conversationId !== undefined && r.conv !== f.conversationId) continue;
      if (f.startUnix !== undefined && r.ts < f.startUnix) continue;
      if (f.endUnix !== undefined && r.ts > f.endUnix) continue;
      if (f.sender !== undefined && r.sender !== f.sender) continue;
      if (f.source !== undefined && r.source !== f.source) continue;
      if (f.excludeConversationIds?.includes(r.conv)) continue;
      if (f.onlyMessageIds && !f.onlyMessageIds.includes(r.id)) continue;
      if (f.skipMessageIds?.includes(r.id)) continue;
      let dot = 0;
      let vn = 0;
      for (let i = 0; i < r.vec.length; i++) {
        dot += q[i] * r.vec[i];
        vn += r.vec[i] * r.vec[i];
      }
      out.push({ messageId: r.id, score: vn === 0 || qn === 0 ? 0 : dot / (qn * Math.sqrt(vn)) });
    }
    out.sort((a, b) => b.score - a.score || a.messageId - b.messageId);
    return out.slice(0, k);
  }
  dispose(): void {}
}

export interface HarnessOptions {
  archivePath: string;
  /** Embedding config; omit (or model '') for "no embedding model configured". */
  embed?: { baseUrl: string; model: string; timeoutMs?: number };
  /** Replace the embedder (e.g. to return a wrong-dimension vector). */
  embedder?: Embedder;
  /**
   * The answer budget in bytes (default 1 MiB: these tests check what a query finds; test/mcp/answer-budget.test.ts
   * checks pages at the budgets clients use).
   */
  answerBudget?: number;
}

export interface Harness {
  client: Client;
  archive: Archive;
  ctx: ServerContext;
  logs: { level: LogLevel; message: string }[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls and returns structuredContent, failing with the error text if isError. */
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Calls and returns the error text, failing if the call succeeded. */
  err(name: string, args?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startHarness(opts: HarnessOptions): Promise<Harness> {
  const archive = await openArchive(opts.archivePath);
  const asyncArchive: AsyncArchive = inThread(archive);
  const logs: { level: LogLevel; message: string }[] = [];
  const indexes = new Map<string, ExactCosineIndex>();
  const ctx: ServerContext = {
    archive: async () => asyncArchive,
    citation: CITATION,
    answerBudget: opts.answerBudget ?? 1 << 20,
    version: '0.0.0-test',
    log: (level, message) => logs.push({ level, message }),
    semantic: async (): Promise<SemanticState> => {
      const model = opts.embed?.model?.trim() ?? '';
      if (!opts.embed || model === '') return { available: false, reason: NO_EMBED_MODEL_REASON };
      const problem = modelAvailabilityProblem(model, archive.embeddingModels());
      if (problem) return { available: false, reason: problem };
      let index = indexes.get(model);
      if (!index) {
        index = ExactCosineIndex.fromArchive(archive, model);
        indexes.set(model, index);
      }
      const embedder =
        opts.embedder ?? new OpenAIEmbedder({ baseUrl: opts.embed.baseUrl, model, timeoutMs: opts.embed.timeoutMs });
      return { available: true, embedder, index };
    },
  };
  const { client, close } = await connectClient(ctx);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    archive,
    ctx,
    logs,
    call,
    async ok<T>(name: string, args: Record<string, unknown> = {}) {
      const r = await call(name, args);
      if (r.isError) throw new Error(`${name} failed: ${textOf(r)}`);
      return r.structuredContent as T;
    },
    async err(name: string, args: Record<string, unknown> = {}) {
      const r = await call(name, args);
      if (!r.isError)
        throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(r.structuredContent).slice(0, 300)}`);
      return textOf(r);
    },
    async close() {
      await close();
      archive.close();
    },
  };
}

/** The real server over `ctx`, and an SDK Client connected to it over an in-memory transport. */
export async function connectClient(ctx: ServerContext): Promise<{ client: Client; close(): Promise<void> }> {
  const server = createMcpServer(ctx);
  const [clientT, serverT] = InMemoryTransport.createLinkedPair();
  await server.connect(serverT);
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(clientT);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

export function textOf(r: CallToolResult): string {
  const t = r.content.find((c) => c.type === 'text');
  return t && t.type === 'text' ? t.text : '';
}
