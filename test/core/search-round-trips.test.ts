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

  it('hybrid: the keyword half is still one call; only hits the keyword half did not bring cost an extras call', async () => {
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
      const bundle = (await (await rt.context.archive()).searchKeywordBundle({ query: 'lease agreement', limit: 20 })).hits.map((h) => h.id);
      const semanticOnly = s!.hits.map((h) => h.message_id).filter((id) => !bundle.includes(id));
      const extrasCalls = args.filter((_, i) => calls[i] === 'hitExtras');
      assert.ok(semanticOnly.length > 0, 'the semantic half brought hits of its own');
      assert.deepEqual(extrasCalls.map((a) => [...(a[1] as number[])].sort()), [[...semanticOnly].sort()], 'extras asked for exactly the semantic-only hits');
      assert.equal(s?.receipt.vector_coverage?.messages_with_vectors, sqlCoverage('test-embed'));
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
