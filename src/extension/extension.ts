/**
 * msgbrowse for VS Code: serves a msgbrowse archive to Copilot through an in-process MCP server, opens citations
 * in a conversation viewer, and searches from the palette. Everything disposable goes to context.subscriptions.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { workerOpener } from '../mcp/runtime';
import { ArchiveService, type ArchiveState } from './archiveService';
import { CitationLinkProvider } from './citationLinks';
import { openCitation, registerCommands, type StatusReport } from './commands';
import { citationUri } from './citations';
import { CONFIG_SECTION, MCP_SERVER_ID, SECRET_HEADER } from './constants';
import { ConversationsView } from './conversationsView';
import { McpEndpoint, type EndpointInfo } from './mcpEndpoint';
import { mcpApiAvailable, McpProvider } from './mcpProvider';
import { defaultRuntimeFactory, type RuntimeFactory } from './runtime';
import { SearchService, type SearchResult } from './searchService';
import { affectsRuntime } from './settings';
import { createStatusBar } from './statusBar';
import { CitationUriHandler } from './uriHandler';
import { ViewerManager, type FoundEvent, type PagedEvent, type ShownEvent } from './viewer/panel';

/** Returned from activate(): a small API for integration tests and other extensions. */
export interface MsgbrowseApi {
  readonly mcpServerId: string;
  readonly secretHeader: string;
  /** Resolves once the first archive resolution/open attempt has finished. */
  ready: Promise<void>;
  state(): ArchiveState;
  archivePath(): string | undefined;
  definitionVersion(): string;
  endpoint(): EndpointInfo | undefined;
  ensureEndpoint(): Promise<EndpointInfo>;
  providerCalls(): { provided: number; resolved: number } | undefined;
  /** Waits until pending settings changes have been applied. */
  settled(): Promise<void>;
  search(query: string): Promise<SearchResult>;
  waitForViewer(conversationId: number, messageId: number, timeoutMs?: number): Promise<ShownEvent>;
  openViewers(): number[];
  /** Scrolls the viewer to an edge and resolves with the page it then loaded (infinite scroll). */
  scrollViewer(conversationId: number, edge: 'top' | 'bottom'): Promise<PagedEvent>;
  /** Find-in-conversation in an open viewer (as typed into its find box). */
  findInViewer(conversationId: number, query: string): Promise<FoundEvent>;
  receivedUris(): string[];
  status(): StatusReport;
  /** Where archive queries run: the engine worker thread, or the extension host thread (dev fallback). */
  engine(): 'worker' | 'in-thread';
}

