/**
 * The MCP App view (dist/thread-app.html, source media/app/) in a real Chromium (Debian's, found like the VS Code
 * test host finds it: $CHROMIUM, else the test host's host.env, else /usr/bin/chromium), driven by playwright-core.
 * The page acts as the host through ext-apps' own AppBridge (test/app/host-page.mjs); the tool results it hands
 * the view are real ones from the MCP server over the curated fixture archive, and the view's tools/call is answered
 * by that server. Checks rendering, grouping, reactions, the highlight, ui/open-link, tools/call get_context,
 * ui/message, the host theme, keyboard use, and that hostile bodies stay inert text.
 *   UPDATE_SCREENSHOTS=1 also writes media/screenshots/mcp-app-thread.png (the README's picture).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import * as esbuild from 'esbuild';
import type { Browser, Frame, Page } from 'playwright-core';
import type { Runtime } from '../../src/core/index';
import { buildCuratedArchive, type CuratedArchive } from '../fixtures/index';
import { connectInMemory, startRuntime, type Connected } from '../stress/harness/server';

const root = path.resolve(__dirname, '../..');

// The callbacks handed to page/frame.evaluate run in the browser; test/ is type-checked without the DOM library,
// so these names are declared loosely, for this file only.
interface El {
  tagName: string;
  dataset: Record<string, string | undefined>;
  textContent: string | null;
  attributes: ArrayLike<{ name: string; value: string }>;
  children: { length: number };
  tabIndex: number;
  scrollWidth: number;
  clientWidth: number;
  scrollHeight: number;
  style: { colorScheme: string };
  getAttribute(name: string): string | null;
  querySelector<T = El>(sel: string): T | null;
  querySelectorAll<T = El>(sel: string): ArrayLike<T>;
}
declare const window: Record<string, unknown>;
declare const document: El & {
  documentElement: El;
  body: El;
  activeElement: El | null;
  scripts: { length: number };
  getElementById(id: string): El | null;
};
declare function getComputedStyle(e: El): { backgroundColor: string; color: string };
type HTMLElement = El;

function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM;
  if (fromEnv && fs.existsSync(fromEnv)) return fromEnv;
  const dir = process.env.MSGBROWSE_TEST_HOST_DIR || path.join(os.homedir(), '.cache', 'msgbrowse-test-host');
  try {
    const line = fs
      .readFileSync(path.join(dir, 'host.env'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('CHROMIUM='));
    const bin = line?.slice('CHROMIUM='.length).trim();
    if (bin && fs.existsSync(bin)) return bin;
  } catch {
    // no test host: try the system's
  }
  return fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
}

const CHROMIUM = findChromium();
const SKIP = CHROMIUM
  ? false
  : 'no Chromium found ($CHROMIUM, the test host host.env CHROMIUM=, /usr/bin/chromium): install the test host with bash scripts/test-host/setup.sh';

const LIGHT = {
  theme: 'light' as const,
  styles: {
    variables: {
      '--color-background-primary': '#fdfdfd',
      '--color-text-primary': '#202020',
      '--font-sans': 'sans-serif',
    },
  },
  containerDimensions: { maxHeight: 420, maxWidth: 560 },
};
const DARK = {
  ...LIGHT,
  theme: 'dark' as const,
  styles: {
    variables: {
      '--color-background-primary': '#101010',
      '--color-text-primary': '#eeeeee',
      '--font-sans': 'sans-serif',
    },
  },
};

interface HostEvent {
  method: string;
  params: Record<string, unknown>;
}
interface Hit {
  message_id: number;
  hash: string;
  conversation_id: number;
  conversation: string;
  sender: string;
  timestamp: string;
  text: string;
  link: string;
  reactions?: { emoji: string; actor: string }[];
  attachments?: { kind: string; name: string }[];
}

let dir: string;
let desc: CuratedArchive;
let runtime: Runtime;
let conn: Connected;
let client: Client;
let browser: Browser;
let page: Page;
let view: Frame;

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.ok(!r.isError, `${name} failed: ${JSON.stringify(r.content)}`);
  return r;
}

async function show(result: CallToolResult): Promise<void> {
  await page.evaluate(() => (window as unknown as { hostEvents: unknown[] }).hostEvents.splice(0));
  await page.evaluate(
    (r) => (window as unknown as { sendToolResult(r: unknown): Promise<void> }).sendToolResult(r),
    result as unknown,
  );
}

const events = (): Promise<HostEvent[]> =>
  page.evaluate(() => (window as unknown as { hostEvents: HostEvent[] }).hostEvents.slice());

async function waitEvent(method: string): Promise<HostEvent> {
  const end = Date.now() + 10_000;
  for (;;) {
    const e = (await events()).find((x) => x.method === method);
    if (e) return e;
    if (Date.now() > end) throw new Error(`no ${method} from the view; got ${JSON.stringify(await events())}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Elements and attributes message data must never produce inside the rendered thread. */
