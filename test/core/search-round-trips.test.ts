/**
 * How many archive calls one search_messages costs (each is a round trip to the engine worker in the CLI and the
 * extension): the keyword half is one call — its hits, their reactions and attachments, and the receipt's counts
 * (issue #15) — and with the semantic half only the semantic-only hits cost another call for their extras. The
 * answers are the ones the separate calls give.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AsyncArchive } from '../../src/archive/types';
import { createRuntime, inThreadOpener } from '../../src/core/index';
import { hybridSearch } from '../../src/core/hybrid-search';
import { buildCuratedArchive, embedText, type CuratedArchive } from '../fixtures/index';
import Database from 'better-sqlite3';
import { connectClient, textOf } from '../mcp/harness';

const CITATION = { scheme: 'vscode', authority: 'msgbrowse.msgbrowse-vscode' };

let root: string;
let curated: CuratedArchive;

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-roundtrips-'));
  curated = buildCuratedArchive(path.join(root, 'curated'));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** A runtime whose archive records every method called on it (in order, with its arguments). */
function countingRuntime(model: string) {
  const calls: string[] = [];
  const args: unknown[][] = [];
  const rt = createRuntime({
    archivePath: curated.path,
    embed: { baseUrl: 'http://127.0.0.1:9/v1', model },
    citation: CITATION,
    version: '9.9.9',
    createEmbedder: (c) => ({ model: c.model, embed: async (text: string) => Float32Array.from(embedText(text, 8, 'test-embed')) }),
    closeGraceMs: 10,
    openArchive: async (p) => {
      const opened = await inThreadOpener(p);
      const archive = new Proxy(opened.archive, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver) as unknown;
          if (typeof v !== 'function' || typeof prop !== 'string') return v;
          return (...a: unknown[]) => {
            calls.push(prop);
            args.push(a);
            return (v as (...x: unknown[]) => unknown).apply(target, a);
          };
        },
      }) as AsyncArchive;
      return { ...opened, archive };
    },
  });
  return { rt, calls, args };
}

/** The model's stored vectors whose message exists, counted apart from our code. */
function sqlCoverage(model: string): number {
  const db = new Database(curated.path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM embeddings e WHERE e.model = ? AND e.message_hash IN (SELECT hash FROM messages)').get(model) as { n: number }).n;
  } finally {
    db.close();
  }
}

type Structured = { hits: { message_id: number; reactions?: unknown[]; attachments?: unknown[] }[]; semantic: { used: boolean }; receipt: { messages_in_scope: number; vector_coverage?: { messages_with_vectors: number } } };

