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
import { buildCuratedArchive, embedText, type CuratedArchive } from '../fixtures/index';
import { connectClient, textOf } from '../mcp/harness';

const CITATION = { scheme: 'vscode', authority: 'msgbrowse.msgbrowse-vscode' };

let root: string;
let curated: CuratedArchive;

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-roundtrips-'));
  curated = buildCuratedArchive(path.join(root, 'curated'));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** A runtime whose archive records every method called on it (in order). */
function countingRuntime(model: string) {
  const calls: string[] = [];
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
          return (...args: unknown[]) => {
            calls.push(prop);
            return (v as (...x: unknown[]) => unknown).apply(target, args);
          };
        },
      }) as AsyncArchive;
      return { ...opened, archive };
    },
  });
  return { rt, calls };
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
    const { rt, calls } = countingRuntime('test-embed');
    const { client, close } = await connectClient(rt.context);
    try {
      // The first call builds the index (keyword answer meanwhile); ask until the semantic half is used.
      let s: Structured | undefined;
      for (let i = 0; i < 200 && !s?.semantic.used; i++) {
        calls.length = 0;
        const r = (await client.callTool({ name: 'search_messages', arguments: { query: 'lease agreement' } })) as CallToolResult;
        assert.ok(!r.isError, textOf(r));
        s = r.structuredContent as Structured;
        if (!s.semantic.used) await new Promise((res) => setTimeout(res, 20));
      }
      assert.equal(s?.semantic.used, true);
      assert.equal(calls.filter((c) => c === 'searchKeywordBundle').length, 1);
      assert.equal(calls.filter((c) => c === 'searchKeyword' || c === 'scopeCounts').length, 0, calls.join(', '));
      assert.ok(calls.filter((c) => c === 'hitExtras').length <= 1, calls.join(', '));
      assert.ok((s?.receipt.vector_coverage?.messages_with_vectors ?? 0) > 0);
    } finally {
      await close();
      await rt.dispose();
    }
  });
});
