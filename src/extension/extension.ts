/** msgbrowse for VS Code: an archive served to Copilot over MCP, a viewer for its citations, palette search. */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { parseCitationHash, prewarmEngine, workerOpener } from '../core';
import { bridgeEndpointFile } from '../transport/bridge-endpoint';
import type { CitationTarget, MsgbrowseApi } from './api';
import { ArchiveService } from './archive-service';
import { CitationDiagnostics } from './citation-diagnostics';
import { CitationLinkProvider } from './citation-link-provider';
import { citationUri, refOf, type CitationRef } from './citation-ref';
import { openCitation, registerCommands, statusReport } from './commands';
import { CONFIG_SECTION, MCP_SERVER_ID } from './constants';
import { ConversationsView } from './conversations-view';
import { currentPrivacy, DisclosureLedger } from './disclosure-ledger';
import { offerJournalExcludes } from './journal-import';
import { LedgerView } from './ledger-view';
import type { McpServerOptions } from '../mcp';
import { McpEndpoint } from './mcp-endpoint';
import { mcpApiAvailable, McpProvider } from './mcp-provider';
import { SearchService } from './search-service';
import { affectsSettings } from './settings';
import { createStatusBar } from './status-bar';
import { type MsgbrowseTestExports, testHooks, testHooksWanted } from './test-api';
import { CitationUriHandler } from './uri-handler';
import { ViewerManager } from './viewer/viewer-manager';

export type { MsgbrowseApi } from './api';

type Log = vscode.LogOutputChannel;

export function activate(context: vscode.ExtensionContext): MsgbrowseApi {
  const log = vscode.window.createOutputChannel('msgbrowse', { log: true });
  context.subscriptions.push(log);
  log.info(`activating msgbrowse ${context.extension.packageJSON.version} in ${vscode.env.appName} ${vscode.version}`);
  const { archive, ledger, engine } = registerArchive(context, log);
  const { endpoint, provider, mcpApi, mcpOptions } = registerMcpServer(context, archive, log);
  const viewer = registerViewer(context, archive, log);
  const { uriHandler, citations } = registerCitations(context, archive, viewer, log);
  const disclosures = registerViews(context, archive, ledger);
  const privacy = () => currentPrivacy(ledger);
  const search = new SearchService(archive.runtime.personal, (c) => archive.isHiddenFromModel(c));
  context.subscriptions.push(
    createStatusBar(archive, privacy),
    registerCommands({ ext: context, archive, endpoint, search, viewer, citations, log, mcpApi, ledger, privacy }),
  );
  registerSettingsListeners(context, archive, endpoint);
  const api = createApi(archive, viewer, startServing(context, archive, log), log);
  if (!testHooksWanted(context.extensionMode === vscode.ExtensionMode.Test)) return api;
  log.info('running under the integration tests: test hooks attached to the API');
  const status = () => statusReport({ archive, endpoint, mcpApi, privacy });
  const sources = { archive, endpoint, mcpOptions, provider, viewer, uriHandler, ledger, disclosures, engine, status };
  const exports: MsgbrowseTestExports = { ...api, testHooks: testHooks(sources) };
  return exports;
}

function registerArchive(context: vscode.ExtensionContext, log: Log) {
  prewarmEngine();
  // Archive queries and vector scans run in the engine worker so the extension host's event loop stays free.
  const workerScript = path.join(context.extensionPath, 'dist', 'engine-worker.js');
  const worker = fs.existsSync(workerScript);
  const openArchive = worker ? workerOpener({ workerScript, log: (level, message) => log[level](message) }) : undefined;
  if (!worker) log.warn(`engine worker ${workerScript} missing; queries run on the extension host thread`);
  // What was served to a model goes to global storage; the writer refuses to write beside the served archive.
  const ledger: DisclosureLedger = new DisclosureLedger(context.globalStorageUri, () => archive.currentPath, log);
  const archive = new ArchiveService(context, log, vscode.env.uriScheme, openArchive, ledger.disclose);
  context.subscriptions.push(archive, ledger);
  return { archive, ledger, engine: worker ? ('worker' as const) : ('in-thread' as const) };
}

function registerMcpServer(context: vscode.ExtensionContext, archive: ArchiveService, log: Log) {
  const mcpOptions: McpServerOptions = {};
  const endpoint = new McpEndpoint(
    archive.runtime.context,
    () => (vscode.workspace.getConfiguration(CONFIG_SECTION).get('server.transport') === 'tcp' ? 'tcp' : 'auto'),
    log,
    // Per machine (global storage, never synced), one file per extension host: each window has its own secret.
    bridgeEndpointFile(path.join(context.globalStorageUri.fsPath, 'mcp-endpoints')),
    mcpOptions,
  );
  context.subscriptions.push(endpoint);
  shutdown = () => endpoint.stop();
  const mcpApi = mcpApiAvailable();
  if (!mcpApi) {
    log.warn('this editor has no vscode.lm.registerMcpServerDefinitionProvider; offering the CLI instead');
    void vscode.window
      .showInformationMessage(
        'msgbrowse: this editor cannot host MCP servers from extensions. Run the bundled msgbrowse-mcp CLI from your MCP client instead.',
        'Copy MCP Config',
      )
      .then((choice) => choice && vscode.commands.executeCommand('msgbrowse.copyMcpConfig'));
    return { endpoint, provider: undefined, mcpApi, mcpOptions };
  }
  const provider = new McpProvider(archive, endpoint, log, context.asAbsolutePath(path.join('dist', 'cli.js')));
  context.subscriptions.push(provider.register());
  return { endpoint, provider, mcpApi, mcpOptions };
}

