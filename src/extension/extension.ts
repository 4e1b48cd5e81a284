/**
 * msgbrowse for VS Code: serves a msgbrowse archive to Copilot through an in-process MCP server, opens citations
 * in a conversation viewer, and searches from the palette. Everything disposable goes to context.subscriptions.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { parseCitationHash, prewarmEngine, workerOpener } from '../core';
import { bridgeEndpointFile } from '../transport';
import type { CitationTarget, MsgbrowseApi } from './api';
import { ArchiveService } from './archive-service';
import { CitationDiagnostics } from './citation-diagnostics';
import { CitationLinkProvider } from './citation-link-provider';
import { openCitation, registerCommands, statusReport } from './commands';
import { citationUri, refOf, type CitationRef } from './citation-ref';
import { CONFIG_SECTION, MCP_SERVER_ID, SECRET_HEADER } from './constants';
import { ConversationsView } from './conversations-view';
import { currentPrivacy, DisclosureLedger } from './disclosure-ledger';
import { LedgerView } from './ledger-view';
import { McpEndpoint } from './mcp-endpoint';
import { mcpApiAvailable, McpProvider } from './mcp-provider';
import { SearchService } from './search-service';
import { affectsAnswerBudget, affectsPrivacy, affectsRuntime } from './settings';
import { offerJournalExcludes } from './journal-import';
import { createStatusBar } from './status-bar';
import type { McpTrafficEvent } from '../mcp';
import { testHooksWanted, type MsgbrowseTestExports, type MsgbrowseTestHooks } from './test-api';
import { CitationUriHandler } from './uri-handler';
import { ViewerManager } from './viewer/viewer-manager';
import { viewerTestHooks } from './viewer/viewer-test-hooks';

export type { MsgbrowseApi } from './api';

/** Returns the public MsgbrowseApi; under the integration tests only, with test hooks attached (see test-api.ts). */
export function activate(context: vscode.ExtensionContext): MsgbrowseApi {
  const log = vscode.window.createOutputChannel('msgbrowse', { log: true });
  context.subscriptions.push(log);
  log.info(`activating msgbrowse ${context.extension.packageJSON.version} in ${vscode.env.appName} ${vscode.version}`);

  // Start warm: compile the WASM engine now, while activation goes on; the engine worker instantiates it.
  prewarmEngine();
  const scheme = vscode.env.uriScheme;
  // Archive queries and vector scans run in the engine worker so the extension host's event loop stays free.
  const workerScript = path.join(context.extensionPath, 'dist', 'engine-worker.js');
  const openArchive = fs.existsSync(workerScript)
    ? workerOpener({ workerScript, log: (level, message) => log[level](message) })
    : undefined;
  if (!openArchive) log.warn(`engine worker ${workerScript} missing; queries run on the extension host thread`);
  // What every tool call and resource read served to a model: a JSON line in global storage (never beside the archive).
  // The writer refuses to write beside the served archive (asked per line; `archive` exists by the first call).
  const ledger: DisclosureLedger = new DisclosureLedger(
    context.globalStorageUri,
    (): string | undefined => archive.currentPath,
    log,
  );
  const archive = new ArchiveService(context, log, scheme, openArchive, ledger.disclose);
  const privacy = () => currentPrivacy(ledger);
  context.subscriptions.push(archive, ledger);

  const endpoint = new McpEndpoint(
    archive.context,
    () =>
      vscode.workspace.getConfiguration(CONFIG_SECTION).get<string>('server.transport', 'auto') === 'tcp'
        ? 'tcp'
        : 'auto',
    log,
    // The stdio bridge's endpoint file (0600, global storage: per machine, never synced), one per extension host
    // (every window has its own endpoint and secret).
    bridgeEndpointFile(path.join(context.globalStorageUri.fsPath, 'mcp-endpoints')),
  );
  context.subscriptions.push(endpoint);
  shutdown = () => endpoint.stop();

  const mcpApi = mcpApiAvailable();
  let provider: McpProvider | undefined;
  if (mcpApi) {
    provider = new McpProvider(archive, endpoint, log, context.asAbsolutePath(path.join('dist', 'cli.js')));
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
    hiddenFromModel: (c) => archive.isHiddenFromModel(c),
    attachmentRoot: () => archive.attachmentRoot(),
    citationUri: (ref) => citationUri(scheme, ref),
    log,
  });
  context.subscriptions.push(viewer);

  const search = new SearchService(archive.personalContext, (c) => archive.isHiddenFromModel(c));
  // The API's callers are other extensions, which may hand results to a model: they get what a model may see.
  const apiSearch = new SearchService(archive.context, () => false, true);

  const uriHandler = new CitationUriHandler(
    (ref) => openCitation(viewer, ref, false, log),
    (id) => viewer.open(id),
    log,
  );
  context.subscriptions.push(vscode.window.registerUriHandler(uriHandler));

  const links = new CitationLinkProvider(() => archive.archive());
  context.subscriptions.push(
    vscode.languages.registerDocumentLinkProvider({ scheme: '*' }, links),
    vscode.languages.registerHoverProvider({ scheme: '*' }, links),
  );

  // The citation check as diagnostics and quick fixes: Markdown with msgbrowse links, re-checked when the archive changes.
  const citations = new CitationDiagnostics(() => archive.archive(), log, archive.onDidChangeContent);
  context.subscriptions.push(citations);

  const conversations = new ConversationsView(archive);
  context.subscriptions.push(
    conversations,
    vscode.window.registerTreeDataProvider('msgbrowse.conversations', conversations),
  );

  // "What Copilot Has Seen": messages are looked up in the archive itself (not what is served now), by hash.
  const disclosures = new LedgerView(ledger, () => archive.archive());
  context.subscriptions.push(disclosures, vscode.window.registerTreeDataProvider('msgbrowse.disclosures', disclosures));

  context.subscriptions.push(
    createStatusBar(archive, privacy),
    registerCommands({ ext: context, archive, endpoint, search, viewer, citations, log, mcpApi, ledger, privacy }),
  );

  context.subscriptions.push(
    archive.onDidChange((s) => void vscode.commands.executeCommand('setContext', 'msgbrowse.state', s.kind)),
    // Open viewers re-read their conversation whenever what is served changed (new archive or new content).
    archive.onDidChangeContent(() => viewer.refreshAll()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsRuntime(e)) {
        log.info('settings changed; reloading the archive');
        void archive.apply();
      } else if (affectsPrivacy(e)) {
        log.info('privacy settings changed; applying them to Copilot without a reload');
        void archive.applyPrivacy();
      }
      if (affectsAnswerBudget(e)) void archive.applyAnswerBudget();
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
  const ready = archive
    .apply()
    .catch((e: unknown) => log.error(`activation: ${e instanceof Error ? e.message : String(e)}`));
  if (context.extensionMode !== vscode.ExtensionMode.Test) {
    void ready
      .then(() => offerJournalExcludes(context, log))
      .catch((e: unknown) => log.warn(`journal exclusions: ${e instanceof Error ? e.message : String(e)}`));
  }

  const api: MsgbrowseApi = {
    apiVersion: 1,
    mcpServerId: MCP_SERVER_ID,
    ready,
    state: () => archive.state,
    onDidChangeState: archive.onDidChange,
    search: (q) => apiSearch.search(q),
    openCitation: (ref, options) => openCitation(viewer, checkedRef(ref), options?.side, log),
    citationUri: (ref) => citationUri(scheme, checkedRef(ref)),
  };
  if (!testHooksWanted(context.extensionMode === vscode.ExtensionMode.Test)) return api;

  log.info('running under the integration tests: test hooks attached to the API');
  const traffic: McpTrafficEvent[] = [];
  endpoint.observe = (e) => {
    traffic.push(e);
    if (traffic.length > 2000) traffic.splice(0, traffic.length - 2000);
  };
  const testHooks: MsgbrowseTestHooks = {
    secretHeader: SECRET_HEADER,
    definitionVersion: () => archive.version,
    endpoint: () => endpoint.current,
    ensureEndpoint: () => endpoint.ensure(),
    providerCalls: () => provider && { provided: provider.provided, resolved: provider.resolved },
    mcpDefinitions: async () => {
      if (!provider) return undefined;
      // Exactly what VS Code receives from provideMcpServerDefinitions, read back from the returned objects.
      const defs = await provider.provideMcpServerDefinitions();
      return defs.map((d) => ({
        label: d.label,
        command: d.command,
        args: [...d.args],
        env: Object.fromEntries(Object.entries(d.env).map(([k, v]) => [k, v === null ? null : String(v)])),
        ...(d.cwd ? { cwd: d.cwd.fsPath } : {}),
        version: d.version,
      }));
    },
    settled: () => archive.apply(),
    ...viewerTestHooks(viewer),
    receivedUris: () => [...uriHandler.received],
    engine: () => (openArchive ? 'worker' : 'in-thread'),
    status: () => statusReport({ archive, endpoint, mcpApi, privacy }),
    ledgerFile: () => ledger.file,
    disclosures: () => disclosures.snapshot(),
    mcpTraffic: () => traffic.map((e) => ({ ...e })),
    overrideAnswerBudget: (bytes) =>
      bytes === undefined ? archive.applyAnswerBudget() : archive.runtime.reload({ answerBudget: bytes }),
  };
  const exports: MsgbrowseTestExports = { ...api, testHooks };
  return exports;
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

/** Closes the MCP listener (and its socket file) before the host goes away; the rest is in context.subscriptions. */
export async function deactivate(): Promise<void> {
  await shutdown?.();
  shutdown = undefined;
}
