/**
 * Integration suite: "What Copilot Has Seen" — a tool call made through VS Code's MCP client lands in the disclosure
 * ledger (a JSON line in the extension's global storage) and in the view's tree, whose message rows open the viewer;
 * Show Server Status names the privacy settings and the ledger; the clear command empties both. Registered after
 * 'tools' by tests.ts, while the curated archive is served.
 */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';
import { invoke } from './tools-helpers';

export function defineDisclosures(m: Manifest): void {
  describe('What Copilot Has Seen (the disclosure ledger)', () => {
    it("the ledger view lists a tool call made through VS Code's MCP client, with the messages it returned", async () => {
      const a = await api();
      assert.equal(await vscode.commands.executeCommand('msgbrowse.clearLedger', { confirm: false }), true);
      assert.deepEqual(await a.testHooks.disclosures(), []);

      const text = await invoke('search_messages', { query: 'lease agreement' });
      assert.ok(text.includes(`/at/${m.curated.lease.id}?h=`), text.slice(0, 400));

      const lease = m.curated.lease;
      const calls = await waitFor('the call in the ledger view', async () => {
        const rows = await a.testHooks.disclosures();
        return rows.length > 0 ? rows : undefined;
      });
      assert.equal(calls.length, 1, JSON.stringify(calls));
      const call = calls[0];
      assert.match(call.label, /^search_messages query: "lease agreement"/);
      assert.match(call.description ?? '', / · \d+ messages? · /);
      const row = call.children?.find((c) => c.command?.arguments?.[1] === lease.id);
      assert.ok(row, `the lease message among ${JSON.stringify(call.children)}`);
      assert.deepEqual(row.command, {
        command: 'msgbrowse.openCitation',
        arguments: [lease.conversationId, lease.id, lease.hash.slice(0, 16)],
      });
      assert.ok(row.label.includes(' · ') && row.label.includes(lease.body.slice(0, 20)), row.label);

      // The file: one JSON line, in global storage, never beside the archive.
      const file = a.testHooks.ledgerFile();
      assert.ok(!file.startsWith(path.dirname(m.curated.path) + path.sep), file);
      const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
      const last = JSON.parse(lines[lines.length - 1]) as {
        v: number;
        kind: string;
        name: string;
        arguments: { query: string };
        ok: boolean;
        client?: { name: string };
        messages: { hash: string; message_id: number }[];
      };
      assert.equal(last.v, 1);
      assert.equal(last.kind, 'tool');
      assert.equal(last.name, 'search_messages');
      assert.equal(last.arguments.query, 'lease agreement');
      assert.equal(last.ok, true);
      assert.ok(last.client?.name, `the MCP client named itself: ${JSON.stringify(last.client)}`);
      assert.ok(
        last.messages.some((x) => x.hash === lease.hash && x.message_id === lease.id),
        JSON.stringify(last.messages),
      );
      assert.equal(call.children?.length, last.messages.length);

      // A message row opens the viewer at that message.
      const shown = a.testHooks.waitForViewer(lease.conversationId, lease.id, 30_000);
      await vscode.commands.executeCommand(row.command.command, ...(row.command.arguments ?? []));
      const s = await shown;
      assert.equal(s.focusHash, lease.hash);
      assert.equal(s.highlighted, true);
    });

    it('Show Server Status names the exclusions, the redaction mode and the ledger; clearing empties view and file', async () => {
      const a = await api();
      const report = (await vscode.commands.executeCommand('msgbrowse.showStatus', { quiet: true })) as ReturnType<
        typeof a.testHooks.status
      >;
      assert.deepEqual(report.privacy, { exclusions: [], redact: true, ledgerFile: a.testHooks.ledgerFile() });
      assert.equal(await vscode.commands.executeCommand('msgbrowse.clearLedger', { confirm: false }), true);
      assert.deepEqual(await a.testHooks.disclosures(), []);
      assert.ok(!fs.existsSync(a.testHooks.ledgerFile()));
    });
  });
}
