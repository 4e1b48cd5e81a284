/** Integration suite: showcase (MSGBROWSE_IT_SHOT=1 only). Registered in order by tests.ts. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';
import type { SearchResult } from '../../../src/extension/api';

export function defineShowcase(_m: Manifest): void {
  describe('showcase (MSGBROWSE_IT_SHOT=1 only)', () => {
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
        const res = (await vscode.commands.executeCommand(
          'msgbrowse.searchMessages',
          'Sintra day trip',
        )) as SearchResult;
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
