/** The end-to-end checks, registered after mocha's pre-require (see index.ts). */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { api, loadManifest, resultText, waitFor } from './env';
import { rawRequest } from './http';
import type { SearchResult } from '../../../src/extension/api';

const TOOLS = [
  'list_conversations',
  'get_conversation',
  'search_messages',
  'semantic_search',
  'get_context',
  'list_media',
  'list_links',
] as const;
type ToolName = (typeof TOOLS)[number];

function ourTools(): Map<ToolName, string> {
  const found = new Map<ToolName, string>();
  for (const t of vscode.lm.tools) {
    if (!/msgbrowse/i.test(t.name)) continue;
    for (const name of TOOLS) if (t.name.endsWith(`_${name}`)) found.set(name, t.name);
  }
  return found;
}

async function invoke(tool: ToolName, input: object): Promise<string> {
  const name = ourTools().get(tool);
  assert.ok(name, `tool ${tool} is not registered with VS Code`);
  const cts = new vscode.CancellationTokenSource();
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cts.token);
  return resultText(r);
}

/** Invokes, retrying while VS Code restarts/refreshes the server after a definition change. */
async function invokeEventually(tool: ToolName, input: object, ok: (text: string) => boolean, what: string): Promise<string> {
  let last = '';
  return waitFor(
    what,
    async () => {
      last = await invoke(tool, input).catch((e: unknown) => `error: ${String(e)}`);
      return ok(last) ? last : undefined;
    },
    45_000,
    500,
  ).catch((e: unknown) => {
    throw new Error(`${String(e)}; last result: ${last.slice(0, 600)}`);
  });
}

function citation(conversationId: number, messageId: number): string {
  return `${vscode.env.uriScheme}://msgbrowse.msgbrowse-vscode/c/${conversationId}/at/${messageId}`;
}

