/**
 * The whole MCP surface beyond tools, through the SDK client against the production runtime: prompts, completions,
 * live resources (a real writer process appends to the archive while a client is subscribed), progress,
 * elicitation, icons, and capabilities advertised exactly as implemented.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { Runtime } from '../../src/core/index';
import { createMcpServer, type McpTrafficEvent } from '../../src/mcp/index';
import { PROMPTS } from '../../src/mcp/prompts';
import { ArchiveWriter, buildCuratedArchive, openWritable, type CuratedArchive } from '../fixtures/index';
import { startRuntime } from '../stress/harness/server';
import { tempDir } from './harness';

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();

let dir: string;
let desc: CuratedArchive;
let runtime: Runtime;

async function connect(
  opts: {
    elicit?: (req: { message: string; requestedSchema: unknown }) => {
      action: 'accept' | 'decline' | 'cancel';
      content?: Record<string, string | number | boolean | string[]>;
    };
  } = {},
) {
  const traffic: McpTrafficEvent[] = [];
  const server = createMcpServer(runtime.context, { observe: (e) => void traffic.push(e) });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client(
    { name: 'surface', version: '1' },
    { capabilities: opts.elicit ? { elicitation: { form: {} } } : {} },
  );
  if (opts.elicit) {
    const answer = opts.elicit;
    client.setRequestHandler('elicitation/create', async (req) =>
      answer(req.params as { message: string; requestedSchema: unknown }),
    );
  }
  const updated: string[] = [];
  let listChanged = 0;
  client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
  client.setNotificationHandler('notifications/resources/list_changed', () => void listChanged++);
  await client.connect(ct);
  return {
    client,
    traffic,
    updated,
    listChanged: () => listChanged,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function waitFor<T>(what: string, f: () => T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

before(() => {
  dir = tempDir('surface');
  desc = buildCuratedArchive(dir);
  runtime = startRuntime({ archivePath: desc.path, extra: { watchIntervalMs: 100 } });
});

after(async () => {
  await runtime?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('capabilities and icons', () => {
  it('initialize advertises exactly what is implemented', async () => {
    const c = await connect();
    try {
      assert.deepEqual(c.client.getServerCapabilities(), {
        tools: { listChanged: false },
        prompts: { listChanged: false },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        logging: {},
      });
      const info = c.client.getServerVersion() as {
        name: string;
        title?: string;
        description?: string;
        icons?: { src: string; theme?: string }[];
      };
      assert.equal(info.name, 'msgbrowse');
      assert.ok(info.title && info.description && info.description.length > 40);
      assert.deepEqual(info.icons?.map((i) => i.theme).sort(), ['dark', 'light']);
    } finally {
      await c.close();
    }
  });

  it('every tool, prompt and resource template carries PNG data: icons for light and dark themes', async () => {
    const c = await connect();
    try {
      const lists = [
        ...(await c.client.listTools()).tools,
        ...(await c.client.listPrompts()).prompts,
        ...(await c.client.listResourceTemplates()).resourceTemplates,
      ] as { name: string; icons?: { src: string; mimeType?: string; theme?: string }[] }[];
      assert.ok(lists.length >= 11 + PROMPTS.length + 2);
      for (const item of lists) {
        assert.deepEqual(item.icons?.map((i) => i.theme).sort(), ['dark', 'light'], item.name);
        for (const i of item.icons ?? []) {
          assert.equal(i.mimeType, 'image/png', item.name);
          assert.match(i.src, /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/, item.name);
          assert.equal(Buffer.from(i.src.split(',')[1], 'base64').subarray(1, 4).toString('latin1'), 'PNG', item.name);
        }
      }
      // Not each listed conversation: the listing would carry two PNGs per conversation.
      const { resources } = await c.client.listResources();
      assert.ok(resources.length > 0);
      assert.ok(resources.every((r) => r.icons === undefined));
    } finally {
      await c.close();
    }
  });
});

describe('prompts', () => {
  it('lists the prompts with titles, descriptions for people and their arguments', async () => {
    const c = await connect();
    try {
      const { prompts } = await c.client.listPrompts();
      assert.deepEqual(
        prompts.map((p) => p.name),
        ['summarize_conversation', 'what_did_they_say', 'find_discussion', 'on_this_day', 'prepare_meeting'],
      );
      for (const p of prompts) {
        assert.ok(p.title && p.description && p.description.length > 30, p.name);
        for (const a of p.arguments ?? []) assert.ok(a.description, `${p.name}.${a.name}`);
      }
      const summarize = prompts.find((p) => p.name === 'summarize_conversation')!;
      assert.deepEqual(
        summarize.arguments?.map((a) => [a.name, a.required ?? false]),
        [
          ['conversation', true],
          ['start', false],
          ['end', false],
        ],
      );
    } finally {
      await c.close();
    }
  });

  it('each prompt names the tools to call and asks for a citation of every message used', async () => {
    const c = await connect();
    const harper = desc.conversations.find((x) => x.name === 'Harper')!;
    try {
      const cases: [string, Record<string, string>, RegExp[]][] = [
        [
          'summarize_conversation',
          { conversation: 'harper', start: '2022-01-01' },
          [
            /get_conversation \{"conversation_id":\d+,"start":"2022-01-01","limit":500\}/,
            new RegExp(`conversation_id ${harper.id}`),
            /next_cursor/,
          ],
        ],
        [
          'what_did_they_say',
          { person: 'Harper', topic: 'the lease' },
          [/search_messages \{"query":"the lease","sender":"Harper"/, /get_context/],
        ],
        ['find_discussion', { topic: 'cabin' }, [/search_messages/, /semantic_search/]],
        ['on_this_day', { date: '2025-03-01' }, [/on_this_day \{"date":"2025-03-01"/, /get_journal_day/]],
        ['prepare_meeting', { person: 'Harper' }, [/search_contacts/, /get_contact/, /"newest"/]],
      ];
      for (const [name, args, wants] of cases) {
        const r = await c.client.getPrompt({ name, arguments: args });
        const msg = r.messages[0];
        assert.equal(msg.role, 'user');
        const text = msg.content.type === 'text' ? msg.content.text : '';
        for (const w of wants) assert.match(text, w, name);
        assert.match(text, /Cite every message you use as a markdown link/, name);
        assert.match(text, /untrusted data/, name);
      }
    } finally {
      await c.close();
    }
  });

  it('a conversation argument resolves like the tools (accents, "name (source)"), or says what exists', async () => {
    const c = await connect();
    try {
      const mj = desc.conversations.find((x) => x.name === 'MJ' && x.source === 'whatsapp')!;
      const r = await c.client.getPrompt({
        name: 'summarize_conversation',
        arguments: { conversation: 'MJ (whatsapp)' },
      });
      assert.match(
        r.messages[0].content.type === 'text' ? r.messages[0].content.text : '',
        new RegExp(`conversation_id ${mj.id}`),
      );
      await assert.rejects(
        c.client.getPrompt({ name: 'summarize_conversation', arguments: { conversation: 'MJ' } }),
        /MJ \(imessage\).*MJ \(whatsapp\)|MJ \(whatsapp\).*MJ \(imessage\)/,
      );
      await assert.rejects(
        c.client.getPrompt({ name: 'summarize_conversation', arguments: { conversation: 'Harpr' } }),
        /closest: Harper/,
      );
      await assert.rejects(
        c.client.getPrompt({
          name: 'summarize_conversation',
          arguments: { conversation: 'Harper', start: '2022-02-30' },
        }),
        /not a real calendar date/,
      );
    } finally {
      await c.close();
    }
  });
});

describe('completion/complete', () => {
  it('conversation names: prefix matches first, then substring, ignoring case and accents; duplicates carry their source', async () => {
    const c = await connect();
    try {
      const names = (typed: string) =>
        c.client
          .complete({
            ref: { type: 'ref/prompt', name: 'summarize_conversation' },
            argument: { name: 'conversation', value: typed },
          })
          .then((r) => r.completion);
      const m = await names('m');
      const labels = desc.conversations.map((x) =>
        desc.conversations.filter((y) => y.name === x.name).length > 1 ? `${x.name} (${x.source})` : x.name,
      );
      const prefix = labels.filter((l) => fold(l).startsWith('m'));
      const inside = labels.filter((l) => !fold(l).startsWith('m') && fold(l).includes('m'));
      assert.deepEqual(new Set(m.values.slice(0, prefix.length)), new Set(prefix), 'prefix matches come first');
      assert.deepEqual(new Set(m.values.slice(prefix.length)), new Set(inside));
      assert.ok(m.values.includes('MJ (imessage)') && m.values.includes('MJ (whatsapp)'));
      assert.equal(m.total, prefix.length + inside.length);
      assert.equal(m.hasMore, false);
      assert.deepEqual((await names('ZOE')).values, ['Zoë']);
      assert.deepEqual((await names('qqq-nothing')).values, []);
    } finally {
      await c.close();
    }
  });

  it('senders, people, sources; message ids from typed digits with an exact total and hasMore past 100', async () => {
    const c = await connect();
    try {
      const senders = await c.client.complete({
        ref: { type: 'ref/prompt', name: 'what_did_they_say' },
        argument: { name: 'person', value: 'har' },
      });
      assert.equal(senders.completion.values[0], 'Harper');
      const people = await c.client.complete({
        ref: { type: 'ref/prompt', name: 'prepare_meeting' },
        argument: { name: 'person', value: 'zo' },
      });
      assert.deepEqual(people.completion.values, ['Zoë']);
      const topic = await c.client.complete({
        ref: { type: 'ref/prompt', name: 'what_did_they_say' },
        argument: { name: 'topic', value: 'a' },
      });
      assert.deepEqual(topic.completion.values, [], 'a free-text argument completes nothing');
      const ids = desc.messages
        .map((x) => x.id)
        .filter((id) => String(id).startsWith('1'))
        .sort((a, b) => String(a).length - String(b).length || a - b);
      assert.ok(ids.length > 100, 'the curated archive has over 100 ids starting with 1');
      const msg = await c.client.complete({
        ref: { type: 'ref/resource', uri: 'msgbrowse://message/{id}{?h}' },
        argument: { name: 'id', value: '1' },
      });
      assert.deepEqual(msg.completion.values, ids.slice(0, 100).map(String));
      assert.equal(msg.completion.total, ids.length);
      assert.equal(msg.completion.hasMore, true);
      const conv = await c.client.complete({
        ref: { type: 'ref/resource', uri: 'msgbrowse://conversation/{id}' },
        argument: { name: 'id', value: '' },
      });
      assert.equal(conv.completion.values.length, desc.conversations.length);
      await assert.rejects(
        c.client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }),
        /no prompt named "nope"/,
      );
    } finally {
      await c.close();
    }
  });
});

describe('refused requests', () => {
  /** The error a client sees: its code, and the sentence said once (not wrapped in a second copy of itself). */
  const refusal = (code: number, sentence: RegExp) => (e: unknown) => {
    const err = e as { code?: number; message?: string };
    assert.equal(err.code, code);
    assert.equal((err.message ?? '').match(new RegExp(sentence.source, 'g'))?.length, 1, err.message);
    assert.doesNotMatch(err.message ?? '', /internal error|please report/);
    return true;
  };

  it('a resource, a prompt and a completion say what was wrong once, with its JSON-RPC code', async () => {
    const c = await connect();
    try {
      await assert.rejects(
        c.client.readResource({ uri: `msgbrowse://message/${'0'.repeat(64)}` }),
        // Resource not found: the SDK (v2) answers -32602 in both protocol eras.
        refusal(-32602, /no message with hash 0{64}/),
      );
      await assert.rejects(
        c.client.readResource({ uri: 'msgbrowse://conversation/999999' }),
        refusal(-32602, /conversation 999999 not found/),
      );
      await assert.rejects(
        c.client.readResource({ uri: 'msgbrowse://message/abc' }),
        refusal(-32602, /must be a message_id or a 64-hex hash/),
      );
      await assert.rejects(
        c.client.getPrompt({ name: 'summarize_conversation', arguments: { conversation: 'Harpr' } }),
        refusal(-32602, /closest: Harper/),
      );
      await assert.rejects(
        c.client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }),
        refusal(-32602, /no prompt named "nope"/),
      );
    } finally {
      await c.close();
    }
  });

  it('summarize_conversation takes its dates like the tools: spaces around them ignored, a start after the end refused', async () => {
    const c = await connect();
    try {
      const r = await c.client.getPrompt({
        name: 'summarize_conversation',
        arguments: { conversation: 'Harper', start: ' 2022-01-01', end: '2022-12-31 ' },
      });
      assert.match(
        r.messages[0].content.type === 'text' ? r.messages[0].content.text : '',
        /from 2022-01-01 to 2022-12-31/,
      );
      await assert.rejects(
        c.client.getPrompt({
          name: 'summarize_conversation',
          arguments: { conversation: 'Harper', start: '2023-05-01', end: '2023-01-01' },
        }),
        refusal(-32602, /start 2023-05-01 is after end 2023-01-01/),
      );
    } finally {
      await c.close();
    }
  });
});

