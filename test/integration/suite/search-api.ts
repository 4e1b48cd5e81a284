/** Integration suite: palette search and the public API. Registered in order by tests.ts. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type IntegrationManifest as Manifest, api } from './env';
import type { SearchResult } from '../../../src/extension/api';

export function defineSearchApi(m: Manifest): void {
  describe('palette search and the public API', () => {
    it('the search command returns hybrid results', async () => {
      const res = (await vscode.commands.executeCommand('msgbrowse.searchMessages', 'lease agreement')) as
        | SearchResult
        | undefined;
      assert.ok(res && res.hits.length > 0, 'hits');
      assert.ok(res.hits.some((h) => h.message_id === m.curated.lease.id));
      assert.equal(res.semantic.used, true, `semantic half used (${res.semantic.reason ?? ''})`);
      assert.ok(res.hits.every((h) => h.link.startsWith(`${vscode.env.uriScheme}://msgbrowse.msgbrowse-vscode/c/`)));
    });

    it('the public API searches, formats citations and opens them — and carries no test hook', async () => {
      const a = await api();
      assert.equal(a.apiVersion, 1);
      const { testHooks, ...pub } = a;
      assert.ok(testHooks);
      assert.deepEqual(Object.keys(pub).sort(), [
        'apiVersion',
        'citationUri',
        'mcpServerId',
        'onDidChangeState',
        'openCitation',
        'ready',
        'search',
        'state',
      ]);
      const res = await a.search('lease agreement');
      const hit = res.hits.find((h) => h.message_id === m.curated.lease.id);
      assert.ok(hit, 'the lease message is among the hits');
      assert.equal(a.citationUri(hit), hit.link, 'the API formats citations as the tools do');
      assert.equal(
        a.citationUri({ conversationId: hit.conversation_id, messageId: hit.message_id, hash: hit.hash.slice(0, 16) }),
        hit.link,
      );
      assert.match(hit.link, /\?h=[0-9a-f]{16}$/, 'the link carries the hash anchor');
      const shown = a.testHooks.waitForViewer(hit.conversation_id, hit.message_id, 30_000);
      a.openCitation(hit);
      assert.equal((await shown).highlighted, true);
      assert.throws(() => a.openCitation({ conversationId: 1.5, messageId: 2 }), TypeError);
    });
  });
}
