// Test hooks, added to activate()'s exports only under ExtensionMode.Test and TEST_HOOKS_ENV=1. The runner and unit
// tests load this file outside the extension host, so it imports vscode-bound modules as types only.
import type * as vscode from 'vscode';
import type { McpServerOptions, McpTrafficEvent } from '../mcp';
import type { MsgbrowseApi } from './api';
import type { ArchiveService } from './archive-service';
import type { StatusReport } from './commands/show-status';
import { SECRET_HEADER } from './constants';
import type { DisclosureLedger } from './disclosure-ledger';
import type { LedgerNode, LedgerView } from './ledger-view';
import type { McpEndpoint } from './mcp-endpoint';
import type { McpProvider } from './mcp-provider';
import type { CitationUriHandler } from './uri-handler';
import type { ViewerManager } from './viewer/viewer-manager';
import { viewerTestHooks } from './viewer/viewer-test-hooks';

export const TEST_HOOKS_ENV = 'MSGBROWSE_TEST_HOOKS';

export function testHooksWanted(isTestMode: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return isTestMode && env[TEST_HOOKS_ENV] === '1';
}

interface TestHookSources {
  archive: ArchiveService;
  endpoint: McpEndpoint;
  mcpOptions: McpServerOptions;
  provider: McpProvider | undefined;
  viewer: ViewerManager;
  uriHandler: CitationUriHandler;
  ledger: DisclosureLedger;
  disclosures: LedgerView;
  engine: 'worker' | 'in-thread';
  status(): StatusReport;
}

export interface ProvidedStdioDefinition {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string | null>;
  cwd?: string;
  version?: string;
}

interface LedgerRow {
  label: string;
  description?: string;
  command?: { command: string; arguments?: unknown[] };
  children?: LedgerRow[];
}

export interface MsgbrowseTestExports extends MsgbrowseApi {
  readonly testHooks: ReturnType<typeof testHooks>;
}

export function testHooks(s: TestHookSources) {
  const { archive, endpoint, provider } = s;
  const traffic: McpTrafficEvent[] = [];
  s.mcpOptions.observe = (e) => {
    traffic.push(e);
    if (traffic.length > 2000) traffic.splice(0, traffic.length - 2000);
  };
  // VS Code calls handlers and providers on the objects it was given: wrapping them observes its calls.
  const received: string[] = [];
  const handleUri = s.uriHandler.handleUri.bind(s.uriHandler);
  s.uriHandler.handleUri = (uri) => {
    received.push(uri.toString());
    handleUri(uri);
  };
  const calls = { provided: 0, resolved: 0 };
  if (provider) {
    const provide = provider.provideMcpServerDefinitions.bind(provider);
    provider.provideMcpServerDefinitions = () => (calls.provided++, provide());
    const resolve = provider.resolveMcpServerDefinition.bind(provider);
    provider.resolveMcpServerDefinition = (def) => (calls.resolved++, resolve(def));
  }
  return {
    secretHeader: SECRET_HEADER,
    definitionVersion: () => archive.version,
    endpoint: () => endpoint.current,
    ensureEndpoint: () => endpoint.ensure(),
    /** undefined: no MCP API. */
    providerCalls: () => (provider ? { ...calls } : undefined),
    mcpDefinitions: async (): Promise<ProvidedStdioDefinition[] | undefined> =>
      provider && (await provider.provideMcpServerDefinitions()).map(plainDefinition),
    settled: () => archive.apply(),
    ...viewerTestHooks(s.viewer),
    receivedUris: () => [...received],
    engine: () => s.engine,
    status: s.status,
    ledgerFile: () => s.ledger.file,
    disclosures: () => ledgerRows(s.disclosures),
    mcpTraffic: (): McpTrafficEvent[] => traffic.map((e) => ({ ...e })),
    /** undefined: follow VS Code's threshold again. */
    overrideAnswerBudget: async (bytes: number | undefined) => {
      await archive.apply();
      if (bytes !== undefined) await archive.runtime.reload({ ...archive.runtime.settings, answerBudget: bytes });
    },
  };
}

function plainDefinition(d: vscode.McpStdioServerDefinition): ProvidedStdioDefinition {
  return {
    label: d.label,
    command: d.command,
    args: [...d.args],
    env: Object.fromEntries(Object.entries(d.env).map(([k, v]) => [k, v === null ? null : String(v)])),
    ...(d.cwd ? { cwd: d.cwd.fsPath } : {}),
    version: d.version,
  };
}

function ledgerRows(view: LedgerView): Promise<LedgerRow[]> {
  const row = async (n: LedgerNode): Promise<LedgerRow> => {
    const item = await view.getTreeItem(n);
    const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    return {
      label,
      ...(typeof item.description === 'string' ? { description: item.description } : {}),
      ...(item.command ? { command: { command: item.command.command, arguments: item.command.arguments } } : {}),
      ...(n.kind === 'call' ? { children: await Promise.all(view.getChildren(n).map(row)) } : {}),
    };
  };
  return Promise.all(view.getChildren().map(row));
}
