/**
 * Excluded conversations are invisible to the model (core/privacy.ts): every tool and resource, driven with random
 * arguments that know the hidden conversations' names, ids and hashes, never shows their name, message hashes,
 * text, links, attachments or senders; an excluded conversation answers exactly like one that does not exist; counts
 * leave it out; the person's context still sees it; a new exclusion applies on the next call, without a restart.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { buildExcludedArchive, EXCLUDE_ENTRIES, type ExcludedArchive } from '../fixtures/index';
import { describeCall, toolCall } from '../stress/fuzz/arbitraries';
import { vocabularyOf } from '../stress/fuzz/vocabulary';
import { connectInMemory, startRuntime, type Connected } from '../stress/harness/server';
import { fuzzSeed, scale } from '../stress/harness/mode';
import { parseExclusions, workerOpener, type Runtime } from '../../src/core/index';

const WORKER_SCRIPT = path.join(__dirname, '../../src/engine/host.ts');

describe('parseExclusions', () => {
  it('an exact name in any source; source:name also names exactly that literal conversation; blanks and duplicates dropped', () => {
    assert.deepEqual(
      parseExclusions(['Family', '', '  ', 'signal:Work: Team', 'Family', 'Not a:prefix', 42 as unknown as string]),
      [
        { name: 'Family' },
        { name: 'signal:Work: Team' },
        { name: 'Work: Team', source: 'signal' },
        { name: 'Not a:prefix' },
      ],
    );
    assert.deepEqual(parseExclusions(undefined), []);
  });
});

const textOf = (v: unknown) => JSON.stringify(v);
/** `echoed`: what the caller itself sent (a tool may repeat the caller's own words; that is not a leak). */
function assertNoSecret(out: unknown, secrets: readonly string[], label: string, echoed: unknown = undefined) {
  const text = textOf(out);
  const sent = echoed === undefined ? '' : textOf(echoed).toLowerCase();
  for (const s of secrets)
    if (!sent.includes(s.toLowerCase()))
      assert.ok(!text.includes(s), `${label}: output contains the hidden ${JSON.stringify(s)}: ${text.slice(0, 600)}`);
}

