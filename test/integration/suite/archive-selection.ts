/** Integration suite: choosing the archive: setting, discovery, none, demo. Registered in order by tests.ts. */
import * as assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';
import { invokeEventually } from './tools-helpers';

export function defineArchiveSelection(m: Manifest): void {
  describe('choosing the archive: setting, discovery, none, demo', () => {
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
      await vscode.workspace
        .getConfiguration('msgbrowse')
        .update('archivePath', undefined, vscode.ConfigurationTarget.Workspace);
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
      const text = await invokeEventually(
        'list_conversations',
        {},
        (t) => /Select Archive/.test(t),
        'the no-archive error',
      );
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
  });
}
