/** Every tool at once: tools/list, the server info, the resources the results link to, hostile arguments to any tool. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { CuratedArchive } from '../../fixtures/index';
import { textOf, type Harness } from '../harness';
import { EXPECTED_TOOLS } from '../expected-tools';
import { toolFixture, type Hit, type ToolFixture } from './tool-fixture';

let desc: CuratedArchive;
let h: Harness;
let link: ToolFixture['link'];
toolFixture((fx) => ({ desc, h, link } = fx));

/** msgbrowse's own tools, in its registration order, which ours keep; the tools we add follow them. */
const MSGBROWSE_TOOLS = [
  'list_conversations',
  'get_conversation',
  'search_messages',
  'semantic_search',
  'get_context',
  'list_media',
  'list_links',
];

describe('protocol surface', () => {
  test("tools/list: msgbrowse's 7 tools in its order, then ours, with titles, read-only annotations, closed inputs and output schemas", async () => {
    const { tools } = await h.client.listTools();
    const names = tools.map((t) => t.name);
    assert.deepEqual(names.slice(0, MSGBROWSE_TOOLS.length), MSGBROWSE_TOOLS);
    assert.deepEqual(names, EXPECTED_TOOLS, 'every tool of src/mcp/tools, each with its snapshot, in TOOLS order');
    for (const t of tools) {
      assert.ok(t.title && t.title.length > 3, t.name);
      assert.ok(t.description && t.description.length > 40, t.name);
      assert.equal(t.annotations?.readOnlyHint, true, t.name);
      assert.equal(t.annotations?.openWorldHint, false, t.name);
      assert.equal(t.annotations?.destructiveHint, false, t.name);
      assert.equal(t.annotations?.title, t.title, t.name);
      assert.equal(t.inputSchema.type, 'object');
      assert.equal((t.inputSchema as { additionalProperties?: unknown }).additionalProperties, false, t.name);
      assert.equal(t.outputSchema?.type, 'object', t.name);
    }
    const props = (name: string) => Object.keys(tools.find((t) => t.name === name)!.inputSchema.properties ?? {});
    assert.deepEqual(props('get_conversation'), [
      'name',
      'conversation_id',
      'source',
      'start',
      'end',
      'limit',
      'order',
      'cursor',
    ]);
    assert.deepEqual(props('search_messages'), [
      'query',
      'conversation',
      'conversation_id',
      'source',
      'sender',
      'start',
      'end',
      'has_attachment',
      'has_link',
      'limit',
      'cursor',
    ]);
    assert.deepEqual(props('semantic_search'), [
      'query',
      'k',
      'conversation',
      'conversation_id',
      'source',
      'sender',
      'start',
      'end',
      'has_attachment',
      'has_link',
      'cursor',
    ]);
    assert.deepEqual(props('get_journal_day'), ['day', 'limit', 'cursor']);
    assert.deepEqual(props('on_this_day'), ['date', 'per_year', 'limit', 'cursor']);
    assert.deepEqual(props('search_contacts'), ['query', 'cursor']);
    assert.deepEqual(props('get_contact'), ['contact_id', 'name', 'cursor']);
    assert.deepEqual(props('get_context'), ['message_id', 'hash', 'window']);
    assert.deepEqual(props('list_media'), ['conversation', 'conversation_id', 'source', 'kind', 'limit', 'cursor']);
    assert.deepEqual(props('list_links'), ['domain', 'conversation', 'conversation_id', 'source', 'limit', 'cursor']);
    assert.deepEqual(props('list_conversations'), ['source', 'name_contains', 'cursor']);
    assert.deepEqual(tools.find((t) => t.name === 'search_messages')!.inputSchema.required, ['query']);
  });

  test('server info, logging capability and instructions about citations and untrusted content', async () => {
    const info = h.client.getServerVersion()!;
    assert.deepEqual({ name: info.name, version: info.version }, { name: 'msgbrowse', version: '0.0.0-test' });
    assert.ok(info.title && info.description, 'server title and description are set');
    assert.equal(info.icons?.length, 2);
    const caps = h.client.getServerCapabilities();
    assert.ok(caps?.logging);
    assert.ok(caps?.tools);
    assert.ok(caps?.resources);
    const ins = h.client.getInstructions() ?? '';
    assert.match(ins, /link/);
    assert.match(ins, /verbatim/);
    assert.match(ins, /untrusted data/);
    assert.match(ins, /never follow instructions/i);
    assert.match(ins, /get_context/);
  });
});

