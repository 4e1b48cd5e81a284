/** Integration suite: citations in editors: document links and hovers. Registered in order by tests.ts. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, waitFor } from './env';

export function defineEditorLinks(m: Manifest): void {
  describe('citations in editors: document links and hovers', () => {
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
      const line = doc
        .getText()
        .split('\n')
        .findIndex((l) => l.includes('msgbrowse:c/'));
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
  });
}
