/** Integration suite: activation and the MCP server definition. Registered in order by tests.ts. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';
import { TOOLS, ourTools } from './tools-helpers';

export function defineActivation(m: Manifest): void {
  describe('activation and the MCP server definition', () => {
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
      assert.ok(
        ep.headers[a.testHooks.secretHeader] && ep.headers[a.testHooks.secretHeader].length >= 32,
        'per-session secret header',
      );
    });

    it("VS Code's MCP client starts the server and lists every tool", async () => {
      const a = await api();
      await waitFor(
        'every msgbrowse tool in vscode.lm.tools',
        async () => {
          if (ourTools().size === TOOLS.length) return true;
          await vscode.commands
            .executeCommand('workbench.mcp.startServer', a.mcpServerId, { autoTrustChanges: true })
            .then(undefined, () => undefined);
          return ourTools().size === TOOLS.length || undefined;
        },
        60_000,
        1000,
      );
      assert.deepEqual([...ourTools().keys()].sort(), [...TOOLS].sort());
      assert.ok(
        (a.testHooks.providerCalls()?.resolved ?? 0) > 0,
        'resolveMcpServerDefinition was called before the start',
      );
      assert.ok(a.testHooks.status().sessions > 0, 'VS Code holds an MCP session with our server');
    });
  });
}