export function activate(context: vscode.ExtensionContext): MsgbrowseApi {
  const log = vscode.window.createOutputChannel('msgbrowse', { log: true });
  context.subscriptions.push(log);
  log.info(`activating msgbrowse ${context.extension.packageJSON.version} in ${vscode.env.appName} ${vscode.version}`);

  const scheme = vscode.env.uriScheme;
  // Archive queries and vector scans run in the engine worker so the extension host's event loop stays free.
  const workerScript = path.join(context.extensionPath, 'dist', 'engine-worker.js');
  const openArchive = fs.existsSync(workerScript)
    ? workerOpener({ workerScript, log: (level, message) => log[level](message) })
    : undefined;
  if (!openArchive) log.warn(`engine worker ${workerScript} missing; queries run on the extension host thread`);
  const factory: RuntimeFactory = (o) => defaultRuntimeFactory({ ...o, openArchive });
  const archive = new ArchiveService(context, factory, log, scheme);
  context.subscriptions.push(archive);

  const endpoint = new McpEndpoint(
    archive.context,
    () => (vscode.workspace.getConfiguration(CONFIG_SECTION).get<string>('server.transport', 'auto') === 'tcp' ? 'tcp' : 'auto'),
    log,
  );
  context.subscriptions.push(endpoint);
  shutdown = () => endpoint.stop();

  const mcpApi = mcpApiAvailable();
  let provider: McpProvider | undefined;
  if (mcpApi) {
    provider = new McpProvider(archive, endpoint, log);
    context.subscriptions.push(provider.register());
  } else {
    log.warn('this editor has no vscode.lm.registerMcpServerDefinitionProvider; offering the CLI instead');
    void vscode.window
      .showInformationMessage(
        'msgbrowse: this editor cannot host MCP servers from extensions. Run the bundled msgbrowse-mcp CLI from your MCP client instead.',
        'Copy MCP Config',
      )
      .then((choice) => choice && vscode.commands.executeCommand('msgbrowse.copyMcpConfig'));
  }

  const viewer = new ViewerManager({
    extensionUri: context.extensionUri,
    archive: () => archive.archive(),
    attachmentRoot: () => archive.attachmentRoot(),
    citationUri: (ref) => citationUri(scheme, ref),
    log,
  });
  context.subscriptions.push(viewer);

  const search = new SearchService(archive.context);
  context.subscriptions.push({ dispose: () => void search.dispose() });

  const uriHandler = new CitationUriHandler((ref) => openCitation(viewer, ref), (id) => viewer.open(id), log);
  context.subscriptions.push(vscode.window.registerUriHandler(uriHandler));

  const links = new CitationLinkProvider(() => archive.archive());
  context.subscriptions.push(
    vscode.languages.registerDocumentLinkProvider({ scheme: '*' }, links),
    vscode.languages.registerHoverProvider({ scheme: '*' }, links),
  );

  const conversations = new ConversationsView(archive);
  context.subscriptions.push(conversations, vscode.window.registerTreeDataProvider('msgbrowse.conversations', conversations));

  context.subscriptions.push(createStatusBar(archive), registerCommands({ ext: context, archive, endpoint, search, viewer, log, mcpApi }));

  context.subscriptions.push(
    archive.onDidChange((s) => void vscode.commands.executeCommand('setContext', 'msgbrowse.state', s.kind)),
    // Open viewers re-read their conversation whenever what is served changed (new archive or new content).
    archive.onDidChangeDefinition(() => viewer.refreshAll()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsRuntime(e)) {
        log.info('settings changed; reloading the archive');
        void archive.apply();
      }
      if (e.affectsConfiguration(`${CONFIG_SECTION}.server.transport`)) {
        void endpoint.ensure().then(() => archive.bump());
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      if (!vscode.workspace.getConfiguration(CONFIG_SECTION).get<string>('archivePath')) void archive.apply();
    }),
    context.secrets.onDidChange((e) => {
      if (e.key.startsWith('msgbrowse.')) void archive.apply();
    }),
  );

  void vscode.commands.executeCommand('setContext', 'msgbrowse.state', 'opening');
  const ready = archive.apply().catch((e: unknown) => log.error(`activation: ${e instanceof Error ? e.message : String(e)}`));

  return {
    mcpServerId: MCP_SERVER_ID,
    secretHeader: SECRET_HEADER,
    ready,
    state: () => archive.state,
    archivePath: () => archive.currentPath,
    definitionVersion: () => archive.version,
    endpoint: () => endpoint.current,
    ensureEndpoint: () => endpoint.ensure(),
    providerCalls: () => provider && { provided: provider.provided, resolved: provider.resolved },
    settled: () => archive.apply(),
    search: (q) => search.search(q),
    waitForViewer: (c, m, t) => viewer.waitForShown(c, m, t),
    openViewers: () => viewer.openConversations(),
    scrollViewer: (c, edge) => viewer.scrollEdge(c, edge),
    findInViewer: (c, q) => viewer.find(c, q),
    receivedUris: () => [...uriHandler.received],
    engine: () => (openArchive ? 'worker' : 'in-thread'),
    status: () => ({
      state: archive.state,
      archivePath: archive.currentPath,
      version: archive.version,
      mcpApi,
      endpoint: endpoint.current && { kind: endpoint.current.kind, uri: endpoint.current.uri.toString() },
      sessions: endpoint.sessionCount(),
    }),
  };
}

let shutdown: (() => Promise<void>) | undefined;

/** Closes the MCP listener (and its socket file) before the host goes away; the rest is in context.subscriptions. */
export async function deactivate(): Promise<void> {
  await shutdown?.();
  shutdown = undefined;
}
