/** Integration suite: journal days and "on this day" — through VS Code's MCP client, the command and the viewer. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api } from './env';
import { invokeEventually } from './tools-helpers';

export function defineJournal(m: Manifest): void {
  describe('journal days, on this day and the viewer digest', () => {
    const { day, digest, dayMessages } = m.curated.journal;

    it("get_journal_day through VS Code's MCP client counts the day and carries its digest", async () => {
      // What VS Code hands the model: the structuredContent JSON.
      // invokeEventually: an earlier suite's settings change may still be restarting the server.
      const text = await invokeEventually(
        'get_journal_day',
        { day },
        (t) => t.startsWith('{'),
        'get_journal_day answers',
      );
      const r = JSON.parse(text) as {
        day: string;
        message_count: number;
        digest: { summary: string; stale: boolean } | null;
        messages: unknown[];
      };
      assert.equal(r.day, day);
      assert.equal(r.message_count, dayMessages);
      assert.equal(r.messages.length, dayMessages);
      assert.equal(r.digest?.summary, digest);
      assert.equal(r.digest?.stale, false);
    });

    it('msgbrowse.onThisDay(date) answers with the earlier year of that day, citing its messages', async () => {
      const later = `${Number(day.slice(0, 4)) + 3}${day.slice(4)}`;
      const r = (await vscode.commands.executeCommand('msgbrowse.onThisDay', later)) as {
        years: { year: number; day: string; messages: { message_id: number; link: string }[] }[];
      };
      assert.equal(r.years[0]?.day, day);
      assert.ok(r.years[0].messages.length > 0 && r.years[0].messages.length <= 5);
      for (const h of r.years[0].messages)
        assert.match(
          h.link,
          new RegExp(`^${vscode.env.uriScheme}://msgbrowse\\.msgbrowse-vscode/c/\\d+/at/${h.message_id}\\?h=`),
        );
      await assert.rejects(
        Promise.resolve(vscode.commands.executeCommand('msgbrowse.onThisDay', '2023-02-30')),
        /YYYY-MM-DD|calendar/,
      );
    });

    it("the viewer shows the journal digest of the opened message's day", async () => {
      const a = await api();
      const shown = a.testHooks.waitForViewer(m.curated.lease.conversationId, m.curated.lease.id, 30_000);
      await vscode.commands.executeCommand(
        'msgbrowse.openCitation',
        m.curated.lease.conversationId,
        m.curated.lease.id,
      );
      const ack = await shown;
      assert.ok(ack.digestText?.includes(digest), `digest box: ${ack.digestText}`);
      assert.ok(ack.digestText?.includes(day));
    });
  });
}
