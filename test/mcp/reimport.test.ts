/**
 * Hash-anchored citations across a msgbrowse re-import: a server over the real runtime is running while the
 * conversation is re-imported the way msgbrowse does it (test/fixtures/reimport.ts: ids shifted and reused). Every
 * citation obtained before — every `link` and every message `resource_link` — then resolves to the message with the
 * same hash, or says the message is gone; resources/read never returns another message.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { createMcpServer } from '../../src/mcp';
import { createRuntime, type Runtime } from '../../src/core';
import { resolveCitation } from '../../src/core/citation-resolve';
import { buildReimportArchive, reimportConversation, type ReimportFixture, type Reimported } from '../fixtures/index';
import { CITATION, tempDir, textOf } from './harness';

let dir: string;
let fx: ReimportFixture;
let runtime: Runtime;
let client: Client;
let closeServer: () => Promise<void>;

const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
async function ok<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const r = await call(name, args);
  if (r.isError) throw new Error(`${name} failed: ${textOf(r)}`);
  return r.structuredContent as T;
}

before(async () => {
  dir = tempDir('mcp-reimport');
  fx = buildReimportArchive(path.join(dir, 'archive'));
  runtime = createRuntime({
    archivePath: fx.path,
    embed: { baseUrl: '', model: '' },
    citation: CITATION,
    cacheDir: path.join(dir, 'cache'),
    version: 'reimport',
  });
  const server = createMcpServer(runtime.context);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  client = new Client({ name: 'reimport', version: '1' });
  await client.connect(a);
  closeServer = async () => {
    await client.close();
    await server.close();
  };
});

after(async () => {
  await closeServer?.();
  await runtime?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

const LINK_RE = /^vscode:\/\/msgbrowse\.msgbrowse-vscode\/c\/(\d+)\/at\/(\d+)\?h=([0-9a-f]{16})$/;
const RESOURCE_RE = /^msgbrowse:\/\/message\/(\d+)\?h=([0-9a-f]{16})$/;

/** Every message citation link anywhere in a structured result. */
function linksIn(v: unknown, out: Set<string>): void {
  if (Array.isArray(v)) for (const x of v) linksIn(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'link' && typeof x === 'string' && x.includes('/at/')) out.add(x);
      else linksIn(x, out);
    }
  }
}

interface Collected {
  links: Set<string>;
  resources: Set<string>;
}

async function collectCitations(): Promise<Collected> {
  const c = fx.conversation.id;
  const calls: [string, Record<string, unknown>][] = [
    ['get_conversation', { conversation_id: c }],
    ['search_messages', { query: 'cabin', limit: 50 }],
    ['list_media', { conversation_id: c }],
    ['list_links', {}],
    ...fx.before.map((m): [string, Record<string, unknown>] => ['get_context', { message_id: m.id, window: 1 }]),
  ];
  const links = new Set<string>();
  const resources = new Set<string>();
  for (const [name, args] of calls) {
    const r = await call(name, args);
    assert.ok(!r.isError, `${name}: ${textOf(r)}`);
    linksIn(r.structuredContent, links);
    for (const item of r.content)
      if (item.type === 'resource_link' && item.uri.startsWith('msgbrowse://message/')) resources.add(item.uri);
  }
  return { links, resources };
}

let cited: Collected;
let re: Reimported;

test('before the re-import: every link and message resource URI carries the hash of the message it names', async () => {
  cited = await collectCitations();
  const byId = new Map([...fx.before, ...fx.untouched].map((m) => [m.id, m]));
  assert.ok(cited.links.size >= fx.before.length + fx.untouched.length, `links: ${cited.links.size}`);
  assert.ok(cited.resources.size >= fx.before.length, `resources: ${cited.resources.size}`);
  for (const l of cited.links) {
    const m = LINK_RE.exec(l);
    assert.ok(m, `link format: ${l}`);
    const msg = byId.get(Number(m[2]));
    assert.ok(msg && msg.conversationId === Number(m[1]) && msg.hash.startsWith(m[3]), l);
  }
  for (const u of cited.resources) {
    const m = RESOURCE_RE.exec(u);
    assert.ok(m, `resource URI format: ${u}`);
    assert.ok(byId.get(Number(m[1]))?.hash.startsWith(m[2]), u);
  }
  // list_media and list_links items are cited too (media of the trip, links of both conversations).
  const media = await ok<{ media: { link: string; message_id: number }[] }>('list_media', {
    conversation_id: fx.conversation.id,
  });
  assert.equal(media.media.length, 2);
  for (const x of media.media) assert.ok(x.link.endsWith(`?h=${byId.get(x.message_id)!.hash.slice(0, 16)}`));
});

