/**
 * Integration suite: the MCP surface beyond tools, as VS Code's own MCP client uses it — it lists our prompts (its
 * `/mcp.msgbrowse.*` slash commands), and it subscribes to a resource opened in an editor; when msgbrowse writes into
 * the served archive the server notifies that session (notifications/resources/updated) and keeps running.
 * Registered in order by tests.ts.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';
import { invokeEventually } from './tools-helpers';

export function defineMcpSurface(m: Manifest): void {
  describe("the MCP surface through VS Code's client: prompts and live resources", () => {
    it("VS Code's client lists our prompts", async () => {
      const a = await api();
      await invokeEventually(
        'list_conversations',
        {},
        (t) => t.includes('"conversations"') || t.includes('"id"'),
        'the server answers',
      );
      const listed = await waitFor(
        'prompts/list from VS Code',
        () =>
          a.testHooks
            .mcpTraffic()
            .find(
              (e) =>
                e.direction === 'in' && e.method === 'prompts/list' && /visual studio code|code/i.test(e.client ?? ''),
            ),
        30_000,
      );
      assert.ok(listed, 'VS Code asked for the prompts');
    });

    it("VS Code's chat loads the MCP App view (ui://msgbrowse/thread) for the agent's tool results", async () => {
      const a = await api();
      // The agent suite (first) ran search_messages through VS Code's chat: with chat.mcp.apps.enabled (default on),
      // VS Code renders the tool's declared view inline, which starts by reading the view resource.
      const read = await waitFor(
        'resources/read of the thread view from VS Code',
        () =>
          a.testHooks.mcpTraffic().find((e) => e.method === 'resources/read' && e.subject === 'ui://msgbrowse/thread'),
        30_000,
      ).catch((e: unknown) => {
        throw new Error(
          `${String(e)}; traffic: ${JSON.stringify(
            a.testHooks
              .mcpTraffic()
              .filter((x) => x.method !== 'initialize')
              .slice(-15),
          )}`,
        );
      });
      assert.ok(read);
    });

    it('VS Code subscribes to a resource open in an editor; msgbrowse writing into its conversation notifies that session, no restart', async () => {
      const a = await api();
      const r = m.liveResources;
      const config = vscode.workspace.getConfiguration('msgbrowse');
      const previous = config.inspect<string>('archivePath')?.workspaceValue;
      const sessions = () => a.testHooks.mcpTraffic().filter((e) => e.method === 'initialize').length;
      const startedBefore = sessions();
      const providedBefore = a.testHooks.providerCalls()?.provided ?? 0;
      await config.update('archivePath', r.path, vscode.ConfigurationTarget.Workspace);
      try {
        await waitFor('the live-resources archive to be served', () => {
          const s = a.state();
          return (s.kind === 'ready' && s.path === r.path) || undefined;
        });
        // Another archive is a new server definition: wait until VS Code has read it and runs a session for it.
        await waitFor(
          'VS Code to read the new definition',
          () => (a.testHooks.providerCalls()?.provided ?? 0) > providedBefore || undefined,
          30_000,
        );
        await waitFor(
          'a server session started for the new archive',
          async () => {
            await invokeEventually(
              'get_conversation',
              { conversation_id: r.conversationId, limit: 1 },
              (t) => t.includes(`"conversation_id":${r.conversationId}`),
              'the server serves the new archive',
            );
            return sessions() > startedBefore || undefined;
          },
          45_000,
          1000,
        );
        // VS Code's own URI for an MCP resource: mcp-resource://<hex of the server definition id>/<scheme>/<authority><path>.
        const uri = vscode.Uri.from({
          scheme: 'mcp-resource',
          authority: Buffer.from(a.mcpServerId, 'utf8').toString('hex'),
          path: `/msgbrowse/conversation/${r.conversationId}`,
        });
        const doc = await vscode.workspace.openTextDocument(uri);
        await vscode.window.showTextDocument(doc, { preview: false });
        const before = doc.getText();
        const count = Number(/messages: (\d+)/.exec(before)?.[1]);
        assert.ok(count > 0, `the conversation resource reads: ${before.slice(0, 200)}`);
        const ours = `msgbrowse://conversation/${r.conversationId}`;
        await waitFor(
          'resources/subscribe from VS Code',
          () => a.testHooks.mcpTraffic().find((e) => e.method === 'resources/subscribe' && e.subject === ours),
          30_000,
        );
        const version = a.testHooks.definitionVersion();
        const st = (f: string) => {
          try {
            const x = fs.statSync(f);
            return `${x.size}@${x.mtimeMs}`;
          } catch {
            return 'none';
          }
        };
        const statsBefore = `${st(r.path)} wal ${st(`${r.path}-wal`)}`;
        const w = spawnSync(r.writer.node, [...r.writer.args, 'written while VS Code watches'], {
          cwd: r.writer.cwd,
          encoding: 'utf8',
          timeout: 60_000,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        });
        assert.equal(w.status, 0, w.stderr);
        await waitFor(
          'notifications/resources/updated for the subscribed conversation',
          () =>
            a.testHooks
              .mcpTraffic()
              .find(
                (e) => e.direction === 'out' && e.method === 'notifications/resources/updated' && e.subject === ours,
              ),
          30_000,
        ).catch((e: unknown) => {
          throw new Error(
            `${String(e)}; traffic: ${JSON.stringify(a.testHooks.mcpTraffic().slice(-30))}; writer: ${w.stdout.trim()}; files before ${statsBefore} after ${st(r.path)} wal ${st(`${r.path}-wal`)}; state ${JSON.stringify(a.state()).slice(0, 300)}`,
          );
        });
        // Read through VS Code's own MCP resource file system: the conversation now has the new message.
        // (VS Code keeps a read for 3 s — its "momentary cache" — so poll past it.)
        let reread = '';
        await waitFor(
          'VS Code to read the conversation with the new message',
          async () => {
            reread = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
            return new RegExp(`messages: ${count + 1}\\b`).test(reread) || undefined;
          },
          20_000,
          1000,
        ).catch((e: unknown) => {
          throw new Error(`${String(e)}; last read: ${reread.slice(0, 200)}`);
        });
        // (VS Code 1.139 does not re-read an open mcp-resource editor on resources/updated — observed here — so the
        // proof ends at the notification on its session; the SDK client tests see it arrive over stdio and HTTP.)
        assert.equal(
          a.testHooks.definitionVersion(),
          version,
          'an in-place write keeps the MCP definition (no server restart)',
        );
      } finally {
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
        await config.update('archivePath', previous, vscode.ConfigurationTarget.Workspace);
      }
    });
  });
}
