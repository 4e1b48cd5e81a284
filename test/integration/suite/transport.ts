/** Integration suite: client config and the endpoint's guards. Registered in order by tests.ts. */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';
import { rawRequest } from './http';

export function defineTransport(m: Manifest): void {
  describe("client config and the endpoint's guards", () => {
    it('"Copy MCP Config" gives a runnable portable config (.mcp.json) for the bundled CLI', async () => {
      const text = (await vscode.commands.executeCommand('msgbrowse.copyMcpConfig', 'vscode')) as string;
      const cfg = JSON.parse(text) as { mcpServers: { msgbrowse: { type: string; command: string; args: string[] } } };
      const server = cfg.mcpServers.msgbrowse;
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
  });
}