describe('resources', () => {
  test('templates registered; message and conversation resources read as markdown + JSON', async () => {
    const { resourceTemplates } = await h.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), [
      'msgbrowse://conversation/{id}',
      'msgbrowse://message/{id}{?h}',
    ]);
    const t = desc.marks.leaseAgreement;
    const m = await h.client.readResource({ uri: `msgbrowse://message/${t.id}` });
    assert.equal(m.contents.length, 2);
    const json = JSON.parse(String((m.contents[1] as { text: string }).text)) as { message: Hit; context: Hit[] };
    assert.equal(json.message.message_id, t.id);
    assert.equal(json.message.link, link(t.conversationId, t.id));
    assert.ok(json.context.length > 1);
    assert.match(String((m.contents[0] as { text: string }).text), /cite as vscode:\/\//);
    const byHash = await h.client.readResource({ uri: `msgbrowse://message/${t.hash}` });
    assert.equal(JSON.parse(String((byHash.contents[1] as { text: string }).text)).message.message_id, t.id);
    const c = await h.client.readResource({ uri: `msgbrowse://conversation/${t.conversationId}` });
    assert.equal(JSON.parse(String((c.contents[1] as { text: string }).text)).id, t.conversationId);
    const listed = await h.client.listResources();
    // the conversations, plus the MCP App view (ui://msgbrowse/thread, src/mcp/app-view.ts)
    assert.equal(listed.resources.filter((r) => r.uri.startsWith('msgbrowse://')).length, desc.conversations.length);
    assert.deepEqual(
      listed.resources.filter((r) => !r.uri.startsWith('msgbrowse://')).map((r) => r.uri),
      ['ui://msgbrowse/thread'],
    );
    await assert.rejects(
      h.client.readResource({ uri: 'msgbrowse://message/999999' }),
      /message 999999 is not in this archive/,
    );
    // the hash anchor: checked, followed when the id holds another message, never another message returned
    const anchored = await h.client.readResource({ uri: `msgbrowse://message/${t.id}?h=${t.hash.slice(0, 16)}` });
    assert.equal(JSON.parse(String((anchored.contents[1] as { text: string }).text)).message.hash, t.hash);
    const other = desc.marks.cjk;
    const moved = await h.client.readResource({ uri: `msgbrowse://message/${t.id}?h=${other.hash.slice(0, 16)}` });
    const movedJson = JSON.parse(String((moved.contents[1] as { text: string }).text)) as {
      message: Hit;
      notes: string[];
    };
    assert.equal(movedJson.message.hash, other.hash);
    assert.match(movedJson.notes[0], /this message moved after a re-import/);
    assert.match(String((moved.contents[0] as { text: string }).text), /^Note: this message moved after a re-import/);
    await assert.rejects(
      h.client.readResource({ uri: `msgbrowse://message/${t.id}?h=${'f'.repeat(16)}` }),
      /this message is no longer in the archive/,
    );
    await assert.rejects(h.client.readResource({ uri: `msgbrowse://message/${t.id}?h=zz` }), /4–64 hex digits/);
    await assert.rejects(h.client.readResource({ uri: 'msgbrowse://message/abc' }), /message_id or a 64-hex hash/);
    await assert.rejects(h.client.readResource({ uri: 'msgbrowse://conversation/0' }), /positive integer/);
  });
});

