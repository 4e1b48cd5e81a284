/** Integration suite: citations open the conversation viewer. Registered in order by tests.ts. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api } from './env';
import { invoke } from './tools-helpers';

export function defineViewerCitations(m: Manifest): void {
  describe('citations open the conversation viewer', () => {
    it('a citation URI from a tool result opens the viewer at that message', async () => {
      const a = await api();
      // A viewer left open by an earlier suite refreshes (unhighlighted) when the archive changes: its ack is not ours.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const text = await invoke('search_messages', { query: 'lease agreement' });
      const link = new RegExp(`${vscode.env.uriScheme}://msgbrowse\\.msgbrowse-vscode/c/(\\d+)/at/(\\d+)`).exec(text);
      assert.ok(link, 'a citation link in the tool result');
      const [, cid, mid] = link;
      const shown = a.testHooks.waitForViewer(Number(cid), Number(mid), 30_000);
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(link[0]));
      const ack = await shown;
      assert.equal(ack.highlighted, true);
      assert.ok(ack.rendered > 1, 'the viewer rendered the surrounding messages');
      assert.ok(
        a.testHooks.receivedUris().some((u) => u.includes(`/c/${cid}/at/${mid}`)),
        'the URI handler received the link',
      );
      assert.ok(a.testHooks.openViewers().includes(Number(cid)));
    });

    it('the viewer renders a message containing HTML as text (and still acknowledges it)', async () => {
      const a = await api();
      const shown = a.testHooks.waitForViewer(m.curated.script.conversationId, m.curated.script.id, 30_000);
      await vscode.commands.executeCommand(
        'msgbrowse.openCitation',
        m.curated.script.conversationId,
        m.curated.script.id,
      );
      const ack = await shown;
      assert.equal(ack.highlighted, true);
      assert.equal(ack.focusText, m.curated.script.body, 'the body is shown verbatim, as text');
      assert.equal(ack.activeElements, 0, 'no script/iframe/on* elements came from message data');
    });

    it('the viewer shows image attachments found under the archive root inline', async () => {
      const a = await api();
      const shown = a.testHooks.waitForViewer(m.curated.image.conversationId, m.curated.image.id, 30_000);
      await vscode.commands.executeCommand(
        'msgbrowse.openCitation',
        m.curated.image.conversationId,
        m.curated.image.id,
      );
      const ack = await shown;
      assert.ok(ack.images >= 1, `inline images: ${ack.images}`);
    });
  });
}
