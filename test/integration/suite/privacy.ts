/**
 * Integration suite: `msgbrowse.privacy.excludeConversations` in the real extension host — set in the settings, it
 * hides a conversation from Copilot's tools on the next call (no reload, no restart), while the person's own palette
 * search still finds it; cleared, the conversation is back.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api } from './env';
import { citation, invoke, invokeEventually } from './tools-helpers';

interface PaletteResult {
  hits: { message_id: number; conversation: string; source: string }[];
}

export function definePrivacy(m: Manifest): void {
  describe('conversations hidden from Copilot (msgbrowse.privacy.excludeConversations)', () => {
    const config = () => vscode.workspace.getConfiguration('msgbrowse');
    after(async () => {
      await config().update('privacy.excludeConversations', undefined, vscode.ConfigurationTarget.Global);
    });

    it('takes effect without a reload: the tools no longer see it, the palette still does; clearing it brings it back', async () => {
      const lease = m.curated.lease;
      const link = citation(lease.conversationId, lease.id);
      const before = (await vscode.commands.executeCommand<PaletteResult>(
        'msgbrowse.searchMessages',
        'lease agreement',
      ))!;
      const hit = before.hits.find((h) => h.message_id === lease.id);
      assert.ok(hit, 'the palette finds the lease message');
      assert.ok((await invoke('search_messages', { query: 'lease agreement' })).includes(link));

      await config().update(
        'privacy.excludeConversations',
        [`${hit.source}:${hit.conversation}`],
        vscode.ConfigurationTarget.Global,
      );
      // The conversation's name may also be a sender's (a 1:1 chat): look for the conversation itself, by id and link.
      const shows = (t: string) =>
        t.includes(`/c/${lease.conversationId}/at/`) ||
        t.includes(`"conversation_id":${lease.conversationId},`) ||
        t.includes(`conversation_id ${lease.conversationId})`);
      const hidden = await invokeEventually(
        'search_messages',
        { query: 'lease agreement' },
        (t) => !t.includes(link),
        'search_messages without the hidden conversation',
      );
      assert.ok(!shows(hidden) && !hidden.includes(lease.hash.slice(0, 12)), hidden.slice(0, 600));
      const ctx = await invoke('get_context', { message_id: lease.id, window: 2 });
      assert.ok(!ctx.includes(lease.body) && !shows(ctx), ctx.slice(0, 600));
      const list = await invoke('list_conversations', {});
      assert.ok(!shows(list), list.slice(0, 800));

      const palette = (await vscode.commands.executeCommand<PaletteResult>(
        'msgbrowse.searchMessages',
        'lease agreement',
      ))!;
      assert.ok(
        palette.hits.some((h) => h.message_id === lease.id),
        'the person’s palette search still finds it',
      );
      // Other extensions may hand what the API returns to a model: the API searches what a model may see.
      const fromApi = await (await api()).search('lease agreement');
      assert.ok(
        !fromApi.hits.some((h) => h.message_id === lease.id || h.conversation_id === lease.conversationId),
        'the extension API leaves the hidden conversation out',
      );

      await config().update('privacy.excludeConversations', undefined, vscode.ConfigurationTarget.Global);
      await invokeEventually(
        'search_messages',
        { query: 'lease agreement' },
        (t) => t.includes(link),
        'search_messages with the conversation back',
      );
    });

    it('an entry typed from memory still hides its conversation, one that matches nothing is said (Show Server Status)', async () => {
      const lease = m.curated.lease;
      const link = citation(lease.conversationId, lease.id);
      const palette = (await vscode.commands.executeCommand<PaletteResult>(
        'msgbrowse.searchMessages',
        'lease agreement',
      ))!;
      const name = palette.hits.find((h) => h.message_id === lease.id)?.conversation ?? '';
      assert.ok(name, 'the palette names the lease conversation');
      await config().update(
        'privacy.excludeConversations',
        [` ${name.toUpperCase()} `, 'no such chat at all'],
        vscode.ConfigurationTarget.Global,
      );
      await invokeEventually(
        'search_messages',
        { query: 'lease agreement' },
        (t) => !t.includes(link),
        'the upper-case entry with spaces hiding the conversation',
      );
      const report = (await vscode.commands.executeCommand('msgbrowse.showStatus', { quiet: true })) as {
        exclusions: { entry: string; matched: { name: string }[]; closest: string[] }[];
      };
      assert.deepEqual(
        report.exclusions.map((x) => [x.entry, x.matched.map((c) => c.name)]),
        [
          [name.toUpperCase(), [name]],
          ['no such chat at all', []],
        ],
      );
      await config().update('privacy.excludeConversations', undefined, vscode.ConfigurationTarget.Global);
      await invokeEventually(
        'search_messages',
        { query: 'lease agreement' },
        (t) => t.includes(link),
        'the conversation back',
      );
    });

    it('msgbrowse.privacy.redact applies to the next tool call both ways, without a reload', async () => {
      const a = await api();
      const s = m.secrets;
      await vscode.commands.executeCommand('msgbrowse.selectArchive', s.path);
      try {
        const served = (t: string) => t.includes(s.code);
        // On (the default): the code is a label.
        const on = await invokeEventually(
          'search_messages',
          { query: s.query },
          (t) => t.includes('[redacted: one-time code]'),
          'the secrets archive, redacted',
        );
        assert.ok(!served(on));
        await config().update('privacy.redact', false, vscode.ConfigurationTarget.Global);
        await invokeEventually('search_messages', { query: s.query }, served, 'redaction off reaching the server');
        // Back on — the dangerous direction: the running server must stop sending the code.
        await config().update('privacy.redact', undefined, vscode.ConfigurationTarget.Global);
        const again = await invokeEventually(
          'search_messages',
          { query: s.query },
          (t) => !served(t),
          'redaction on reaching the server',
        );
        assert.ok(again.includes('[redacted: one-time code]'));
        assert.equal(a.testHooks.status().privacy.redact, true, 'the status says what the server does');
      } finally {
        await config().update('privacy.redact', undefined, vscode.ConfigurationTarget.Global);
        await vscode.commands.executeCommand('msgbrowse.selectArchive', m.curated.path);
      }
    });
  });
}
