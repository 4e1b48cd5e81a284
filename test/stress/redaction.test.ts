/**
 * Secrets never leave unredacted (issue #16.2): a property test drives every tool and both resource templates with
 * random arguments (fuzz arbitraries: valid, boundary and hostile) against the secrets fixture and asserts that no
 * planted secret — whole, or the part of it a cut snippet would show — is in the text, structuredContent or
 * resource contents, and that no content field still holds anything the detectors would redact. Then: search still
 * finds those messages, near misses arrive unchanged, the palette's search shows the original, and
 * a reload with `redact: false` turns redaction off without a restart.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { buildSecretsArchive, NEAR_MISSES, PLANTED_SECRETS, type ArchiveDescription } from '../fixtures/index';
import { describeCall, toolCall, type ToolCall } from './fuzz/arbitraries';
import { vocabularyOf } from './fuzz/vocabulary';
import { connectInMemory, startRuntime, type Connected } from './harness/server';
import { fuzzSeed, scale } from './harness/mode';
import type { Runtime } from '../../src/core/index';
import { findSecrets } from '../../src/core/redact';
import { hybridSearch } from '../../src/core/hybrid-search';

const SEED = fuzzSeed();
const RUNS = scale(1_500, 15_000);

/** The test's own reading of a text (not the redactor's): Arabic-Indic digits as ASCII, JSON's escaped breaks as spaces. */
const ascii = (s: string) =>
  s.replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x660)).replace(/\\[ntr]/g, ' ');
const compact = (s: string) => ascii(s).replace(/[\s\p{Cf}-]/gu, '');
/** Output with the separators inside digit/letter groups removed, so a grouped secret is found however it is cut. */
const joined = (s: string) => ascii(s).replace(/(?<=[0-9A-Za-z])[\s\p{Cf}-]+(?=[0-9A-Za-z])/gu, '');

/** The first planted secret (or a 10-character piece of a card/IBAN) in `out` that the call's own arguments do not contain. */
function leak(out: string, args: string): string | undefined {
  const outJoined = joined(out);
  for (const s of PLANTED_SECRETS) {
    const c = compact(s.value);
    if (args.includes(s.value) || args.includes(c)) continue;
    if (out.includes(s.value) || outJoined.includes(c)) return `${s.kind} ${s.value}`;
    if (s.kind === 'card number' || s.kind === 'IBAN') {
      for (let i = 0; i + 10 <= c.length; i++) {
        const piece = c.slice(i, i + 10);
        if (/\d{6}/.test(piece) && outJoined.includes(piece) && !args.includes(piece))
          return `part ${piece} of ${s.kind} ${s.value}`;
      }
    }
  }
  return undefined;
}

/** Content fields of a tool's structuredContent / a resource's JSON (not ids, hashes, names or links). */
function contentFields(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) contentFields(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (
        (k === 'text' || k === 'url' || k === 'path' || k === 'name') &&
        typeof x === 'string' &&
        !('id' in v && k === 'name')
      )
        out.push(x);
      else contentFields(x, out);
    }
  }
  return out;
}