const ACTIVE = () =>
  view.evaluate(() => {
    const box = document.getElementById('scroller')!;
    const tags = Array.from(
      box.querySelectorAll('script, img, iframe, object, embed, style, link, form, svg, a, input, base, meta'),
    ).map((e) => e.tagName);
    const on = Array.from(box.querySelectorAll('*')).flatMap((e) =>
      Array.from(e.attributes)
        .filter((a) => /^on/i.test(a.name) || /^(href|src|action|formaction|xlink:href|srcdoc)$/i.test(a.name))
        .map((a) => `${e.tagName}[${a.name}]`),
    );
    return {
      tags,
      on,
      scripts: document.scripts.length,
      pwned: (window as unknown as { pwned?: unknown }).pwned ?? null,
    };
  });

describe('MCP App thread view in Chromium', { skip: SKIP }, () => {
  before(async () => {
    if (!fs.existsSync(path.join(root, 'dist/thread-app.html')))
      execFileSync(process.execPath, ['esbuild.js'], { cwd: root });
    const html = fs.readFileSync(path.join(root, 'dist/thread-app.html'), 'utf8');
    const hostJs = (
      await esbuild.build({
        entryPoints: [path.join(__dirname, 'host-page.mjs')],
        bundle: true,
        write: false,
        format: 'iife',
        platform: 'browser',
        target: 'es2022',
        logLevel: 'warning',
      })
    ).outputFiles[0].text;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-app-view-'));
    desc = buildCuratedArchive(dir);
    runtime = startRuntime({ archivePath: desc.path, extra: { answerBudget: 8192 } });
    conn = await connectInMemory(runtime, 'app-view-test');
    client = conn.client;

    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport: { width: 600, height: 460 } });
    // Anything the view would fetch is a failure: there is no network for it (CSP), and here none at all.
    await page.route('**/*', (route) => route.abort());
    await page.exposeFunction('callServerTool', async (params: { name: string; arguments?: Record<string, unknown> }) =>
      client.callTool(params),
    );
    await page.setContent(
      '<!doctype html><html><body style="margin:0"><iframe id="view" sandbox="allow-scripts" title="thread" style="width:560px;height:420px;border:0"></iframe></body></html>',
    );
    await page.addScriptTag({ content: hostJs });
    await page.evaluate(
      ([h, ctx]) =>
        (window as unknown as { startHost(h: string, c: unknown): Promise<void> }).startHost(h as string, ctx),
      [html, LIGHT] as const,
    );
    const frame = page.frames().find((f) => f !== page.mainFrame());
    assert.ok(frame, 'the view frame exists');
    view = frame;
  });

  after(async () => {
    await browser?.close();
    await conn?.close();
    await runtime?.dispose();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('renders a search result grouped by conversation, the best hit highlighted, with reactions and marked matches', async () => {
    const r = await call('search_messages', { query: 'lease' });
    const hits = (r.structuredContent as { hits: Hit[] }).hits;
    assert.ok(hits.length >= 3);
    await show(r);
    await view.waitForSelector('article.msg');
    const shape = await view.evaluate(() => ({
      rows: Array.from(document.querySelectorAll<HTMLElement>('article.msg')).map((e) => e.dataset.hash),
      groups: Array.from(document.querySelectorAll<HTMLElement>('section.conv')).map((g) => ({
        name: g.querySelector('.conv-name .name')?.textContent,
        hashes: Array.from(g.querySelectorAll<HTMLElement>('article.msg')).map((e) => e.dataset.hash),
      })),
      highlight: Array.from(document.querySelectorAll<HTMLElement>('article.msg.highlight')).map((e) => ({
        hash: e.dataset.hash,
        badge: e.querySelector('.badge')?.textContent,
        tab: e.tabIndex,
      })),
      marks: Array.from(document.querySelectorAll('mark')).map((m) => m.textContent),
      roles: [document.querySelectorAll('[role=list]').length, document.querySelectorAll('[role=listitem]').length],
    }));
    assert.deepEqual([...shape.rows].sort(), hits.map((h) => h.hash).sort(), 'every hit rendered once');
    const convs = [...new Set(hits.map((h) => h.conversation_id))];
    assert.equal(shape.groups.length, convs.length, 'one group per conversation');
    assert.equal(shape.groups[0].name, hits[0].conversation, 'the best hit’s conversation first');
    for (const [i, g] of shape.groups.entries()) {
      const want = hits.filter((h) => h.conversation_id === convs[i]);
      assert.deepEqual([...g.hashes].sort(), want.map((h) => h.hash).sort(), `group ${g.name} holds its hits`);
    }
    assert.deepEqual(shape.highlight, [{ hash: hits[0].hash, badge: 'best match', tab: 0 }]);
    assert.ok(
      shape.marks.length > 0 && shape.marks.every((m) => /lease/i.test(m ?? '')),
      `matches marked: ${shape.marks}`,
    );
    assert.equal(shape.roles[1], hits.length);
    // reactions: grouped by emoji with their actors
    const reacted = hits.find((h) => h.reactions?.length);
    assert.ok(reacted, 'the fixture has a hit with reactions');
    const chips = await view.evaluate(
      (hash) =>
        Array.from(document.querySelectorAll(`article.msg[data-hash="${hash}"] .reaction`)).map((c) => ({
          text: c.textContent,
          label: c.getAttribute('aria-label'),
        })),
      reacted.hash,
    );
    const byEmoji = new Map<string, string[]>();
    for (const x of reacted.reactions!) byEmoji.set(x.emoji, [...(byEmoji.get(x.emoji) ?? []), x.actor]);
    assert.deepEqual(
      chips,
      [...byEmoji].map(([e, a]) => ({ text: `${e} ${a.length}`, label: `${e} from ${a.join(', ')}` })),
    );
    // attachments: names with their kind, as the result carries them
    const attached = hits.find((h) => h.attachments?.length);
    assert.ok(attached, 'the fixture has a hit with an attachment');
    const files = await view.evaluate(
      (hash) =>
        Array.from(document.querySelectorAll(`article.msg[data-hash="${hash}"] .attachment`)).map((c) =>
          c.getAttribute('aria-label'),
        ),
      attached.hash,
    );
    assert.deepEqual(
      files,
      attached.attachments!.map((a) => `${a.kind} ${a.name}`),
    );
    // the view stays within the height the host gives it and scrolls inside
    const box = await view.evaluate(() => ({
      h: document.documentElement.scrollHeight,
      theme: document.documentElement.dataset.theme,
      bg: getComputedStyle(document.body).backgroundColor,
    }));
    assert.ok(box.h <= 420, `view height ${box.h}`);
    assert.equal(box.theme, 'light');
    assert.equal(box.bg, 'rgb(253, 253, 253)', 'host variable applied');
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      await page.locator('#view').screenshot({ path: path.join(root, 'media/screenshots/mcp-app-thread.png') });
    }
  });

  it('a paged result says which part it holds and loads the next page through the host (tools/call with its cursor)', async () => {
    const args = { query: 'the', limit: 60 };
    const r = await call('search_messages', args);
    const first = r.structuredContent as { hits: Hit[]; next_cursor?: string };
    assert.ok(first.next_cursor, 'the curated archive pages this search at the default budget');
    await page.evaluate(
      (a) => (window as unknown as { sendToolInput(a: unknown): Promise<void> }).sendToolInput(a),
      args,
    );
    await show(r);
    await view.waitForSelector('footer.page button.next');
    assert.match(
      (await view.textContent('footer.page .page-note')) ?? '',
      new RegExp(`^hits 1–${first.hits.length} of \\d+`),
    );
    await view.click('footer.page button.next');
    const req = await waitEvent('tools/call');
    assert.deepEqual(
      { name: req.params.name, arguments: req.params.arguments },
      { name: 'search_messages', arguments: { ...args, cursor: first.next_cursor } },
    );
    const second = (await call('search_messages', { ...args, cursor: first.next_cursor })).structuredContent as {
      hits: Hit[];
    };
    await view.waitForFunction((h) => !!document.querySelector(`article.msg[data-hash="${h}"]`), second.hits[0].hash);
    const rows = await view.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('article.msg')).map((e) => e.dataset.hash),
    );
    assert.deepEqual(
      [...rows].sort(),
      second.hits.map((h) => h.hash).sort(),
      'the view shows the second page, and only it',
    );
    assert.match(
      (await view.textContent('footer.page .page-note')) ?? '',
      new RegExp(`^hits ${first.hits.length + 1}–`),
    );
  });

  it('click and Enter on a message ask the host to open its citation link (ui/open-link)', async () => {
    const r = await call('search_messages', { query: 'lease' });
    const hits = (r.structuredContent as { hits: Hit[] }).hits;
    await show(r);
    await view.waitForSelector(`article.msg[data-hash="${hits[0].hash}"]`);
    await view.click(`article.msg[data-hash="${hits[0].hash}"] .body`);
    const open = await waitEvent('ui/open-link');
    assert.deepEqual(open.params, { url: hits[0].link });
    // keyboard: the highlighted message holds the tab stop; ↓ moves to the next one, Enter opens it
    await page.evaluate(() => (window as unknown as { hostEvents: unknown[] }).hostEvents.splice(0));
    await view.focus(`article.msg[data-hash="${hits[0].hash}"]`);
    await page.keyboard.press('ArrowDown');
    const next = await view.evaluate(() => ({
      hash: (document.activeElement as HTMLElement).dataset.hash,
      tabbable: document.querySelectorAll('article.msg[tabindex="0"]').length,
    }));
    assert.equal(next.tabbable, 1, 'one message in the tab order');
    assert.notEqual(next.hash, hits[0].hash);
    await page.keyboard.press('Enter');
    const opened = await waitEvent('ui/open-link');
    assert.equal(opened.params.url, hits.find((h) => h.hash === next.hash)?.link);
  });

  it('"Show more context" calls get_context through the host and expands the thread in place', async () => {
    const r = await call('search_messages', { query: 'lease' });
    const hits = (r.structuredContent as { hits: Hit[] }).hits;
    await show(r);
    const sel = `article.msg[data-hash="${hits[0].hash}"]`;
    await view.waitForSelector(sel);
    const before = await view.evaluate(
      (c) => document.querySelectorAll(`section.conv[data-key="0:${c}"] article.msg`).length,
      hits[0].conversation_id,
    );
    await view.click(`${sel} button.more`);
    const req = await waitEvent('tools/call');
    assert.deepEqual(
      { name: req.params.name, arguments: req.params.arguments },
      { name: 'get_context', arguments: { message_id: hits[0].message_id, hash: hits[0].hash } },
    );
    const ctx = await call('get_context', { message_id: hits[0].message_id, hash: hits[0].hash });
    const ctxHashes = (ctx.structuredContent as { messages: Hit[] }).messages.map((m) => m.hash);
    await view.waitForSelector('article.msg.added');
    const after = await view.evaluate(
      (c) => ({
        hashes: Array.from(document.querySelectorAll<HTMLElement>(`section.conv[data-key="0:${c}"] article.msg`)).map(
          (e) => e.dataset.hash!,
        ),
        focused: (document.activeElement as HTMLElement | null)?.dataset.hash,
      }),
      hits[0].conversation_id,
    );
    assert.ok(after.hashes.length > before, `expanded from ${before} to ${after.hashes.length}`);
    for (const h of ctxHashes) assert.ok(after.hashes.includes(h), 'every context message shown');
    assert.equal(after.focused, hits[0].hash, 'focus stays on the message');
    assert.match((await view.textContent(`${sel} button.more`)) ?? '', /more shown|No more context/);
  });

  it('"Ask about this" sends a ui/message with the message citation', async () => {
    const r = await call('search_messages', { query: 'lease' });
    const hits = (r.structuredContent as { hits: Hit[] }).hits;
    await show(r);
    const sel = `article.msg[data-hash="${hits[0].hash}"]`;
    await view.waitForSelector(sel);
    await view.click(`${sel} button.ask`);
    const msg = await waitEvent('ui/message');
    const content = msg.params.content as { type: string; text: string }[];
    assert.equal(msg.params.role, 'user');
    assert.equal(content[0].type, 'text');
    assert.ok(content[0].text.includes(`](${hits[0].link})`), content[0].text);
    assert.equal(
      (await events()).filter((e) => e.method === 'ui/open-link').length,
      0,
      'the button does not also open the message',
    );
  });

  it('get_context: the thread with the centre message marked as cited; get_conversation: one conversation in time order', async () => {
    const mark = desc.marks.leaseAgreement;
    const r = await call('get_context', { message_id: mark.id, hash: mark.hash });
    const msgs = (r.structuredContent as { messages: Hit[] }).messages;
    await show(r);
    await view.waitForSelector(`article.msg.cited[data-hash="${mark.hash}"]`);
    const s = await view.evaluate(() => ({
      groups: document.querySelectorAll('section.conv').length,
      cited: Array.from(document.querySelectorAll<HTMLElement>('article.msg.highlight')).map((e) => [
        e.dataset.hash,
        e.querySelector('.badge')?.textContent,
      ]),
      rows: document.querySelectorAll('article.msg').length,
    }));
    assert.deepEqual(s, { groups: 1, cited: [[mark.hash, 'cited']], rows: msgs.length });

    const conv = await call('get_conversation', { conversation_id: mark.conversationId });
    const cm = (conv.structuredContent as { messages: Hit[] }).messages;
    await show(conv);
    await view.waitForFunction(
      (n) => document.querySelectorAll('article.msg').length === n && !document.querySelector('article.msg.cited'),
      cm.length,
    );
    const order = await view.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('article.msg')).map((e) => Number(e.dataset.id)),
    );
    const want = [...cm]
      .sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.message_id - b.message_id))
      .map((m) => m.message_id);
    assert.deepEqual(order, want, 'oldest first, whatever order the tool returned');
  });

  it('follows the host theme: a host-context change applies data-theme and the host variables', async () => {
    await page.evaluate((c) => (window as unknown as { setHostContext(c: unknown): void }).setHostContext(c), DARK);
    await view.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    const dark = await view.evaluate(() => ({
      bg: getComputedStyle(document.body).backgroundColor,
      fg: getComputedStyle(document.body).color,
      scheme: document.documentElement.style.colorScheme,
    }));
    assert.deepEqual(dark, { bg: 'rgb(16, 16, 16)', fg: 'rgb(238, 238, 238)', scheme: 'dark' });
    await page.evaluate((c) => (window as unknown as { setHostContext(c: unknown): void }).setHostContext(c), LIGHT);
    await view.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    assert.equal(await view.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(253, 253, 253)');
  });

  it('hostile bodies (HTML, scripts, RTL overrides, a 10,000-character line) stay inert text', async () => {
    const marks = [desc.marks.scriptBody, desc.marks.imgOnerror, desc.marks.promptInjection];
    for (const mark of marks) {
      const r = await call('get_context', { message_id: mark.id, hash: mark.hash, window: 2 });
      const msgs = (r.structuredContent as { messages: Hit[] }).messages;
      await show(r);
      await view.waitForSelector(`article.msg.cited[data-hash="${mark.hash}"]`);
      const bodies = await view.evaluate(() =>
        Array.from(document.querySelectorAll<HTMLElement>('article.msg')).map((e) => ({
          hash: e.dataset.hash,
          text: e.querySelector('.body')!.textContent,
          dir: e.querySelector('.body')!.getAttribute('dir'),
          kids: e.querySelector('.body')!.children.length,
        })),
      );
      for (const m of msgs) {
        const b = bodies.find((x) => x.hash === m.hash);
        assert.deepEqual(
          b,
          { hash: m.hash, text: m.text, dir: 'auto', kids: 0 },
          `body of message ${m.message_id} is one text node`,
        );
      }
      assert.deepEqual(
        await ACTIVE(),
        { tags: [], on: [], scripts: 1, pwned: null },
        `nothing active from ${mark.body}`,
      );
    }
    // Synthetic hostile hits in a search result's shape (snippet marks on): an RTL override, markup, a 10k line.
    const base = (await call('search_messages', { query: 'lease' })).structuredContent as { hits: Hit[] };
    const rtl = '\u202eevil\u202c <a href="javascript:alert(1)">link</a> **<img src=x onerror="window.pwned=1">**';
    const long = 'x'.repeat(10_000);
    const hostile = [
      '<script>window.pwned=1</script>',
      '<img src=x onerror="window.pwned=1">',
      '"><svg onload="window.pwned=1">',
      rtl,
      long,
    ];
    const hits = hostile.map((text, i) => ({
      ...base.hits[0],
      message_id: 90_000 + i,
      hash: `${'f'.repeat(60)}${String(i).padStart(4, '0')}`,
      text,
      sender: i === 3 ? '\u202eeM' : base.hits[0].sender,
    }));
    await show({ content: [{ type: 'text', text: 'hostile' }], structuredContent: { hits, receipt: {} } });
    await view.waitForFunction((n) => document.querySelectorAll('article.msg').length === n, hits.length);
    assert.deepEqual(await ACTIVE(), { tags: [], on: [], scripts: 1, pwned: null });
    const shown = await view.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('article.msg')).map((e) => {
        const body = e.querySelector<HTMLElement>('.body')!;
        return {
          id: Number(e.dataset.id),
          text: body.textContent,
          tags: Array.from(body.querySelectorAll('*')).map((c) => c.tagName),
          wide: body.scrollWidth > body.clientWidth + 1,
          sender: e.querySelector('.sender')!.textContent,
        };
      }),
    );
    for (const [i, text] of hostile.entries()) {
      const s = shown.find((x) => x.id === 90_000 + i)!;
      assert.equal(s.text, text.replace(/\*\*(.+?)\*\*/gs, '$1'), `hostile ${i} shown as its text`);
      assert.ok(
        s.tags.every((t) => t === 'MARK'),
        `only our own <mark> elements: ${s.tags}`,
      );
      assert.equal(s.wide, false, `hostile ${i} wraps inside the view`);
    }
    assert.equal(shown.find((x) => x.id === 90_003)!.sender, '\u202eeM', 'the sender is text too');
    const overflow = await view.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `no horizontal overflow (${overflow}px)`);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await ACTIVE()).pwned, null, 'no script from data ever ran');
  });
});