export function defineSuites(): void {
  const m = loadManifest();

  describe('msgbrowse in a real VS Code extension host', function () {
    this.timeout(90_000);

    it('activates and serves the configured archive', async () => {
      const a = await api();
      const st = a.state();
      assert.equal(st.kind, 'ready', `state: ${JSON.stringify(st)}`);
      if (st.kind !== 'ready') return;
      assert.equal(st.path, m.curated.path);
      assert.equal(st.status.conversations, m.curated.conversations);
      assert.equal(st.status.messages, m.curated.messages);
      assert.equal(a.testHooks.engine(), 'worker', 'archive queries run off the extension host thread');
      await waitFor('semantic search to be reported ready (index warmed after opening)', () => {
        const s = a.state();
        return (s.kind === 'ready' && s.status.semantic.ready) || undefined;
      });
    });

    it('gives VS Code an MCP server definition pointing at the in-process endpoint', async () => {
      const a = await api();
      await waitFor('provideMcpServerDefinitions', () => (a.testHooks.providerCalls()?.provided ?? 0) > 0 || undefined);
      const ep = await a.testHooks.ensureEndpoint();
      const [major, minor] = vscode.version.split('.').map(Number);
      const socketCapable = process.platform !== 'win32' && (major > 1 || minor >= 105);
      assert.equal(ep.kind, socketCapable ? 'socket' : 'tcp');
      if (ep.kind === 'socket') {
        assert.equal(ep.uri.scheme, 'unix');
        assert.equal(ep.uri.fragment, '/mcp');
      } else {
        assert.match(ep.uri.toString(), /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      }
      assert.ok(ep.headers[a.testHooks.secretHeader] && ep.headers[a.testHooks.secretHeader].length >= 32, 'per-session secret header');
    });

    it("VS Code's MCP client starts the server and lists the seven tools", async () => {
      const a = await api();
      await waitFor(
        'the seven msgbrowse tools in vscode.lm.tools',
        async () => {
          if (ourTools().size === TOOLS.length) return true;
          await vscode.commands.executeCommand('workbench.mcp.startServer', a.mcpServerId, { autoTrustChanges: true }).then(
            undefined,
            () => undefined,
          );
          return ourTools().size === TOOLS.length || undefined;
        },
        60_000,
        1000,
      );
      assert.deepEqual([...ourTools().keys()].sort(), [...TOOLS].sort());
      assert.ok((a.testHooks.providerCalls()?.resolved ?? 0) > 0, 'resolveMcpServerDefinition was called before the start');
      assert.ok(a.testHooks.status().sessions > 0, 'VS Code holds an MCP session with our server');
    });

    it('list_conversations through vscode.lm.invokeTool returns the fixture conversations', async () => {
      const text = await invoke('list_conversations', {});
      for (const name of new Set(m.curated.conversationNames)) {
        if (name) assert.ok(text.includes(name), `conversation "${name}" missing from: ${text.slice(0, 400)}`);
      }
    });

    it('search_messages finds the lease message and cites it with our URI scheme', async () => {
      const text = await invoke('search_messages', { query: 'lease agreement' });
      assert.ok(text.includes(citation(m.curated.lease.conversationId, m.curated.lease.id)), text.slice(0, 800));
    });

    it('semantic_search ranks the exact-embedding message first (configured endpoint)', async () => {
      const text = await invoke('semantic_search', { query: m.curated.lease.body, k: 3 });
      const link = citation(m.curated.lease.conversationId, m.curated.lease.id);
      assert.ok(text.includes(link), text.slice(0, 800));
      const first = /(?:[a-z-]+):\/\/msgbrowse\.msgbrowse-vscode\/c\/\d+\/at\/\d+/.exec(text)?.[0];
      assert.equal(first, link);
    });

    it('get_context returns the message and its neighbours', async () => {
      const text = await invoke('get_context', { message_id: m.curated.lease.id, window: 2 });
      assert.ok(text.includes(m.curated.lease.body), text.slice(0, 600));
    });

    it('a citation URI from a tool result opens the viewer at that message', async () => {
      const a = await api();
      const text = await invoke('search_messages', { query: 'lease agreement' });
      const link = new RegExp(`${vscode.env.uriScheme}://msgbrowse\\.msgbrowse-vscode/c/(\\d+)/at/(\\d+)`).exec(text);
      assert.ok(link, 'a citation link in the tool result');
      const [, cid, mid] = link;
      const shown = a.testHooks.waitForViewer(Number(cid), Number(mid), 30_000);
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(link[0]));
      const ack = await shown;
      assert.equal(ack.highlighted, true);
      assert.ok(ack.rendered > 1, 'the viewer rendered the surrounding messages');
      assert.ok(a.testHooks.receivedUris().some((u) => u.includes(`/c/${cid}/at/${mid}`)), 'the URI handler received the link');
      assert.ok(a.testHooks.openViewers().includes(Number(cid)));
    });

    it('the viewer renders a message containing HTML as text (and still acknowledges it)', async () => {
      const a = await api();
      const shown = a.testHooks.waitForViewer(m.curated.script.conversationId, m.curated.script.id, 30_000);
      await vscode.commands.executeCommand('msgbrowse.openCitation', m.curated.script.conversationId, m.curated.script.id);
      const ack = await shown;
      assert.equal(ack.highlighted, true);
      assert.equal(ack.focusText, m.curated.script.body, 'the body is shown verbatim, as text');
      assert.equal(ack.activeElements, 0, 'no script/iframe/on* elements came from message data');
    });

    it('the viewer shows image attachments found under the archive root inline', async () => {
      const a = await api();
      const shown = a.testHooks.waitForViewer(m.curated.image.conversationId, m.curated.image.id, 30_000);
      await vscode.commands.executeCommand('msgbrowse.openCitation', m.curated.image.conversationId, m.curated.image.id);
      const ack = await shown;
      assert.ok(ack.images >= 1, `inline images: ${ack.images}`);
    });

    it('the search command returns hybrid results', async () => {
      const res = (await vscode.commands.executeCommand('msgbrowse.searchMessages', 'lease agreement')) as
        | SearchResult
        | undefined;
      assert.ok(res && res.hits.length > 0, 'hits');
      assert.ok(res.hits.some((h) => h.message_id === m.curated.lease.id));
      assert.equal(res.semantic.used, true, `semantic half used (${res.semantic.reason ?? ''})`);
      assert.ok(res.hits.every((h) => h.link.startsWith(`${vscode.env.uriScheme}://msgbrowse.msgbrowse-vscode/c/`)));
    });

    it('the public API searches, formats citations and opens them — and carries no test hook', async () => {
      const a = await api();
      assert.equal(a.apiVersion, 1);
      const { testHooks, ...pub } = a;
      assert.ok(testHooks);
      assert.deepEqual(
        Object.keys(pub).sort(),
        ['apiVersion', 'citationUri', 'mcpServerId', 'onDidChangeState', 'openCitation', 'ready', 'search', 'state'],
      );
      const res = await a.search('lease agreement');
      const hit = res.hits.find((h) => h.message_id === m.curated.lease.id);
      assert.ok(hit, 'the lease message is among the hits');
      assert.equal(a.citationUri(hit), hit.link, 'the API formats citations as the tools do');
      assert.equal(a.citationUri({ conversationId: hit.conversation_id, messageId: hit.message_id }), hit.link);
      const shown = a.testHooks.waitForViewer(hit.conversation_id, hit.message_id, 30_000);
      a.openCitation(hit);
      assert.equal((await shown).highlighted, true);
      assert.throws(() => a.openCitation({ conversationId: 1.5, messageId: 2 }), TypeError);
    });

    it('citation tokens in an editor are document links', async () => {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(`${m.workspace}/notes.md`));
      const links = await waitFor('document links', async () => {
        const l = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', doc.uri);
        return l?.some((x) => x.target?.toString().startsWith('command:msgbrowse.openCitation')) ? l : undefined;
      });
      const ours = links.find((x) => x.target?.scheme === 'command');
      assert.ok(ours?.target && decodeURIComponent(ours.target.query).includes(String(m.curated.lease.id)));
    });

    it('hovering a citation token previews the cited message', async () => {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(`${m.workspace}/notes.md`));
      const line = doc.getText().split('\n').findIndex((l) => l.includes('msgbrowse:c/'));
      const col = doc.lineAt(line).text.indexOf('msgbrowse:c/') + 3;
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        doc.uri,
        new vscode.Position(line, col),
      );
      const text = hovers
        .flatMap((h) => h.contents)
        .map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))
        .join('\n');
      assert.ok(text.includes(m.curated.lease.body), text.slice(0, 500));
    });

    it('"Copy MCP Config" gives a runnable config for the bundled CLI', async () => {
      const text = (await vscode.commands.executeCommand('msgbrowse.copyMcpConfig', 'vscode')) as string;
      const cfg = JSON.parse(text) as { servers: { msgbrowse: { type: string; command: string; args: string[] } } };
      const server = cfg.servers.msgbrowse;
      assert.equal(server.type, 'stdio');
      assert.ok(server.args[0].endsWith(path.join('dist', 'cli.js')) && fs.existsSync(server.args[0]), server.args[0]);
      assert.deepEqual(server.args.slice(1), ['--archive', m.curated.path]);
      assert.equal(await vscode.env.clipboard.readText(), text);
    });

    it('refuses requests without the secret header — with 404, never 401/403', async () => {
      const a = await api();
      const ep = await a.testHooks.ensureEndpoint();
      const none = await rawRequest(ep, {});
      assert.equal(none.status, 404);
      const wrong = await rawRequest(ep, { [a.testHooks.secretHeader]: 'not-the-secret' });
      assert.equal(wrong.status, 404);
      const good = await rawRequest(ep, { ...ep.headers });
      assert.equal(good.status, 200, good.body.slice(0, 300));
    });

    it('over TCP as well, where a foreign Host is refused the same way', async () => {
      const a = await api();
      const cfg = vscode.workspace.getConfiguration('msgbrowse');
      await cfg.update('server.transport', 'tcp', vscode.ConfigurationTarget.Workspace);
      try {
        const ep = await waitFor('a TCP endpoint', async () => {
          const e = await a.testHooks.ensureEndpoint();
          return e.kind === 'tcp' ? e : undefined;
        });
        assert.match(ep.uri.toString(), /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        assert.equal((await rawRequest(ep, {})).status, 404);
        assert.equal((await rawRequest(ep, { ...ep.headers, host: 'attacker.example:80' })).status, 404);
        assert.equal((await rawRequest(ep, { ...ep.headers, origin: 'https://attacker.example' })).status, 404);
        assert.equal((await rawRequest(ep, { ...ep.headers })).status, 200);
      } finally {
        await cfg.update('server.transport', undefined, vscode.ConfigurationTarget.Workspace);
        await waitFor('back on the default endpoint', async () => {
          const e = await a.testHooks.ensureEndpoint();
          const [major, minor] = vscode.version.split('.').map(Number);
          const socketCapable = process.platform !== 'win32' && (major > 1 || minor >= 105);
          return e.kind === (socketCapable ? 'socket' : 'tcp') || undefined;
        });
      }
    });

    it('changing msgbrowse.archivePath restarts the server with the new archive', async () => {
      const a = await api();
      const before = a.testHooks.definitionVersion();
      await vscode.workspace
        .getConfiguration('msgbrowse')
        .update('archivePath', m.second.path, vscode.ConfigurationTarget.Workspace);
      await waitFor('the second archive to be served', () => {
        const s = a.state();
        return (s.kind === 'ready' && s.path === m.second.path) || undefined;
      });
      assert.notEqual(a.testHooks.definitionVersion(), before, 'the MCP definition version changed');
      const other = m.curated.conversationNames.find((n) => n && n !== m.second.conversationName);
      assert.ok(other);
      const text = await invokeEventually(
        'list_conversations',
        {},
        (t) => t.includes(m.second.conversationName) && !t.includes(other),
        'list_conversations to reflect the new archive',
      );
      assert.ok(text.includes(m.second.conversationName));
      const photo = `msgbrowse.msgbrowse-vscode/c/1/at/3`;
      const search = await invokeEventually(
        'search_messages',
        { query: 'photo' },
        (t) => t.includes(photo),
        'search on the new archive',
      );
      assert.ok(search.includes('attached'));
    });

    it('with the setting empty, the archive is discovered through MSGBROWSE_DATA_DIR', async () => {
      const a = await api();
      process.env.MSGBROWSE_DATA_DIR = path.dirname(m.curated.path);
      await vscode.workspace.getConfiguration('msgbrowse').update('archivePath', undefined, vscode.ConfigurationTarget.Workspace);
      await waitFor('discovery of the curated archive', () => {
        const s = a.state();
        return (s.kind === 'ready' && s.path === m.curated.path && s.origin === 'MSGBROWSE_DATA_DIR') || undefined;
      });
    });

    it('with no archive anywhere, tools answer with an actionable error instead of empty results', async () => {
      const a = await api();
      process.env.MSGBROWSE_DATA_DIR = path.join(m.workspace, 'no-such-dir');
      await a.testHooks.settled();
      assert.equal(a.state().kind, 'none', JSON.stringify(a.state()));
      const text = await invokeEventually('list_conversations', {}, (t) => /Select Archive/.test(t), 'the no-archive error');
      assert.match(text, /msgbrowse\.archivePath/);
    });

    it('"Open Demo Archive" unpacks the bundled demo into global storage and serves it', async () => {
      const a = await api();
      const file = (await vscode.commands.executeCommand('msgbrowse.openDemoArchive')) as string;
      assert.ok(file && !file.startsWith(m.workspace), `demo archive at ${file}`);
      const st = await waitFor('the demo archive', () => {
        const s = a.state();
        return s.kind === 'ready' && s.path === file ? s : undefined;
      });
      assert.equal(st.status.conversations, m.demo.conversations);
      assert.equal(st.status.messages, m.demo.messages);
      delete process.env.MSGBROWSE_DATA_DIR;
    });

    it('the viewer scrolls lazily through a whole conversation, both ways', async () => {
      const a = await api();
      const c = m.demo.longest;
      let shown = a.testHooks.waitForViewer(c.id, 0, 30_000);
      await vscode.commands.executeCommand('msgbrowse.openConversation', c.id);
      const first = await shown;
      assert.ok(first.rendered < c.messageCount, 'starts with one page, not the whole conversation');
      let page = await a.testHooks.scrollViewer(c.id, 'top');
      for (let i = 0; page.hasMore && i < 50; i++) page = await a.testHooks.scrollViewer(c.id, 'top');
      assert.equal(page.hasMore, false);
      assert.equal(page.firstId, c.firstId, 'reached the first message');
      assert.equal(page.rendered, c.messageCount, 'every message rendered once');

      shown = a.testHooks.waitForViewer(c.id, c.firstId, 30_000);
      await vscode.commands.executeCommand('msgbrowse.openCitation', c.id, c.firstId);
      const atFirst = await shown;
      assert.ok(atFirst.rendered < c.messageCount);
      page = await a.testHooks.scrollViewer(c.id, 'bottom');
      for (let i = 0; page.hasMore && i < 50; i++) page = await a.testHooks.scrollViewer(c.id, 'bottom');
      assert.equal(page.lastId, c.lastId, 'reached the last message');
      assert.equal(page.rendered, c.messageCount);
    });

    it('find-in-conversation jumps to a match outside the loaded page and highlights it', async () => {
      const a = await api();
      const c = m.demo.longest;
      assert.ok(c.firstWord, 'a word to look for');
      const shown = a.testHooks.waitForViewer(c.id, 0, 30_000);
      await vscode.commands.executeCommand('msgbrowse.openConversation', c.id);
      const tail = await shown;
      assert.ok(tail.rendered < c.messageCount, 'only the latest page is loaded');
      const found = await a.testHooks.findInViewer(c.id, c.firstWord);
      assert.ok(found.count >= 1);
      assert.equal(found.currentId, c.firstId, 'the earliest match is the first message');
      assert.equal(found.highlighted, true);
      const none = await a.testHooks.findInViewer(c.id, 'zzqxjv');
      assert.equal(none.count, 0);
    });

    it('replacing the archive file on disk is picked up without any settings change', async () => {
      const a = await api();
      await vscode.workspace.getConfiguration('msgbrowse').update('archivePath', m.live, vscode.ConfigurationTarget.Workspace);
      await waitFor('the live copy of the curated archive', () => {
        const s = a.state();
        return (s.kind === 'ready' && s.path === m.live && s.status.conversations === m.curated.conversations) || undefined;
      });
      const before = a.testHooks.definitionVersion();
      const tmp = `${m.live}.new`;
      fs.copyFileSync(m.second.path, tmp);
      fs.renameSync(tmp, m.live);
      await waitFor(
        'the replaced archive to be served',
        () => {
          const s = a.state();
          return (s.kind === 'ready' && s.status.conversations === m.second.conversations) || undefined;
        },
        30_000,
      );
      assert.notEqual(a.testHooks.definitionVersion(), before, 'the MCP definition version changed');
      const text = await invokeEventually(
        'list_conversations',
        {},
        (t) => t.includes(m.second.conversationName) && !m.curated.conversationNames.some((n) => n && n !== m.second.conversationName && t.includes(n)),
        'tools to see the replaced archive',
      );
      assert.ok(text.includes(m.second.conversationName));
    });

    it('"Select Archive…" accepts a data directory and serves the msgbrowse.sqlite inside it', async () => {
      const a = await api();
      const chosen = await vscode.commands.executeCommand('msgbrowse.selectArchive', path.dirname(m.curated.path));
      assert.equal(chosen, path.dirname(m.curated.path));
      await waitFor('the curated archive via its data dir', () => {
        const s = a.state();
        return (s.kind === 'ready' && s.path === m.curated.path) || undefined;
      });
      const report = (await vscode.commands.executeCommand('msgbrowse.showStatus', { quiet: true })) as {
        mcpApi: boolean;
        archivePath?: string;
        endpoint?: { kind: string; uri: string };
      };
      assert.equal(report.mcpApi, true);
      assert.equal(report.archivePath, m.curated.path);
      assert.ok(report.endpoint?.uri);
    });

    // Not a check: with MSGBROWSE_IT_SHOT=1 (and the wrapper's SHOT/SHOT_ON), leaves the viewer on screen for a
    // README screenshot of the demo archive.
    if (process.env.MSGBROWSE_IT_SHOT === '1') {
      it('showcase: the viewer on a demo message', async () => {
        const a = await api();
        const demo = (await vscode.commands.executeCommand('msgbrowse.openDemoArchive')) as string;
        await waitFor('the demo archive', () => {
          const s = a.state();
          return (s.kind === 'ready' && s.path === demo) || undefined;
        });
        const res = (await vscode.commands.executeCommand('msgbrowse.searchMessages', 'Sintra day trip')) as SearchResult;
        const hit = res.hits[0];
        assert.ok(hit);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        await vscode.commands.executeCommand('workbench.action.closeSidebar');
        await vscode.commands.executeCommand('workbench.action.closePanel');
        await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
        const shown = a.testHooks.waitForViewer(hit.conversation_id, hit.message_id, 30_000);
        await vscode.commands.executeCommand('msgbrowse.openCitation', hit.conversation_id, hit.message_id);
        await shown;
        await new Promise((r) => setTimeout(r, 1500));
        console.log('[msgbrowse-it] screenshot-ready');
        await new Promise((r) => setTimeout(r, 2500));
      });
    }
  });
}
