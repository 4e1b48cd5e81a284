/** Integration suite: tools through VS Code's MCP client. Registered in order by tests.ts. */
import * as assert from 'node:assert/strict';
import type { IntegrationManifest as Manifest } from './env';
import { invoke, citation } from './tools-helpers';

export function defineTools(m: Manifest): void {
  describe("tools through VS Code's MCP client", () => {
    it('list_conversations through vscode.lm.invokeTool returns the fixture conversations', async () => {
      const text = await invoke('list_conversations', {});
      for (const name of new Set(m.curated.conversationNames)) {
        if (name) assert.ok(text.includes(name), `conversation "${name}" missing from: ${text.slice(0, 400)}`);
      }
    });

    it('search_messages finds the lease message and cites it with our URI scheme', async () => {
      const text = await invoke('search_messages', { query: 'lease agreement' });
      assert.ok(text.includes(citation(m.curated.lease.conversationId, m.curated.lease.id)), text.slice(0, 800));
    });

    it('semantic_search ranks the exact-embedding message first (configured endpoint)', async () => {
      const text = await invoke('semantic_search', { query: m.curated.lease.body, k: 3 });
      const link = citation(m.curated.lease.conversationId, m.curated.lease.id);
      assert.ok(text.includes(link), text.slice(0, 800));
      const first = /(?:[a-z-]+):\/\/msgbrowse\.msgbrowse-vscode\/c\/\d+\/at\/\d+/.exec(text)?.[0];
      assert.equal(first, link);
    });

    it('get_context returns the message and its neighbours', async () => {
      const text = await invoke('get_context', { message_id: m.curated.lease.id, window: 2 });
      assert.ok(text.includes(m.curated.lease.body), text.slice(0, 600));
    });
  });
}
