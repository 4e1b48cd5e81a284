/** Integration suite: the archive changing on disk. Registered in order by tests.ts. */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';
import { invokeEventually } from './tools-helpers';

export function defineLiveArchive(m: Manifest): void {
  describe('the archive changing on disk', () => {
    it('replacing the archive file on disk is picked up without any settings change', async () => {
      const a = await api();
      await vscode.workspace
        .getConfiguration('msgbrowse')
        .update('archivePath', m.live, vscode.ConfigurationTarget.Workspace);
      await waitFor('the live copy of the curated archive', () => {
        const s = a.state();
        return (
          (s.kind === 'ready' && s.path === m.live && s.status.conversations === m.curated.conversations) || undefined
        );
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
        (t) =>
          t.includes(m.second.conversationName) &&
          !m.curated.conversationNames.some((n) => n && n !== m.second.conversationName && t.includes(n)),
        'tools to see the replaced archive',
      );
      assert.ok(text.includes(m.second.conversationName));
    });
  });
}