test('re-imported while the server runs: ids shifted and reused (every old id of the conversation names another message or stays)', async () => {
  re = reimportConversation(fx);
  const oldIds = fx.before.map((m) => m.id);
  assert.deepEqual(
    re.after.map((m) => m.id),
    oldIds,
    'SQLite reused the deleted ids',
  );
  assert.equal(re.inserted.id, oldIds[0]);
  // The server sees the new content (the runtime's holder notices the change on the next calls).
  const page = await waitForContent();
  assert.equal(page.messages[0].hash, re.inserted.hash);
});

async function waitForContent(): Promise<{ messages: { message_id: number; hash: string }[] }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const page = await ok<{ messages: { message_id: number; hash: string }[] }>('get_conversation', {
      conversation_id: fx.conversation.id,
    });
    if (page.messages.some((m) => m.hash === re.inserted.hash)) return page;
    if (Date.now() > deadline) throw new Error('the server never saw the re-import');
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('after the re-import: every link resolves to the same hash or says it is gone (URI handler path, get_context)', async () => {
  const archive = await runtime.context.archive();
  const counts = { exact: 0, moved: 0, gone: 0 };
  for (const l of cited.links) {
    const [, conv, id, h] = LINK_RE.exec(l)!;
    const ref = { conversationId: Number(conv), messageId: Number(id), hash: h };
    const r = await resolveCitation(archive, ref);
    counts[r.status]++;
    if (r.status === 'gone') {
      assert.ok(re.dropped.hash.startsWith(h), `only the dropped message is gone: ${l} — ${r.note}`);
      assert.match(r.note, /^this message is no longer in the archive; it was message \d+ in conversation \d+/);
      assert.match(r.note, /that id now holds another message/);
    } else {
      assert.ok(r.message.hash.startsWith(h), `${l} resolved to another message`);
      if (r.status === 'moved') assert.match(r.note, /^this message moved after a re-import/);
    }
    // get_context with the citation's id and hash agrees, and never centres on another message.
    const res = await call('get_context', { message_id: ref.messageId, hash: h, window: 1 });
    if (r.status === 'gone') {
      assert.equal(res.isError, true);
      assert.match(textOf(res), /this message is no longer in the archive/);
    } else {
      assert.ok(!res.isError, textOf(res));
      const s = res.structuredContent as { message_id: number; hash: string; notes?: string[] };
      assert.ok(s.hash.startsWith(h));
      assert.equal(s.message_id, r.message.id);
      assert.equal(
        r.status === 'moved',
        (s.notes ?? []).some((n) => /moved after a re-import/.test(n)),
        JSON.stringify(s.notes),
      );
    }
  }
  // A: 4→5 and B: 5→6 moved; C gone; D, E, F and the untouched conversation exact.
  assert.ok(counts.moved >= 2 && counts.gone >= 1 && counts.exact >= 3, JSON.stringify(counts));
});

test('after the re-import: resources/read returns the message the URI names (followed if moved) or an error — never another one', async () => {
  const seen = { moved: 0, gone: 0 };
  for (const u of cited.resources) {
    const [, id, h] = RESOURCE_RE.exec(u)!;
    const read = await client.readResource({ uri: u }).catch((e: unknown) => e as Error);
    if (read instanceof Error) {
      assert.ok(re.dropped.hash.startsWith(h), `only the dropped message fails: ${u}: ${read.message}`);
      assert.match(read.message, /this message is no longer in the archive/);
      seen.gone++;
      continue;
    }
    const json = JSON.parse(String((read.contents[1] as { text: string }).text)) as {
      message: { message_id: number; hash: string; link: string };
      notes?: string[];
    };
    assert.ok(
      json.message.hash.startsWith(h),
      `${u} returned message ${json.message.message_id} (${json.message.hash})`,
    );
    if (json.message.message_id !== Number(id)) {
      seen.moved++;
      assert.match(json.notes?.[0] ?? '', /this message moved after a re-import/);
      assert.match(String((read.contents[0] as { text: string }).text), /^Note: this message moved after a re-import/);
    }
    // The citation it offers now is anchored at the current id.
    assert.match(json.message.link, new RegExp(`/at/${json.message.message_id}\\?h=${h}$`));
  }
  assert.ok(seen.moved >= 2 && seen.gone === 1, JSON.stringify(seen));
});

test('old links without a hash keep working as before (by id, whatever the id holds now)', async () => {
  const oldA = fx.before[0];
  const read = await client.readResource({ uri: `msgbrowse://message/${oldA.id}` });
  const json = JSON.parse(String((read.contents[1] as { text: string }).text)) as { message: { hash: string } };
  assert.equal(json.message.hash, re.inserted.hash, 'an unanchored id is served as today');
  const ctx = await ok<{ hash: string }>('get_context', { message_id: oldA.id, window: 0 });
  assert.equal(ctx.hash, re.inserted.hash);
});