function registerViewer(context: vscode.ExtensionContext, archive: ArchiveService, log: Log): ViewerManager {
  const viewer = new ViewerManager({
    extensionUri: context.extensionUri,
    archive: () => archive.archive(),
    hiddenFromModel: (c) => archive.isHiddenFromModel(c),
    attachmentRoot: () => archive.attachmentRoot(),
    citationUri: (ref) => citationUri(vscode.env.uriScheme, ref),
    log,
  });
  context.subscriptions.push(
    viewer,
    archive.onDidChangeContent(() => viewer.refreshAll()),
  );
  return viewer;
}

function registerCitations(context: vscode.ExtensionContext, archive: ArchiveService, viewer: ViewerManager, log: Log) {
  const uriHandler = new CitationUriHandler(
    (ref) => openCitation(viewer, ref, false, log),
    (id) => viewer.open(id),
    log,
  );
  const links = new CitationLinkProvider(() => archive.archive());
  const citations = new CitationDiagnostics(() => archive.archive(), log, archive.onDidChangeContent);
  context.subscriptions.push(
    vscode.window.registerUriHandler(uriHandler),
    vscode.languages.registerDocumentLinkProvider({ scheme: '*' }, links),
    vscode.languages.registerHoverProvider({ scheme: '*' }, links),
    citations,
  );
  return { uriHandler, citations };
}

function registerViews(context: vscode.ExtensionContext, archive: ArchiveService, ledger: DisclosureLedger) {
  const conversations = new ConversationsView(archive);
  // Disclosed messages are looked up in the archive itself (not in what is served now), by hash.
  const disclosures = new LedgerView(ledger, () => archive.archive());
  context.subscriptions.push(
    conversations,
    vscode.window.registerTreeDataProvider('msgbrowse.conversations', conversations),
    disclosures,
    vscode.window.registerTreeDataProvider('msgbrowse.disclosures', disclosures),
  );
  return disclosures;
}

function registerSettingsListeners(context: vscode.ExtensionContext, archive: ArchiveService, endpoint: McpEndpoint) {
  context.subscriptions.push(
    archive.onDidChange((s) => void vscode.commands.executeCommand('setContext', 'msgbrowse.state', s.kind)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      // The whole settings go to the runtime, which reopens only when the archive, the model or links changed.
      if (affectsSettings(e)) void archive.apply();
      if (e.affectsConfiguration(`${CONFIG_SECTION}.server.transport`))
        void endpoint.ensure().then(() => archive.bump());
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      if (!vscode.workspace.getConfiguration(CONFIG_SECTION).get<string>('archivePath')) void archive.apply();
    }),
    context.secrets.onDidChange((e) => {
      if (e.key.startsWith('msgbrowse.')) void archive.apply();
    }),
  );
}

/** Resolves (never rejects) once the first attempt finished. */
function startServing(context: vscode.ExtensionContext, archive: ArchiveService, log: Log): Promise<void> {
  void vscode.commands.executeCommand('setContext', 'msgbrowse.state', 'opening');
  const ready = archive
    .apply()
    .catch((e: unknown) => log.error(`activation: ${e instanceof Error ? e.message : String(e)}`));
  if (context.extensionMode !== vscode.ExtensionMode.Test) {
    void ready
      .then(() => offerJournalExcludes(context, log))
      .catch((e: unknown) => log.warn(`journal exclusions: ${e instanceof Error ? e.message : String(e)}`));
  }
  return ready;
}

function createApi(archive: ArchiveService, viewer: ViewerManager, ready: Promise<void>, log: Log): MsgbrowseApi {
  // Other extensions may hand results to a model: they search what a model may see.
  const search = new SearchService(archive.runtime.context, () => false, true);
  return {
    apiVersion: 1,
    mcpServerId: MCP_SERVER_ID,
    ready,
    state: () => archive.state,
    onDidChangeState: archive.onDidChange,
    search: (q) => search.search(q),
    openCitation: (ref, options) => openCitation(viewer, checkedRef(ref), options?.side, log),
    citationUri: (ref) => citationUri(vscode.env.uriScheme, checkedRef(ref)),
  };
}

/** The API's callers are other extensions: refuse what is not a conversation/message id pair up front. */
function checkedRef(target: CitationTarget): CitationRef {
  const ref = 'message_id' in target ? refOf(target) : target;
  if (!Number.isSafeInteger(ref?.conversationId) || !Number.isSafeInteger(ref?.messageId)) {
    throw new TypeError('msgbrowse: a citation is { conversationId, messageId } (or a search hit) with integer ids');
  }
  const hash = parseCitationHash(typeof ref.hash === 'string' ? ref.hash : undefined);
  return { conversationId: ref.conversationId, messageId: ref.messageId, ...(hash ? { hash } : {}) };
}

let shutdown: (() => Promise<void>) | undefined;

/** Closes the MCP listener (and its socket file) before the host goes away. */
export async function deactivate(): Promise<void> {
  await shutdown?.();
  shutdown = undefined;
}