describe('redaction: no secret leaves the MCP server unredacted', { timeout: scale(240_000, 1_800_000) }, () => {
  let dir: string;
  let desc: ArchiveDescription;
  let runtime: Runtime;
  let conn: Connected;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-redact-'));
    desc = buildSecretsArchive(dir);
    runtime = startRuntime({ archivePath: desc.path, embedModel: 'test-embed', embedDim: 8 });
    conn = await connectInMemory(runtime, 'redaction');
  });

  after(async () => {
    await conn?.close();
    await runtime?.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function check(label: string, args: unknown, payload: unknown, structured: unknown): void {
    const out = JSON.stringify(payload);
    const a = JSON.stringify(args);
    const l = leak(out, a);
    assert.equal(l, undefined, `${label}: ${l}`);
    for (const f of contentFields(structured))
      assert.deepEqual(findSecrets(f), [], `${label}: unredacted content ${JSON.stringify(f)}`);
  }

  it(`${RUNS} random tool calls and resource reads: nothing redactable in text, structuredContent or resources`, async () => {
    const v = vocabularyOf(desc);
    // Words with digits are the secrets themselves: a query echoing one back is the model's own text.
    const vocab = { ...v, words: v.words.filter((w) => !/\d/.test(w)) };
    const resourceUri = fc.oneof(
      fc.constantFrom(...desc.messages.map((m) => `msgbrowse://message/${m.id}?h=${m.hash.slice(0, 12)}`)),
      fc.constantFrom(...desc.messages.map((m) => `msgbrowse://message/${m.hash}`)),
      fc.constantFrom(...desc.messages.map((m) => `msgbrowse://message/${m.id}`)),
      fc.constantFrom(...desc.conversations.map((c) => `msgbrowse://conversation/${c.id}`)),
      fc.integer({ min: 1, max: 60 }).map((id) => `msgbrowse://message/${id}`),
    );
    let okCalls = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 4, arbitrary: toolCall(vocab) }, { weight: 1, arbitrary: resourceUri }),
        async (call: ToolCall | string) => {
          if (typeof call === 'string') {
            let res: Awaited<ReturnType<typeof conn.client.readResource>>;
            try {
              res = await conn.client.readResource({ uri: call });
            } catch (e) {
              check(`resources/read ${call} (error)`, call, String(e), undefined);
              return;
            }
            for (const c of res.contents) {
              const body = 'text' in c ? c.text : '';
              check(
                `resources/read ${call}`,
                call,
                body,
                c.mimeType === 'application/json' ? JSON.parse(body as string) : undefined,
              );
            }
            okCalls++;
            return;
          }
          const res = await conn.client.callTool({ name: call.name, arguments: call.arguments });
          if (!res.isError) okCalls++;
          check(
            describeCall(call),
            call.arguments,
            { content: res.content, structuredContent: res.structuredContent },
            res.structuredContent,
          );
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    assert.ok(okCalls > RUNS / 4, `only ${okCalls} of ${RUNS} calls succeeded`);
  });

  it('every planted secret is redacted where the whole transcript is read, and the labels say what was there', async () => {
    for (const c of desc.conversations) {
      const res = await conn.client.callTool({ name: 'get_conversation', arguments: { conversation_id: c.id } });
      const text = JSON.stringify(res);
      assert.equal(leak(text, ''), undefined, c.name);
    }
    const bank = await conn.client.callTool({ name: 'get_conversation', arguments: { name: 'Bank' } });
    const texts = (bank.structuredContent as { messages: { text: string }[] }).messages.map((m) => m.text);
    assert.equal(
      texts[0].startsWith('Your verification code is [redacted: one-time code]. Do not share'),
      true,
      texts[0],
    );
    const harper = await conn.client.callTool({ name: 'get_conversation', arguments: { name: 'Harper' } });
    const ht = (harper.structuredContent as { messages: { text: string }[] }).messages.map((m) => m.text).join('\n');
    for (const label of ['[redacted: card number]', '[redacted: IBAN]', '[redacted: password]'])
      assert.ok(ht.includes(label), label);
  });

  it("every day's journal and digest, every link and every file name: nothing redactable reaches the model", async () => {
    const calls: { name: string; arguments: Record<string, unknown> }[] = [
      ...vocabularyOf(desc).days.map((day) => ({ name: 'get_journal_day', arguments: { day } })),
      { name: 'list_links', arguments: { limit: 100 } },
      { name: 'list_media', arguments: { limit: 100 } },
    ];
    for (const call of calls) {
      const res = await conn.client.callTool({ name: call.name, arguments: call.arguments });
      const label = `${call.name} ${JSON.stringify(call.arguments)}`;
      assert.notEqual(res.isError, true, label);
      check(label, '', { content: res.content, structuredContent: res.structuredContent }, res.structuredContent);
    }
    const day = await conn.client.callTool({ name: 'get_journal_day', arguments: { day: '2024-03-02' } });
    const digest = (day.structuredContent as { digest: { people: string[]; themes: string[] } }).digest;
    assert.deepEqual(
      [digest.people, digest.themes],
      [['Harper (code [redacted: one-time code])'], ['wifi password: [redacted: password]', 'IBAN [redacted: IBAN]']],
    );
  });

  it('search still finds the messages; snippets cut inside a secret show none of it', async () => {
    for (const query of [
      'verification',
      'card',
      'IBAN',
      'deposit landlord',
      'password',
      'Bestätigungscode',
      '4539',
      '483920',
    ]) {
      const res = await conn.client.callTool({ name: 'search_messages', arguments: { query } });
      const hits = (res.structuredContent as { hits: { text: string }[] }).hits;
      assert.ok(hits.length > 0, `no hit for ${query}`);
      assert.equal(leak(JSON.stringify(hits), ''), undefined, query);
      for (const h of hits) assert.deepEqual(findSecrets(h.text.replace(/\*\*/g, '')), [], `${query}: ${h.text}`);
    }
  });

  it('near misses, ids, hashes and citation links arrive unchanged', async () => {
    const zoe = desc.conversations.find((c) => c.name === 'Zoe')!;
    const res = await conn.client.callTool({ name: 'get_conversation', arguments: { conversation_id: zoe.id } });
    const msgs = (
      res.structuredContent as { messages: { text: string; hash: string; link: string; message_id: number }[] }
    ).messages;
    assert.deepEqual(
      msgs.map((m) => m.text),
      [...NEAR_MISSES],
    );
    for (const m of msgs) {
      const w = desc.messages.find((x) => x.id === m.message_id)!;
      assert.equal(m.hash, w.hash);
      assert.ok(m.link.endsWith(`?h=${w.hash.slice(0, m.link.split('?h=')[1].length)}`), m.link);
    }
  });

  it("the palette's search (no redact flag) shows the original; a reload with redact off turns redaction off for tools", async () => {
    const archive = await runtime.context.archive();
    const palette = await hybridSearch(
      runtime.context,
      archive,
      { query: 'verification', limit: 5 },
      new AbortController().signal,
    );
    assert.ok(
      palette.hits.some((h) => h.text.includes('483920')),
      'the person sees the code',
    );
    await runtime.reload({ ...runtime.settings, redact: false });
    try {
      const res = await conn.client.callTool({ name: 'get_conversation', arguments: { name: 'Bank' } });
      assert.ok(JSON.stringify(res.structuredContent).includes('483920'), 'redaction off: the code is sent');
      const links = await conn.client.callTool({ name: 'list_links', arguments: {} });
      assert.ok(JSON.stringify(links.structuredContent).includes('password=s3cretQ'));
    } finally {
      await runtime.reload({ ...runtime.settings, redact: true });
    }
    const again = await conn.client.callTool({ name: 'get_conversation', arguments: { name: 'Bank' } });
    assert.ok(!JSON.stringify(again.structuredContent).includes('483920'), 'redaction back on');
  });
});
