/**
 * Test-only hooks: attached to activate()'s exports (as `testHooks`, beside the public MsgbrowseApi) only when the
 * extension runs under its own integration tests — VS Code reports ExtensionMode.Test (the extension was loaded
 * with --extensionDevelopmentPath and --extensionTestsPath) AND the runner set TEST_HOOKS_ENV=1
 * (test/integration/runTest.ts, extensionTestsEnv). An installed extension (ExtensionMode.Production) never has
 * them, whatever the environment. Imported by the suite (test/integration/suite/env.ts) and the runner; types and
 * plain constants only, so it loads outside the extension host.
 */
import type { MsgbrowseApi } from './api';
import type { StatusReport } from './commands/show-status';
import type { LedgerRow } from './ledger-view';
import type { EndpointInfo } from './mcp-endpoint';
import type { CitationOutcome } from './viewer/viewer-manager';
import type { FoundEvent, PagedEvent, ShownEvent } from './viewer/viewer-panel';

export type { CitationOutcome, EndpointInfo, FoundEvent, LedgerRow, PagedEvent, ShownEvent, StatusReport };

/** Set to `1` in the extension host's environment by the integration runner. */
export const TEST_HOOKS_ENV = 'MSGBROWSE_TEST_HOOKS';

/** Whether to attach the hooks: under tests (ExtensionMode.Test) and asked for by the runner. */
export function testHooksWanted(isTestMode: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return isTestMode && env[TEST_HOOKS_ENV] === '1';
}

/** A request the in-process MCP server answered or a notification it sent (prompts, completions, resources). */
export interface McpTrafficRecord {
  direction: 'in' | 'out';
  method: string;
  subject?: string;
  client?: string;
}

export interface MsgbrowseTestHooks {
  /** Prompt, completion and resource requests answered and resource notifications sent, oldest first. */
  mcpTraffic(): McpTrafficRecord[];
  /** Name of the per-session secret header of the in-process MCP endpoint. */
  readonly secretHeader: string;
  /** The MCP definition version (changes with the served archive, its content, the settings). */
  definitionVersion(): string;
  endpoint(): EndpointInfo | undefined;
  ensureEndpoint(): Promise<EndpointInfo>;
  /** How often VS Code called provideMcpServerDefinitions / resolveMcpServerDefinition (undefined: no MCP API). */
  providerCalls(): { provided: number; resolved: number } | undefined;
  /**
   * What provideMcpServerDefinitions returns right now, as plain data (the stdio bridge definition), for projecting
   * it the way VS Code does for the Copilot harness.
   */
  mcpDefinitions(): Promise<ProvidedStdioDefinition[] | undefined>;
  /** Waits until pending settings changes have been applied. */
  settled(): Promise<void>;
  waitForViewer(conversationId: number, messageId: number, timeoutMs?: number): Promise<ShownEvent>;
  openViewers(): number[];
  /** Scrolls the viewer to an edge and resolves with the page it then loaded (infinite scroll). */
  scrollViewer(conversationId: number, edge: 'top' | 'bottom'): Promise<PagedEvent>;
  /** Find-in-conversation in an open viewer (as typed into its find box). */
  findInViewer(conversationId: number, query: string): Promise<FoundEvent>;
  /** How every citation opened so far resolved (exact / moved / gone / unchecked), oldest first. */
  citationOutcomes(): CitationOutcome[];
  /** Every URI the citation URI handler received. */
  receivedUris(): string[];
  /** What `msgbrowse.showStatus` reports. */
  status(): StatusReport;
  /** The disclosure ledger file (in the extension's global storage). */
  ledgerFile(): string;
  /** "What Copilot Has Seen" as its tree provider gives it: calls newest first, each with its message rows. */
  disclosures(): Promise<LedgerRow[]>;
  /** Where archive queries run: the engine worker thread, or the extension host thread (dev fallback). */
  engine(): 'worker' | 'in-thread';
  /** Serves answers of up to `bytes` regardless of VS Code's threshold (undefined: follow it again). */
  overrideAnswerBudget(bytes: number | undefined): Promise<void>;
}

/** A McpStdioServerDefinition's fields as returned by the provider. */
export interface ProvidedStdioDefinition {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string | null>;
  cwd?: string;
  version?: string;
}

/** activate()'s exports under the integration tests. */
export interface MsgbrowseTestExports extends MsgbrowseApi {
  readonly testHooks: MsgbrowseTestHooks;
}