describe('live resources', () => {
  it('a subscribed conversation is notified after msgbrowse writes to it; others and unsubscribed ones are not; list_changed after a new conversation', async () => {
    const c = await connect();
    const harper = desc.conversations.find((x) => x.name === 'Harper')!;
    const zoe = desc.conversations.find((x) => x.name === 'Zoë')!;
    const lease = desc.marks.leaseAgreement;
    const convUri = `msgbrowse://conversation/${harper.id}`;
    const zoeUri = `msgbrowse://conversation/${zoe.id}`;
    const msgUri = `msgbrowse://message/${lease.id}?h=${lease.hash.slice(0, 16)}`;
    try {
      await c.client.listResources();
      await c.client.subscribeResource({ uri: convUri });
      await c.client.subscribeResource({ uri: zoeUri });
      await c.client.subscribeResource({ uri: msgUri });
      await c.client.unsubscribeResource({ uri: zoeUri });
      // Accepted (MCP leaves it open): a conversation not imported yet, and a URI that is not ours (never updated).
      await c.client.subscribeResource({ uri: 'msgbrowse://conversation/987654' });
      await c.client.subscribeResource({ uri: 'https://example.com/x' });
      // msgbrowse appends to Harper (a live import commits while we watch).
      const db = openWritable(desc.path);
      try {
        new ArchiveWriter(db).appendMessages(harper.id, 'signal', 'Harper', [
          { ts: '2030-01-01 10:00:00', sender: 'Harper', body: 'a brand new message' },
        ]);
      } finally {
        db.close();
      }
      await waitFor(
        'resources/updated for the conversation and the message',
        () => c.updated.includes(convUri) && c.updated.includes(msgUri),
      );
      await new Promise((r) => setTimeout(r, 400));
      assert.ok(!c.updated.includes(zoeUri), 'an unsubscribed conversation is not notified');
      assert.equal(c.listChanged(), 0, 'no conversation appeared: no list_changed');
      const db2 = openWritable(desc.path);
      try {
        new ArchiveWriter(db2).importConversation('signal', 'Brand New Friend', [
          { ts: '2030-01-02 10:00:00', sender: 'Brand New Friend', body: 'hello!' },
        ]);
      } finally {
        db2.close();
      }
      await waitFor('resources/list_changed after a new conversation', () => c.listChanged() > 0);
      const n = c.updated.length;
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(c.updated.length, n, 'a new conversation does not notify the subscribed ones');
      assert.ok(!c.updated.includes('https://example.com/x'));
      // The observer (the extension's test hooks) hears the same traffic.
      const seen = (d: string, m: string, subject?: string) =>
        c.traffic.some(
          (e) =>
            e.direction === d &&
            e.method === m &&
            (subject === undefined || e.subject === subject) &&
            e.client === 'surface',
        );
      assert.ok(
        seen('in', 'initialize') &&
          seen('in', 'resources/subscribe', convUri) &&
          seen('out', 'notifications/resources/updated', convUri) &&
          seen('out', 'notifications/resources/list_changed'),
      );
    } finally {
      await c.close();
    }
  });
});

