/** What the test runner (runTest.ts) tells the suite running inside the extension host. */
export interface IntegrationManifest {
  workspace: string;
  /** Where the suite writes its IntegrationResults. */
  resultsFile: string;
  /** The curated fixture archive (the workspace's initial msgbrowse.archivePath). */
  curated: {
    path: string;
    conversations: number;
    messages: number;
    conversationNames: string[];
    lease: { id: number; conversationId: number; body: string; hash: string };
    script: { id: number; conversationId: number; body: string; hash: string };
    /** An image attachment whose file exists under the archive root (created by prepare). */
    image: { id: number; conversationId: number };
    embedModel: string;
    /** The lease message's day (YYYY-MM-DD) and the journal digest msgbrowse wrote for it. */
    journal: { day: string; digest: string; dayMessages: number };
  };
  /** Facts of the demo archive (media/demo/msgbrowse.sqlite.gz is generated from the same builder). */
  demo: {
    conversations: number;
    messages: number;
    /** The longest conversation, for paging through the viewer. */
    longest: { id: number; messageCount: number; firstId: number; lastId: number; firstWord: string };
  };
  /**
   * A copy of the curated archive for live resources: the suite serves it, lets VS Code subscribe to the conversation
   * `conversationId`, then appends a message to it with `writer` (`node …args <body>`, in `cwd`) as msgbrowse would.
   */
  liveResources: { path: string; conversationId: number; writer: { node: string; cwd: string; args: string[] } };
  /** A copy of the curated archive that the file-replacement test overwrites with the second archive. */
  live: string;
  /**
   * An archive whose conversation is re-imported the way msgbrowse does it (test/fixtures/reimport.ts): `path` is
   * served; `writer` re-imports it in place as a separate process (`node …args`, in `cwd`), as msgbrowse would while
   * the extension reads; `after` is a copy of the same archive already re-imported (what the ids become).
   */
  reimport: {
    path: string;
    after: string;
    writer: { node: string; cwd: string; args: string[] };
    conversationId: number;
    /** The conversation's messages before the re-import, oldest first. */
    before: { id: number; hash: string; body: string }[];
    /** Where each hash is after the re-import (absent: gone). */
    afterIds: Record<string, number>;
    dropped: { id: number; hash: string };
    inserted: { id: number; hash: string };
  };
  /** A second archive the settings-change test switches to. */
  second: {
    path: string;
    conversations: number;
    conversationName: string;
    messageCount: number;
    bodies: string[];
  };
  copilotHarness: CopilotHarnessManifest;
  /**
   * The same journal archive (people, facts, digests, reactions, vectors of `curated.embedModel`) as msgbrowse v16 and
   * v20 wrote it, and as a future msgbrowse (v23) would: every tool must answer the same on each.
   */
  schemas: { v16: string; v20: string; v23: string; reacted: { id: number; hash: string }; cabin: { id: number } };
  /**
   * A real-size archive (400 conversations over ten years, 5% long messages, vectors of `curated.embedModel`): what
   * the agent receives of each tool there must fit VS Code's inline limit.
   */
  realSize: { path: string; conversations: number; largest: { id: number; messages: number }; word: string };
  /** The secrets archive (test/fixtures/secrets.ts): `code` is a one-time code in a message `query` finds. */
  secrets: { path: string; code: string; query: string };
}

/**
 * The Copilot harness check (suite/copilot-harness.ts): a Node ≥ 22 binary and the Copilot SDK bundled with the
 * test host (code-server's lib/vscode/node_modules/@github/copilot-sdk), or why they are missing.
 */
export interface CopilotHarnessManifest {
  node?: string;
  sdk?: string;
  /** The SDK's package.json version and the runtime (copilot-cli) version it pins. */
  sdkVersion?: string;
  runtimeVersion?: string;
  missing?: string;
  /** The check script (plain ESM, run with `node`). */
  script: string;
}

export interface IntegrationResults {
  passed: number;
  failed: number;
  failures: { title: string; error: string }[];
}

export const MANIFEST_ENV = 'MSGBROWSE_IT_MANIFEST';