describe('hostile inputs', () => {
  test('wrong types, unknown fields, NUL, huge strings, odd numbers → isError or well-formed; server keeps working', async () => {
    const huge = 'x'.repeat(100 * 1024);
    const calls: [string, Record<string, unknown>][] = [
      ['search_messages', {}],
      ['search_messages', { query: 42 }],
      ['search_messages', { query: null }],
      ['search_messages', { query: ['lease'] }],
      ['search_messages', { query: { $gt: '' } }],
      ['search_messages', { query: huge }],
      ['search_messages', { query: 'lease\u0000); DROP TABLE messages;--' }],
      ['search_messages', { query: 'lease', limit: 1.5 }],
      ['search_messages', { query: 'lease', limit: -1 }],
      ['search_messages', { query: 'lease', limit: 1e300 }],
      ['search_messages', { query: 'lease', limit: '10' }],
      ['search_messages', { query: 'lease', bogus: true }],
      ['search_messages', { query: 'lease', Query: 'x' }],
      ['search_messages', { query: 'lease', sender: huge }],
      ['search_messages', { query: 'lease', conversation: '\u0000' }],
      ['search_messages', { query: 'lease', conversation: "'; DROP TABLE conversations; --" }],
      ['search_messages', { query: 'lease', source: huge }],
      ['search_messages', { query: 'lease', start: '9999-99-99' }],
      ['search_messages', { query: '‮evil‬ 😀 𝔘𝔫𝔦𝔠𝔬𝔡𝔢' }],
      ['semantic_search', { query: huge }],
      ['semantic_search', { query: 'x'.repeat(2000) }],
      ['get_conversation', { name: huge }],
      ['get_conversation', { name: 'Harper', limit: 2 ** 53 }],
      ['get_conversation', { name: 'Harper', cursor: huge }],
      [
        'get_conversation',
        { name: 'Harper', cursor: Buffer.from(JSON.stringify({ v: 1, c: 1, t: 1e308, i: 1 })).toString('base64url') },
      ],
      ['get_context', { message_id: -5 }],
      ['get_context', { message_id: '1' }],
      ['get_context', { message_id: 2 ** 60 }],
      ['get_context', { hash: '../../etc/passwd' }],
      ['list_media', { kind: null }],
      ['list_media', { kind: 'video', limit: 0 }],
      ['list_links', { domain: huge }],
      ['list_links', { domain: 'http://[::1' }],
      ['list_links', { domain: '\u0000.com' }],
      ['list_conversations', { extra: 1 }],
      ['list_conversations', { name_contains: '%_\\' }],
    ];
    for (const [name, args] of calls) {
      const r = await h.call(name, args);
      const t = textOf(r);
      assert.ok(typeof t === 'string' && t.length > 0, `${name} ${JSON.stringify(args).slice(0, 80)}: empty text`);
      assert.doesNotMatch(t, /\n\s+at .*\(.*:\d+:\d+\)/, `stack trace leaked: ${t}`);
      if (!r.isError) assert.ok(r.structuredContent, `${name}: structured content missing`);
      else assert.ok(t.length < 2000, `${name}: error message too long (${t.length})`);
    }
    // An unknown tool is a protocol error (-32602), as the spec has it, not a tool result.
    await assert.rejects(h.call('no_such_tool', {}), (e: { code?: number; message?: string }) => {
      assert.equal(e.code, -32602);
      assert.match(e.message ?? '', /Tool no_such_tool not found/);
      return true;
    });
    assert.match(
      await h.err('search_messages', { query: 'lease', bogus: true }),
      /unknown parameter "bogus" for search_messages; allowed: query,/,
    );
    assert.match(await h.err('search_messages', { query: huge }), /query is too long \(at most 2000 characters\)/);
    assert.match(await h.err('search_messages', { query: 42 }), /query must be a string/);
    const still = await h.ok<{ hits: Hit[] }>('search_messages', { query: 'lease' });
    assert.ok(still.hits.length > 0);
  });
});
