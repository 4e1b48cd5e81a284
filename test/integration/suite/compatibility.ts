/**
 * Integration suite: archives msgbrowse writes today (v20) and will write (a future v23) are served by the real
 * extension exactly as the same conversations at v16, and the status says when an archive is newer than tested.
 * Registered in order by tests.ts; it leaves the curated archive served.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';
import { invokeEventually, type ToolName } from './tools-helpers';

export function defineCompatibility(m: Manifest): void {
  const s = m.schemas;
  const calls: [ToolName, object][] = [
    ['list_conversations', {}],
    ['get_conversation', { name: 'Maya' }],
    ['search_messages', { query: 'observatory' }],
    ['semantic_search', { query: 'the cabin in the woods', k: 5 }],
    ['get_context', { message_id: s.reacted.id, hash: s.reacted.hash.slice(0, 16), window: 2 }],
    ['list_media', {}],
    ['list_links', {}],
    ['get_journal_day', { day: '2023-05-01' }],
    ['on_this_day', { date: '2026-07-25' }],
    ['search_contacts', { query: 'maya' }],
    ['get_contact', { name: 'Maya' }],
  ];

  async function serve(file: string): Promise<{ notice?: string }> {
    const a = await api();
    await vscode.commands.executeCommand('msgbrowse.selectArchive', file);
    // Served with its vector index ready, so search_messages is hybrid on every version alike.
    await waitFor(`${file} to be served with semantic search ready`, () => {
      const st = a.state();
      return (st.kind === 'ready' && st.path === file && st.status.semantic.ready) || undefined;
    });
    const report = (await vscode.commands.executeCommand('msgbrowse.showStatus', { quiet: true })) as {
      archivePath?: string;
      schemaNotice?: string;
    };
    assert.equal(report.archivePath, file);
    return { notice: report.schemaNotice };
  }

  async function answers(file: string): Promise<string[]> {
    await serve(file);
    const out: string[] = [];
    for (const [tool, input] of calls)
      out.push(await invokeEventually(tool, input, (t) => !t.startsWith('error:'), `${tool} on ${file}`));
    return out;
  }

  describe('archives msgbrowse writes today (v20) and tomorrow (v23)', () => {
    after(async () => {
      await serve(m.curated.path);
    });

    it('v20 and a future v23 answer every tool exactly as the same conversations at v16; only v23 carries a notice', async () => {
      const v16 = await answers(s.v16);
      assert.ok(
        v16.every((t) => !/isError|cannot be served|newer than/.test(t)),
        v16.join('\n').slice(0, 800),
      );
      assert.match(v16[2], /observatory/);
      for (const file of [s.v20, s.v23]) {
        const got = await answers(file);
        for (const [i, [tool]] of calls.entries()) assert.equal(got[i], v16[i], `${tool} on ${file}`);
      }
      assert.equal((await serve(s.v20)).notice, undefined);
      assert.equal(
        (await serve(s.v23)).notice,
        'schema v23 — newer than v20, the newest this version was tested with; reading the tables it knows',
      );
      const st = (await api()).state();
      assert.ok(st.kind === 'ready' && st.status.notice?.includes('newer than v20'));
    });
  });
}
