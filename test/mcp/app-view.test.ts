/**
 * The MCP App view on the protocol: tools/list declares ui://msgbrowse/thread on exactly the tools whose results are
 * messages, resources/list lists it with the MCP App MIME type, and resources/read serves the built document with
 * CSP metadata allowing no network (and a CSP meta tag saying the same inside the HTML).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { Runtime } from '../../src/core/index';
import { createMcpServer } from '../../src/mcp/index';
import { THREAD_VIEW_TOOLS, THREAD_VIEW_URI } from '../../src/mcp/app-view';
import { buildCuratedArchive } from '../fixtures/index';
import { startRuntime } from '../stress/harness/server';
import { tempDir } from './harness';

const root = path.resolve(__dirname, '../..');
const MIME = 'text/html;profile=mcp-app';
const SIX = ['search_messages', 'semantic_search', 'get_context', 'get_conversation', 'get_journal_day', 'on_this_day'];

let dir: string;
let runtime: Runtime;
let client: Client;

before(async () => {
  if (!fs.existsSync(path.join(root, 'dist/thread-app.html')))
    execFileSync(process.execPath, ['esbuild.js'], { cwd: root });
  dir = tempDir('app-view');
  const desc = buildCuratedArchive(dir);
  runtime = startRuntime({ archivePath: desc.path });
  const server = createMcpServer(runtime.context);
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  client = new Client({ name: 'app-view', version: '1' });
  await client.connect(ct);
});

after(async () => {
  await client?.close();
  await runtime?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('MCP App view (ui://msgbrowse/thread)', () => {
  it('is declared through _meta.ui.resourceUri on exactly the six message tools', async () => {
    assert.deepEqual([...THREAD_VIEW_TOOLS].sort(), [...SIX].sort());
    const { tools } = await client.listTools();
    assert.ok(tools.length > SIX.length, 'other tools exist to check against');
    for (const t of tools) {
      const ui = (t._meta as { ui?: { resourceUri?: string } } | undefined)?.ui;
      if (SIX.includes(t.name)) {
        assert.equal(ui?.resourceUri, THREAD_VIEW_URI, `${t.name} declares the view`);
        assert.equal((t._meta as Record<string, unknown>)['ui/resourceUri'], THREAD_VIEW_URI, `${t.name} legacy key`);
        assert.ok(t.annotations?.readOnlyHint, `${t.name} keeps its annotations`);
      } else {
        assert.equal(ui, undefined, `${t.name} declares no view`);
        assert.equal(t._meta?.['ui/resourceUri'], undefined, `${t.name} declares no view`);
      }
    }
    assert.deepEqual(
      tools
        .filter((t) => t._meta?.ui)
        .map((t) => t.name)
        .sort(),
      [...SIX].sort(),
    );
  });

  it('is listed in resources/list with the MCP App MIME type', async () => {
    const { resources } = await client.listResources();
    const view = resources.filter((r) => r.uri === THREAD_VIEW_URI);
    assert.equal(view.length, 1);
    assert.equal(view[0].mimeType, MIME);
    assert.ok(view[0].title);
  });

  it('resources/read serves one self-contained HTML document with CSP metadata allowing no network', async () => {
    const r = await client.readResource({ uri: THREAD_VIEW_URI });
    assert.equal(r.contents.length, 1);
    const c = r.contents[0] as {
      uri: string;
      mimeType?: string;
      text?: string;
      _meta?: { ui?: { csp?: Record<string, string[] | undefined> } };
    };
    assert.equal(c.uri, THREAD_VIEW_URI);
    assert.equal(c.mimeType, MIME);
    const html = String(c.text);
    assert.match(html, /^<!doctype html>/i);
    const csp = c._meta?.ui?.csp;
    assert.ok(csp, 'csp metadata present');
    for (const k of ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const) {
      assert.ok(!csp[k] || csp[k]!.length === 0, `${k} is empty: ${JSON.stringify(csp[k])}`);
    }
    // The document's own CSP: nothing from the network, script and style only inline.
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    assert.ok(meta, 'CSP meta tag');
    assert.match(meta, /default-src 'none'/);
    assert.match(meta, /connect-src 'none'/);
    assert.match(meta, /script-src 'unsafe-inline'(;|$)/);
    assert.match(meta, /style-src 'unsafe-inline'(;|$)/);
    assert.doesNotMatch(meta, /https?:|\*/);
    // Self-contained: one inline script and style, no src/href to load anything.
    assert.equal((html.match(/<script\b/gi) ?? []).length, 1);
    assert.doesNotMatch(html, /<script[^>]+src=|<link\b|<img\b|<iframe\b/i);
    assert.ok(html.includes('ui/initialize'), 'the ext-apps App is bundled');
  });

  it('clients without Apps keep the same tool results: text and structuredContent with every citation', async () => {
    const r = await client.callTool({ name: 'search_messages', arguments: { query: 'lease' } });
    const hits = (r.structuredContent as { hits: { link: string }[] }).hits;
    assert.ok(hits.length > 0);
    const text = (r.content as { type: string; text?: string }[])[0].text ?? '';
    for (const h of hits) assert.ok(text.includes(h.link), `the text cites ${h.link}`);
    assert.equal(r._meta, undefined, 'no UI-only fields on the result');
  });
});
