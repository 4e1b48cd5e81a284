/**
 * How many archive calls one search costs (each is a round trip to the engine worker in the CLI and the extension),
 * issue #15: search_messages' keyword half is one call — its hits, their reactions and attachments, and the
 * receipt's counts — and its semantic half one more after the vector search, its hits with their extras (no extras
 * call for the fused hits); semantic_search is that one call with the receipt's counts. The answers, hit by hit,
 * are the ones the separate calls give. get_context is one call too: its target, its window and their extras.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { AsyncArchive } from '../../src/archive/types';
import { createRuntime, inThreadOpener } from '../../src/core/index';
import { hybridSearch } from '../../src/core/hybrid-search';
import { content, redactsFor } from '../../src/core/hits';
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
    createEmbedder: (c) => ({
      model: c.model,
      embed: async (text: string) => Float32Array.from(embedText(text, 8, 'test-embed')),
    }),
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
    return (
      db
        .prepare(
          'SELECT count(*) AS n FROM embeddings e WHERE e.model = ? AND e.message_hash IN (SELECT hash FROM messages)',
        )
        .get(model) as { n: number }
    ).n;
  } finally {
    db.close();
  }
}

/** Each hit's reactions and attachments as the separate archive calls give them (names shaped as the tools do). */
async function separateExtras(archive: AsyncArchive, ids: number[], redact: boolean) {
  const rows = (await Promise.all([...new Set(ids)].map((id) => archive.messageById(id)))).flatMap((m) => m ?? []);
  const extras = await archive.hitExtras(
    rows.map((m) => m.hash),
    rows.map((m) => m.id),
  );
  return new Map(
    rows.map((m) => {
      const reactions = extras.reactions
        .filter((r) => r.messageHash === m.hash)
        .map((r) => ({ emoji: r.emoji, actor: r.actor }));
      const attachments = extras.attachments
        .filter((a) => a.messageId === m.id)
        .map((a) => ({ kind: a.kind, name: content(a.originalName, redact) }));
      return [m.id, { ...(reactions.length ? { reactions } : {}), ...(attachments.length ? { attachments } : {}) }];
    }),
  );
}

/** The hits' extras must be, hit by hit, the separate calls' (none missing, none twice, none another message's). */
async function assertExtrasPerHit(archive: AsyncArchive, hits: Structured['hits'], redact: boolean): Promise<number> {
  const want = await separateExtras(
    archive,
    hits.map((h) => h.message_id),
    redact,
  );
  let carried = 0;
  for (const h of hits) {
    const got = {
      ...(h.reactions ? { reactions: h.reactions } : {}),
      ...(h.attachments ? { attachments: h.attachments } : {}),
    };
    assert.deepEqual(got, want.get(h.message_id), `extras of message ${h.message_id}`);
    carried += (h.reactions?.length ?? 0) + (h.attachments?.length ?? 0);
  }
  return carried;
}

type Structured = {
  hits: { message_id: number; reactions?: unknown[]; attachments?: unknown[] }[];
  semantic: { used: boolean };
  receipt: { messages_in_scope: number; vector_coverage?: { messages_with_vectors: number } };
};

