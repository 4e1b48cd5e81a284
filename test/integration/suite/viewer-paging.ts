/** Integration suite: viewer paging and find (demo archive). Registered in order by tests.ts. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';

export function defineViewerPaging(m: Manifest): void {
  describe('viewer paging and find (demo archive)', () => {
    // Runs on the demo archive (its longest conversation spans several pages).
    before(async () => {
      const a = await api();
      const demo = (await vscode.commands.executeCommand('msgbrowse.openDemoArchive')) as string;
      await waitFor('the demo archive', () => {
        const s = a.state();
        return (s.kind === 'ready' && s.path === demo) || undefined;
      });
    });

    it('the viewer scrolls lazily through a whole conversation, both ways', async () => {
      const a = await api();
      const c = m.demo.longest;
      let shown = a.testHooks.waitForViewer(c.id, 0, 30_000);
      await vscode.commands.executeCommand('msgbrowse.openConversation', c.id);
      const first = await shown;
      assert.ok(first.rendered < c.messageCount, 'starts with one page, not the whole conversation');
      let page = await a.testHooks.scrollViewer(c.id, 'top');
      for (let i = 0; page.hasMore && i < 50; i++) page = await a.testHooks.scrollViewer(c.id, 'top');
      assert.equal(page.hasMore, false);
      assert.equal(page.firstId, c.firstId, 'reached the first message');
      assert.equal(page.rendered, c.messageCount, 'every message rendered once');

      shown = a.testHooks.waitForViewer(c.id, c.firstId, 30_000);
      await vscode.commands.executeCommand('msgbrowse.openCitation', c.id, c.firstId);
      const atFirst = await shown;
      assert.ok(atFirst.rendered < c.messageCount);
      page = await a.testHooks.scrollViewer(c.id, 'bottom');
      for (let i = 0; page.hasMore && i < 50; i++) page = await a.testHooks.scrollViewer(c.id, 'bottom');
      assert.equal(page.lastId, c.lastId, 'reached the last message');
      assert.equal(page.rendered, c.messageCount);
    });

    it('find-in-conversation jumps to a match outside the loaded page and highlights it', async () => {
      const a = await api();
      const c = m.demo.longest;
      assert.ok(c.firstWord, 'a word to look for');
      const shown = a.testHooks.waitForViewer(c.id, 0, 30_000);
      await vscode.commands.executeCommand('msgbrowse.openConversation', c.id);
      const tail = await shown;
      assert.ok(tail.rendered < c.messageCount, 'only the latest page is loaded');
      const found = await a.testHooks.findInViewer(c.id, c.firstWord);
      assert.ok(found.count >= 1);
      assert.equal(found.currentId, c.firstId, 'the earliest match is the first message');
      assert.equal(found.highlighted, true);
      const none = await a.testHooks.findInViewer(c.id, 'zzqxjv');
      assert.equal(none.count, 0);
    });
  });
}
