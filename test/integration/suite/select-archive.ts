/** Integration suite: Select Archive… and the status report. Registered in order by tests.ts. */
import * as assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';

export function defineSelectArchive(m: Manifest): void {
  describe('Select Archive… and the status report', () => {
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
  });
}