describe('progress and elicitation', () => {
  it('on_this_day reports progress per earlier year when the client sends a progressToken', async () => {
    const c = await connect();
    try {
      const seen: { progress: number; total?: number }[] = [];
      await c.client.callTool(
        { name: 'on_this_day', arguments: { date: '2026-03-01' } },
        {
          onprogress: (p) => void seen.push(p),
        },
      );
      assert.ok(seen.length >= 3, `progress notifications: ${seen.length}`);
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress, 'progress increases');
      assert.equal(seen[seen.length - 1].progress, seen[seen.length - 1].total);
    } finally {
      await c.close();
    }
  });

  it('an ambiguous conversation name asks the person (titled single-select) when the client supports elicitation', async () => {
    const mjWa = desc.conversations.find((x) => x.name === 'MJ' && x.source === 'whatsapp')!;
    let asked: { message: string; requestedSchema: unknown } | undefined;
    const yes = await connect({
      elicit: (req) => {
        asked = req;
        return { action: 'accept', content: { conversation: String(mjWa.id) } };
      },
    });
    try {
      const r = await yes.client.callTool({ name: 'get_conversation', arguments: { name: 'MJ', limit: 2 } });
      assert.ok(!r.isError, JSON.stringify(r.content));
      assert.equal((r.structuredContent as { conversation_id: number }).conversation_id, mjWa.id);
      assert.match(asked!.message, /"MJ" is the name of 2 conversations/);
      const prop = (
        asked!.requestedSchema as { properties: { conversation: { oneOf: { const: string; title: string }[] } } }
      ).properties.conversation;
      assert.deepEqual(
        prop.oneOf.map((o) => o.const).sort(),
        desc.conversations
          .filter((x) => x.name === 'MJ')
          .map((x) => String(x.id))
          .sort(),
      );
      assert.ok(prop.oneOf.every((o) => /MJ — (imessage|whatsapp), \d+ messages/.test(o.title)));
    } finally {
      await yes.close();
    }
    const no = await connect({ elicit: () => ({ action: 'decline' }) });
    try {
      const r = await no.client.callTool({
        name: 'search_messages',
        arguments: { query: 'photo', conversation: 'MJ' },
      });
      assert.equal(r.isError, true);
      assert.match(JSON.stringify(r.content), /exists in several sources/);
    } finally {
      await no.close();
    }
    const plain = await connect();
    try {
      const r = await plain.client.callTool({ name: 'get_conversation', arguments: { name: 'MJ' } });
      assert.equal(r.isError, true, 'a client without elicitation keeps the error with candidates');
      assert.match(JSON.stringify(r.content), /pass source/);
    } finally {
      await plain.close();
    }
  });
});
