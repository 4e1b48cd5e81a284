/**
 * Integration suite: hash-anchored citations across a msgbrowse re-import of the served archive (ids shifted and
 * reused, see test/fixtures/reimport.ts). Old links open the right message, highlighted, with a notice that it
 * moved; a message that is gone is said to be gone and never replaced by what holds its old id now. Registered in
 * order by tests.ts.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';
import { invoke } from './tools-helpers';

export function defineCitationReimport(m: Manifest): void {
  describe('citations across a re-import', () => {
    it('an old link opens the message it cited (moved → its new id, highlighted, said); a gone one warns; hovers say so', async () => {
      const a = await api();
      const r = m.reimport;
      const config = vscode.workspace.getConfiguration('msgbrowse');
      const previous = config.inspect<string>('archivePath')?.workspaceValue;
      await config.update('archivePath', r.path, vscode.ConfigurationTarget.Workspace);
      try {
        await waitFor('the re-import archive to be served', () => {
          const s = a.state();
          return (s.kind === 'ready' && s.path === r.path) || undefined;
        });
        const [msgA, msgB] = r.before;
        const c = r.conversationId;

        // Citations obtained before the re-import, from the tools (as Copilot would have them).
        const text = await waitFor('get_conversation on the re-import archive', async () => {
          const t = await invoke('get_conversation', { conversation_id: c }).catch(() => '');
          return t.includes(msgA.hash.slice(0, 16)) ? t : undefined;
        });
        const linkOf = (msg: { id: number; hash: string }) => {
          const re = new RegExp(
            `${vscode.env.uriScheme}://msgbrowse\\.msgbrowse-vscode/c/${c}/at/${msg.id}\\?h=${msg.hash.slice(0, 16)}`,
          );
          const found = re.exec(text);
          assert.ok(found, `the tool result cites message ${msg.id} with its hash`);
          return found[0];
        };
        const oldA = linkOf(msgA);
        const oldB = linkOf(msgB);
        const oldDropped = linkOf(r.dropped);

        // A viewer open at B before the re-import.
        const shownB = a.testHooks.waitForViewer(c, msgB.id, 30_000);
        await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(oldB));
        assert.equal((await shownB).focusHash, msgB.hash);

        // msgbrowse re-imports the conversation: the file on disk changes under the running extension.
        const newA = r.afterIds[msgA.hash];
        const newB = r.afterIds[msgB.hash];
        assert.equal(newA, msgB.id, "A's new id is B's old one (ids reused)");
        assert.equal(newB, r.dropped.id, "B's new id is the dropped message's old one");
        const refreshed = a.testHooks.waitForViewer(c, newB, 45_000);
        // In place, by a separate writer process (the same file, its -wal growing), as msgbrowse does it.
        const w = spawnSync(r.writer.node, r.writer.args, {
          cwd: r.writer.cwd,
          encoding: 'utf8',
          timeout: 60_000,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        });
        assert.equal(w.status, 0, `the re-import writer failed: ${w.stderr || w.error?.message}`);
        const written = JSON.parse(w.stdout.trim().split('\n').pop() ?? '{}') as {
          after: { id: number; hash: string }[];
        };
        assert.deepEqual(
          Object.fromEntries(written.after.map((x) => [x.hash, x.id])),
          r.afterIds,
          'the in-place re-import gave the expected ids',
        );

        // The open viewer follows B's hash to its new id instead of highlighting what now holds B's old id (A).
        const ref = await refreshed;
        assert.equal(ref.highlighted, true);
        assert.equal(ref.focusHash, msgB.hash, 'the refreshed viewer still highlights B');
        assert.equal(ref.focusText, msgB.body);

        // Opening the old link of A: the viewer opens at A's new id, highlighted, and says it moved.
        const shownA = a.testHooks.waitForViewer(c, newA, 30_000);
        await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(oldA));
        const ackA = await shownA;
        assert.equal(ackA.highlighted, true);
        assert.equal(ackA.focusHash, msgA.hash, 'the highlighted message is the cited one (by hash)');
        assert.equal(ackA.focusText, msgA.body);
        assert.match(ackA.notice ?? '', /moved after a re-import/);
        const outA = a.testHooks
          .citationOutcomes()
          .filter((o) => o.ref.messageId === msgA.id)
          .pop();
        assert.equal(outA?.status, 'moved');
        assert.deepEqual(outA?.opened, { conversationId: c, messageId: newA });
        assert.ok(
          a.testHooks.receivedUris().some((u) => u.includes(`/c/${c}/at/${msgA.id}`)),
          'through the URI handler',
        );

        // Opening the old link of the dropped message: said to be gone, and no viewer at what holds its id now (B).
        const wrong = a.testHooks.waitForViewer(c, r.dropped.id, 3_000).then(
          (e) => e,
          () => undefined,
        );
        const before = a.testHooks.citationOutcomes().length;
        await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(oldDropped));
        const gone = await waitFor('the gone citation to be resolved', () =>
          a.testHooks
            .citationOutcomes()
            .slice(before)
            .find((o) => o.ref.messageId === r.dropped.id),
        );
        assert.equal(gone.status, 'gone');
        assert.equal(gone.opened, undefined);
        assert.match(gone.note ?? '', /this message is no longer in the archive; it was message \d+/);
        const shownWrong = await wrong;
        assert.ok(
          !shownWrong || shownWrong.focusHash === msgB.hash,
          'never highlights another message as the gone one',
        );

        // Hovers over the old links say what happened.
        const doc = await vscode.workspace.openTextDocument({
          language: 'markdown',
          content: `${oldA}\n${oldDropped}\n`,
        });
        const hoverText = async (line: number) => {
          const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
            'vscode.executeHoverProvider',
            doc.uri,
            new vscode.Position(line, 12),
          );
          return (
            hovers
              .flatMap((h) => h.contents)
              .map((x) => (typeof x === 'string' ? x : 'value' in x ? x.value : ''))
              .join('\n')
              // appendText escapes markdown: spaces as &nbsp;, punctuation with backslashes
              .replace(/&nbsp;/g, ' ')
              .replace(/\\([\\`*_{}[\]()#+\-.!])/g, '$1')
          );
        };
        const hA = await hoverText(0);
        assert.match(hA, /moved after a re-import/, hA.slice(0, 400));
        assert.ok(hA.includes(msgA.body), 'the hover previews the cited message');
        const hGone = await hoverText(1);
        assert.match(hGone, /no longer in the archive/, hGone.slice(0, 400));
      } finally {
        await config.update('archivePath', previous, vscode.ConfigurationTarget.Workspace);
        await a.testHooks.settled();
      }
    });
  });
}