describe('archive calls per search_messages', () => {
  it('keyword only: one call, with the same hits, extras and receipt the separate calls give', async () => {
    const { rt, calls } = countingRuntime('');
    const { client, close } = await connectClient(rt.context);
    try {
      const conv = curated.marks.reactionTarget.conversationId;
      for (const args of [
        { query: 'the' },
        { query: 'the', has_attachment: true },
        { query: 'lease', conversation_id: conv },
      ]) {
        calls.length = 0;
        const r = (await client.callTool({ name: 'search_messages', arguments: args })) as CallToolResult;
        assert.ok(!r.isError, textOf(r));
        assert.deepEqual(
          calls.filter((c) => c !== 'conversationById' && c !== 'resolveConversation'),
          ['searchKeywordBundle'],
          JSON.stringify(args),
        );
        const s = r.structuredContent as Structured;
        const archive = await rt.context.archive();
        const scope =
          'conversation_id' in args
            ? { conversationId: conv, source: curated.conversations.find((c) => c.id === conv)!.source }
            : args.has_attachment
              ? { hasAttachment: true }
              : {};
        assert.equal(s.receipt.messages_in_scope, (await archive.scopeCounts(scope)).messages);
        const expected = await archive.searchKeyword({
          query: args.query,
          limit: 20,
          ...('conversation_id' in args ? { conversationId: conv } : {}),
          ...(args.has_attachment ? { hasAttachment: true } : {}),
        });
        assert.deepEqual(
          s.hits.map((h) => h.message_id),
          expected.map((h) => h.id),
        );
        await assertExtrasPerHit(archive, s.hits, redactsFor(rt.context));
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
        const r = (await client.callTool({
          name: 'search_messages',
          arguments: { query: 'lease agreement' },
        })) as CallToolResult;
        assert.ok(!r.isError, textOf(r));
        s = r.structuredContent as Structured;
        if (!s.semantic.used) await new Promise((res) => setTimeout(res, 20));
      }
      assert.equal(s?.semantic.used, true);
      assert.equal(calls.filter((c) => c === 'searchKeywordBundle').length, 1);
      assert.equal(calls.filter((c) => c === 'searchKeyword' || c === 'scopeCounts').length, 0, calls.join(', '));
      assert.equal(calls.filter((c) => c === 'hitMessagesBundle').length, 1, calls.join(', '));
      assert.equal(calls.filter((c) => c === 'hitExtras' || c === 'messageById').length, 0, calls.join(', '));
      assert.equal(
        args[calls.indexOf('hitMessagesBundle')][1],
        undefined,
        'the semantic half counts nothing: the keyword half did',
      );
      const archive = await rt.context.archive();
      const bundle = (await archive.searchKeywordBundle({ query: 'lease agreement', limit: 20 })).hits.map((h) => h.id);
      const semanticOnly = s!.hits.map((h) => h.message_id).filter((id) => !bundle.includes(id));
      assert.ok(semanticOnly.length > 0, 'the semantic half brought hits of its own');
      // Every fused hit carries exactly the extras the separate calls give, once.
      const redact = redactsFor(rt.context);
      assert.ok(
        (await assertExtrasPerHit(archive, s!.hits, redact)) > 0,
        'some fused hits have reactions or attachments',
      );
      assert.equal(s?.receipt.vector_coverage?.messages_with_vectors, sqlCoverage('test-embed'));
      // A message both halves find, with reactions: its extras come once, not once per half.
      const target = curated.marks.reactionTarget;
      const both = (await client.callTool({
        name: 'search_messages',
        arguments: { query: target.body },
      })) as CallToolResult;
      const sb = both.structuredContent as Structured;
      assert.equal(sb.semantic.used, true);
      const keywordIds = (await archive.searchKeywordBundle({ query: target.body, limit: 20 })).hits.map((h) => h.id);
      assert.ok(keywordIds.includes(target.id), 'the keyword half finds it');
      assert.equal(
        sb.hits[0]?.message_id,
        target.id,
        'the semantic half ranks its own text first, so the fusion does too',
      );
      assert.ok((sb.hits[0].reactions?.length ?? 0) > 0);
      await assertExtrasPerHit(archive, sb.hits, redact);
    } finally {
      await close();
      await rt.dispose();
    }
  });

  it("semantic_search: after the vector search one call (the hits, their extras, the receipt's counts), the same as the separate calls", async () => {
    const { rt, calls, args } = countingRuntime('test-embed');
    const { client, close } = await connectClient(rt.context);
    try {
      // The first call builds the index (and reads the whole archive's counts meanwhile); the ones after search it.
      const first = (await client.callTool({
        name: 'semantic_search',
        arguments: { query: 'lease' },
      })) as CallToolResult;
      assert.ok(!first.isError, textOf(first));
      const conv = curated.marks.reactionTarget.conversationId;
      let withExtras = 0;
      for (const a of [
        { query: 'lease agreement' },
        { query: 'reaction heart', conversation_id: conv },
        { query: 'photo of the cabin', has_attachment: true },
      ]) {
        calls.length = 0;
        args.length = 0;
        const r = (await client.callTool({ name: 'semantic_search', arguments: a })) as CallToolResult;
        assert.ok(!r.isError, textOf(r));
        const reads = calls.filter(
          (c) => !['conversationById', 'resolveConversation', 'messageIdsWith', 'embeddingModels'].includes(c),
        );
        assert.deepEqual(reads, ['hitMessagesBundle'], JSON.stringify(a));
        const s = r.structuredContent as Structured;
        assert.ok(s.hits.length > 0, JSON.stringify(a));
        const archive = await rt.context.archive();
        const scope =
          'conversation_id' in a
            ? { conversationId: conv, source: curated.conversations.find((c) => c.id === conv)!.source }
            : a.has_attachment
              ? { hasAttachment: true }
              : {};
        assert.deepEqual(
          JSON.parse(JSON.stringify(args[calls.indexOf('hitMessagesBundle')][1])),
          scope,
          "the receipt's scope is counted in the same call",
        );
        const counts = await archive.scopeCounts(scope, 'test-embed');
        assert.equal(s.receipt.messages_in_scope, counts.messages);
        assert.equal(s.receipt.vector_coverage?.messages_with_vectors, counts.withVectors);
        withExtras += await assertExtrasPerHit(archive, s.hits, redactsFor(rt.context));
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
      assert.deepEqual(
        calls.filter((c) => c !== 'conversationById'),
        ['searchKeywordBundle'],
      );
    } finally {
      await close();
      await rt.dispose();
    }
  });
});

describe('archive calls per get_context', () => {
  it('one call (target, window and extras in one snapshot), with the extras the separate calls give', async () => {
    const { rt, calls } = countingRuntime('');
    const { client, close } = await connectClient(rt.context);
    try {
      const target = curated.marks.reactionTarget;
      for (const args of [
        { message_id: target.id },
        { message_id: target.id, hash: target.hash.slice(0, 16), window: 2 },
        { hash: target.hash },
      ]) {
        calls.length = 0;
        const r = (await client.callTool({ name: 'get_context', arguments: args })) as CallToolResult;
        assert.ok(!r.isError, textOf(r));
        assert.deepEqual(
          calls.filter((c) => c !== 'conversationById'),
          ['contextView'],
          JSON.stringify(args),
        );
        const s = r.structuredContent as { messages: Structured['hits'] };
        const archive = await rt.context.archive();
        const expected = (await archive.context(target.id, args.window ?? 5)) ?? [];
        assert.deepEqual(
          s.messages.map((h) => h.message_id),
          expected.map((m) => m.id),
        );
        assert.ok(
          s.messages.some((h) => h.reactions?.length),
          'the reaction target carries its reactions',
        );
        await assertExtrasPerHit(archive, s.messages, redactsFor(rt.context));
      }
    } finally {
      await close();
      await rt.dispose();
    }
  });
});