describe('archive calls per search_messages', () => {
  it('keyword only: one call, with the same hits, extras and receipt the separate calls give', async () => {
    const { rt, calls } = countingRuntime('');
    const { client, close } = await connectClient(rt.context);
    try {
      const conv = curated.marks.reactionTarget.conversationId;
      for (const args of [{ query: 'the' }, { query: 'the', has_attachment: true }, { query: 'lease', conversation_id: conv }]) {
        calls.length = 0;
        const r = (await client.callTool({ name: 'search_messages', arguments: args })) as CallToolResult;
        assert.ok(!r.isError, textOf(r));
        assert.deepEqual(calls.filter((c) => c !== 'conversationById' && c !== 'resolveConversation'), ['searchKeywordBundle'], JSON.stringify(args));
        const s = r.structuredContent as Structured;
        const archive = await rt.context.archive();
        const scope = 'conversation_id' in args ? { conversationId: conv, source: curated.conversations.find((c) => c.id === conv)!.source } : args.has_attachment ? { hasAttachment: true } : {};
        assert.equal(s.receipt.messages_in_scope, (await archive.scopeCounts(scope)).messages);
        const expected = await archive.searchKeyword({ query: args.query, limit: 20, ...('conversation_id' in args ? { conversationId: conv } : {}), ...(args.has_attachment ? { hasAttachment: true } : {}) });
        assert.deepEqual(s.hits.map((h) => h.message_id), expected.map((h) => h.id));
        const extras = await archive.hitExtras(expected.map((h) => h.hash), expected.map((h) => h.id));
        const carried = s.hits.reduce((n, h) => n + (h.reactions?.length ?? 0) + (h.attachments?.length ?? 0), 0);
        assert.equal(carried, extras.reactions.length + extras.attachments.length);
      }
    } finally {
      await close();
      await rt.dispose();
    }
  });

  it('hybrid: the keyword half is still one call, the semantic half one more (its hits with their extras); no extras call', async () => {
    const { rt, calls, args } = countingRuntime('test-embed');
    const { client, close } = await connectClient(rt.context);
    try {
      // The first call builds the index (keyword answer meanwhile); ask until the semantic half is used.
      let s: Structured | undefined;
      for (let i = 0; i < 200 && !s?.semantic.used; i++) {
        calls.length = 0;
        args.length = 0;
        const r = (await client.callTool({ name: 'search_messages', arguments: { query: 'lease agreement' } })) as CallToolResult;
        assert.ok(!r.isError, textOf(r));
        s = r.structuredContent as Structured;
        if (!s.semantic.used) await new Promise((res) => setTimeout(res, 20));
      }
      assert.equal(s?.semantic.used, true);
      assert.equal(calls.filter((c) => c === 'searchKeywordBundle').length, 1);
      assert.equal(calls.filter((c) => c === 'searchKeyword' || c === 'scopeCounts').length, 0, calls.join(', '));
      assert.equal(calls.filter((c) => c === 'hitMessagesBundle').length, 1, calls.join(', '));
      assert.equal(calls.filter((c) => c === 'hitExtras' || c === 'messagesByIds').length, 0, calls.join(', '));
      assert.equal(args[calls.indexOf('hitMessagesBundle')][1], undefined, 'the semantic half counts nothing: the keyword half did');
      const archive = await rt.context.archive();
      const bundle = (await archive.searchKeywordBundle({ query: 'lease agreement', limit: 20 })).hits.map((h) => h.id);
      const semanticOnly = s!.hits.map((h) => h.message_id).filter((id) => !bundle.includes(id));
      assert.ok(semanticOnly.length > 0, 'the semantic half brought hits of its own');
      // Every fused hit carries exactly the extras the separate call gives, once (a hit both halves found included).
      const fused = await archive.messagesByIds(s!.hits.map((h) => h.message_id));
      const extras = await archive.hitExtras(fused.map((m) => m.hash), fused.map((m) => m.id));
      assert.ok(extras.reactions.length + extras.attachments.length > 0, 'some fused hits have reactions or attachments');
      const carried = s!.hits.reduce((n, h) => n + (h.reactions?.length ?? 0) + (h.attachments?.length ?? 0), 0);
      assert.equal(carried, extras.reactions.length + extras.attachments.length);
      assert.equal(s?.receipt.vector_coverage?.messages_with_vectors, sqlCoverage('test-embed'));
    } finally {
      await close();
      await rt.dispose();
    }
  });

  it('semantic_search: after the vector search one call (the hits, their extras, the receipt\'s counts), the same as the separate calls', async () => {
    const { rt, calls, args } = countingRuntime('test-embed');
    const { client, close } = await connectClient(rt.context);
    try {
      // The first call builds the index (and reads the whole archive's counts meanwhile); the ones after search it.
      const first = (await client.callTool({ name: 'semantic_search', arguments: { query: 'lease' } })) as CallToolResult;
      assert.ok(!first.isError, textOf(first));
      const conv = curated.marks.reactionTarget.conversationId;
      let withExtras = 0;
      for (const a of [{ query: 'lease agreement' }, { query: 'reaction heart', conversation_id: conv }, { query: 'photo of the cabin', has_attachment: true }]) {
        calls.length = 0;
        args.length = 0;
        const r = (await client.callTool({ name: 'semantic_search', arguments: a })) as CallToolResult;
        assert.ok(!r.isError, textOf(r));
        const reads = calls.filter((c) => !['conversationById', 'resolveConversation', 'messageIdsWith', 'embeddingModels'].includes(c));
        assert.deepEqual(reads, ['hitMessagesBundle'], JSON.stringify(a));
        const s = r.structuredContent as Structured;
        assert.ok(s.hits.length > 0, JSON.stringify(a));
        const archive = await rt.context.archive();
        const scope = 'conversation_id' in a ? { conversationId: conv, source: curated.conversations.find((c) => c.id === conv)!.source } : a.has_attachment ? { hasAttachment: true } : {};
        assert.deepEqual(JSON.parse(JSON.stringify(args[calls.indexOf('hitMessagesBundle')][1])), scope, 'the receipt\'s scope is counted in the same call');
        const counts = await archive.scopeCounts(scope, 'test-embed');
        assert.equal(s.receipt.messages_in_scope, counts.messages);
        assert.equal(s.receipt.vector_coverage?.messages_with_vectors, counts.withVectors);
        const rows = await archive.messagesByIds(s.hits.map((h) => h.message_id));
        const extras = await archive.hitExtras(rows.map((m) => m.hash), rows.map((m) => m.id));
        const carried = s.hits.reduce((n, h) => n + (h.reactions?.length ?? 0) + (h.attachments?.length ?? 0), 0);
        assert.equal(carried, extras.reactions.length + extras.attachments.length, JSON.stringify(a));
        withExtras += carried;
      }
      assert.ok(withExtras > 0, 'some hits carry reactions or attachments');
    } finally {
      await close();
      await rt.dispose();
    }
  });

  it('a search without a receipt (the palette) counts nothing', async () => {
    const { rt, calls, args } = countingRuntime('');
    try {
      const archive = await rt.context.archive();
      calls.length = 0;
      args.length = 0;
      const r = await hybridSearch(rt.context, archive, { query: 'lease', limit: 10 }, new AbortController().signal);
      assert.ok(r.hits.length > 0);
      assert.equal(r.counts, undefined);
      assert.deepEqual(calls, ['searchKeywordBundle']);
      assert.equal(args[0][1], undefined, 'no scope to count');
    } finally {
      await rt.dispose();
    }
  });

  it('the keyword half answers even when asking for the semantic state fails', async () => {
    const { rt, calls } = countingRuntime('test-embed');
    const ctx = { ...rt.context, semantic: () => Promise.reject(new Error('the semantic backend broke')) };
    const { client, close } = await connectClient(ctx);
    try {
      const r = (await client.callTool({ name: 'search_messages', arguments: { query: 'lease' } })) as CallToolResult;
      assert.ok(!r.isError, textOf(r));
      const s = r.structuredContent as Structured & { semantic: { reason?: string } };
      assert.ok(s.hits.length > 0);
      assert.equal(s.semantic.used, false);
      assert.match(s.semantic.reason ?? '', /the semantic backend broke/);
      assert.equal(s.receipt.vector_coverage, undefined, 'no model named, no vectors counted');
      assert.deepEqual(calls.filter((c) => c !== 'conversationById'), ['searchKeywordBundle']);
    } finally {
      await close();
      await rt.dispose();
    }
  });
});