for (const engine of ['thread', 'worker'] as const)
  describe(`excluded conversations (${engine} engine)`, { timeout: 240_000 }, () => {
    let dir: string;
    let fx: ExcludedArchive;
    let runtime: Runtime;
    let conn: Connected;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-privacy-'));
      fx = buildExcludedArchive(dir);
      runtime = startRuntime({
        archivePath: fx.path,
        embedModel: 'test-embed',
        embedDim: 8,
        extra: {
          privacy: { excludeConversations: EXCLUDE_ENTRIES },
          ...(engine === 'worker' ? { openArchive: workerOpener({ workerScript: WORKER_SCRIPT }) } : {}),
        },
      });
      conn = await connectInMemory(runtime, 'privacy');
    });

    after(async () => {
      await conn?.close();
      await runtime?.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('no tool output ever contains a hidden name, hash, text, link, attachment or sender (property, random arguments)', async () => {
      const vocab = vocabularyOf(fx.desc);
      // Bias the generators towards the hidden conversations: their names, words and hashes are what a model would try.
      vocab.words = ['zqsecretalpha', 'ovsecretdelta', 'picnic', 'saturday', 'lemonade', ...vocab.words];
      vocab.senders = ['Xavier Hiddensender', ...vocab.senders];
      vocab.domains = ['zq-hidden.example', 'ov-hidden.example', 'shared.example', ...vocab.domains];
      let calls = 0;
      await fc.assert(
        fc.asyncProperty(toolCall(vocab), async (call) => {
          const res = await conn.client.callTool({ name: call.name, arguments: call.arguments });
          calls++;
          assertNoSecret(res, fx.secrets, describeCall(call), call.arguments);
        }),
        { numRuns: scale(engine === 'thread' ? 600 : 200, 5_000), seed: fuzzSeed() },
      );
      assert.ok(calls > 0);
    });

    it('no resource read (random ids and hashes, hidden ones included) ever shows a hidden conversation', async () => {
      const ids = fx.desc.messages.map((m) => m.id);
      const hashes = fx.desc.messages.map((m) => m.hash);
      const convs = fx.desc.conversations.map((c) => c.id);
      const uri = fc.oneof(
        fc.constantFrom(...convs, 0, 9_999).map((id) => `msgbrowse://conversation/${id}`),
        fc.constantFrom(...ids, 0, 99_999).map((id) => `msgbrowse://message/${id}`),
        fc
          .tuple(fc.constantFrom(...ids), fc.constantFrom(...hashes), fc.integer({ min: 4, max: 64 }))
          .map(([id, h, n]) => `msgbrowse://message/${id}?h=${h.slice(0, n)}`),
        fc.constantFrom(...hashes).map((h) => `msgbrowse://message/${h}`),
      );
      await fc.assert(
        fc.asyncProperty(uri, async (u) => {
          const out = await conn.client.readResource({ uri: u }).catch((e: Error) => ({ error: e.message }));
          assertNoSecret(out, fx.secrets, u, u);
        }),
        { numRuns: scale(300, 3_000), seed: fuzzSeed() },
      );
    });

    it('every tool is exercised on the shared words and still answers with the kept conversations', async () => {
      const calls: [string, Record<string, unknown>][] = [
        ['list_conversations', {}],
        ['list_conversations', { name_contains: 'Vault' }],
        ['search_messages', { query: 'picnic saturday' }],
        ['search_messages', { query: 'zqsecretalpha' }],
        ['search_messages', { query: 'picnic', sender: 'Alice' }],
        ['semantic_search', { query: 'picnic plan zqsecretalpha at the quarry' }],
        ['list_media', {}],
        ['list_links', {}],
        ['list_links', { domain: 'zq-hidden.example' }],
      ];
      for (const [name, args] of calls) {
        const res = await conn.client.callTool({ name, arguments: args });
        assertNoSecret(res, fx.secrets, `${name} ${JSON.stringify(args)}`, args);
      }
      const list = await conn.client.callTool({ name: 'list_conversations', arguments: {} });
      const names = (list.structuredContent as { conversations: { name: string; source: string }[] }).conversations.map(
        (c) => `${c.source}:${c.name}`,
      );
      assert.deepEqual(names.sort(), ['imessage:Orchid Vault', 'signal:Garden Club', 'whatsapp:Book Group']);
      const search = await conn.client.callTool({ name: 'search_messages', arguments: { query: 'picnic' } });
      assert.ok(textOf(search).includes('Garden Club'), 'kept conversations still answer');
    });

    it('a hidden conversation or message answers exactly like one that does not exist (same error text)', async () => {
      const unknownId = 9_999;
      const normalise = (v: unknown, id: number | string) =>
        textOf(v).replace(new RegExp(`(?<![\\d-])${id}(?!\\d)`, 'g'), '<ID>');
      for (const id of fx.hiddenIds) {
        for (const [tool, args] of [
          ['get_conversation', (x: number) => ({ conversation_id: x })],
          ['list_media', (x: number) => ({ conversation_id: x })],
          ['list_links', (x: number) => ({ conversation_id: x })],
          ['search_messages', (x: number) => ({ query: 'picnic', conversation_id: x })],
        ] as const) {
          const hidden = await conn.client.callTool({ name: tool, arguments: args(id) });
          const missing = await conn.client.callTool({ name: tool, arguments: args(unknownId) });
          assert.equal(normalise(hidden, id), normalise(missing, unknownId), `${tool} on hidden conversation ${id}`);
        }
        const byName = await conn.client.callTool({
          name: 'get_conversation',
          arguments: { conversation: 'Zephyr Quarry' },
        });
        const noName = await conn.client.callTool({
          name: 'get_conversation',
          arguments: { conversation: 'Zephyr Quarrz' },
        });
        assert.equal(byName.isError, true);
        assert.equal(normalise(byName, 'Zephyr Quarry'), normalise(noName, 'Zephyr Quarrz'));
      }
      const hiddenMsgs = fx.desc.messages.filter((m) => fx.hiddenIds.includes(m.conversationId));
      for (const m of hiddenMsgs) {
        const hidden = await conn.client.callTool({ name: 'get_context', arguments: { message_id: m.id } });
        const missing = await conn.client.callTool({ name: 'get_context', arguments: { message_id: 99_999 } });
        assert.equal(normalise(hidden, m.id), normalise(missing, 99_999));
        await assert.rejects(conn.client.readResource({ uri: `msgbrowse://message/${m.hash}` }), (e: Error) => {
          assertNoSecret(e.message.replace(m.hash, '<HASH>'), fx.secrets, 'message resource by hash');
          assert.match(e.message, /no message with hash/);
          return true;
        });
        await assert.rejects(conn.client.readResource({ uri: `msgbrowse://message/${m.id}` }), (e: Error) => {
          assertNoSecret(e.message, fx.secrets, 'message resource by id');
          return true;
        });
      }
    });

    it('resources: the list and reads by id know only the kept conversations', async () => {
      const listed = await conn.client.listResources();
      assertNoSecret(listed, fx.secrets, 'resources/list');
      assert.equal(listed.resources.filter((r) => r.uri.startsWith('msgbrowse://')).length, 3);
      for (const id of fx.hiddenIds) {
        const errs: string[] = [];
        for (const x of [id, 9_999]) {
          await conn.client.readResource({ uri: `msgbrowse://conversation/${x}` }).then(
            () => assert.fail('read a hidden conversation'),
            (e: Error) => errs.push(e.message.replace(new RegExp(`(?<![\\d-])${x}(?!\\d)`, 'g'), '<ID>')),
          );
        }
        assert.equal(errs[0], errs[1]);
      }
    });

    it('counts and receipts leave the hidden conversations out; the person’s context sees everything', async () => {
      const model = await runtime.context.archive();
      const personal = await runtime.personal.archive();
      const keptMessages = fx.desc.messages.filter((m) => !fx.hiddenIds.includes(m.conversationId)).length;
      const s = await model.summary();
      assert.equal(s.messages, keptMessages);
      assert.equal(s.conversations, 3);
      assert.equal(s.embeddingModels[0]?.count, keptMessages);
      assert.equal((await model.scopeCounts({})).messages, keptMessages);
      assert.equal((await model.scopeCounts({}, 'test-embed')).withVectors, keptMessages);
      assert.equal((await model.scopeCounts({ sender: 'Alice' })).messages, 1 + 1);
      assert.equal((await model.resolveSender('Xavier Hiddensender')).kind, 'not_found');
      assertNoSecret(await model.resolveSender('Xavier Hiddensendr'), fx.secrets, 'sender suggestions');
      assert.equal((await personal.summary()).messages, fx.desc.messages.length);
      assert.equal((await personal.listConversations()).length, 5);
      // The keyword limit counts only what may be shown.
      assert.equal((await model.searchKeyword({ query: 'picnic', limit: 2 })).length, 2);
      const receipt = await conn.client.callTool({ name: 'search_messages', arguments: { query: 'picnic' } });
      assertNoSecret(receipt, fx.secrets, 'receipt');
    });

    it('a new exclusion applies on the next call, without a restart; clearing it shows the conversation again', async () => {
      const find = async (q: string) =>
        textOf(await conn.client.callTool({ name: 'search_messages', arguments: { query: q } }));
      assert.ok((await find('weather')).includes('Garden Club'));
      await runtime.reload({
        ...runtime.settings,
        privacy: { excludeConversations: [...EXCLUDE_ENTRIES, 'signal:Garden Club'] },
      });
      assert.ok(!(await find('weather')).includes('Garden Club'));
      await runtime.reload({ ...runtime.settings, privacy: { excludeConversations: [] } });
      assert.ok((await find('zqsecretalpha')).includes('Zephyr Quarry'));
      await runtime.reload({ ...runtime.settings, privacy: { excludeConversations: EXCLUDE_ENTRIES } });
      assert.ok(!(await find('zqsecretalpha')).includes('Zephyr Quarry'));
    });
  });
