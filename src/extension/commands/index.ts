/** Every msgbrowse command. They resolve with useful values, so tests and other extensions can drive them. */
import * as vscode from 'vscode';
import type { ArchiveService } from '../archive-service';
import type { CitationDiagnostics } from '../citation-diagnostics';
import { OPEN_CITATION_COMMAND } from '../citation-link-provider';
import type { DisclosureLedger } from '../disclosure-ledger';
import type { McpEndpoint } from '../mcp-endpoint';
import type { SearchService } from '../search-service';
import { promptApiKey } from '../settings';
import type { ViewerManager } from '../viewer/viewer-manager';
import { copyMcpConfig, openDemoArchive, revealArchive, selectArchive } from './archive-commands';
import { checkCitations } from './check-citations';
import { clearLedger } from './clear-ledger';
import { onThisDay } from './on-this-day-pick';
import { openCitationCommand, openConversation, searchMessages } from './open-citation';
import { showStatus, type StatusSources } from './show-status';

export { openCitation } from './open-citation';
export type { CheckCitationsSummary } from './check-citations';
export { statusReport } from './show-status';

interface CommandDeps {
  ext: vscode.ExtensionContext;
  archive: ArchiveService;
  endpoint: McpEndpoint;
  search: SearchService;
  viewer: ViewerManager;
  citations: CitationDiagnostics;
  log: vscode.LogOutputChannel;
  mcpApi: boolean;
  ledger: DisclosureLedger;
  privacy: StatusSources['privacy'];
}

export function registerCommands(d: CommandDeps): vscode.Disposable {
  const { archive, viewer, log } = d;
  const commands: Record<string, (...args: never[]) => unknown> = {
    'msgbrowse.searchMessages': (query?: unknown) => searchMessages(d.search, viewer, query),
    'msgbrowse.onThisDay': (date?: unknown) => onThisDay(d.search, viewer, date),
    'msgbrowse.openConversation': (id?: unknown, messageId?: unknown) =>
      openConversation(archive, viewer, id, messageId),
    [OPEN_CITATION_COMMAND]: (id: unknown, messageId: unknown, hash?: unknown) =>
      openCitationCommand(viewer, id, messageId, hash),
    'msgbrowse.selectArchive': (file?: unknown) => selectArchive(file),
    'msgbrowse.openDemoArchive': () => openDemoArchive(d.ext),
    'msgbrowse.setApiKey': async () => {
      if (await promptApiKey(d.ext.secrets)) await archive.apply();
    },
    'msgbrowse.showStatus': (opts?: { quiet?: boolean }) => showStatus(d, opts),
    'msgbrowse.copyMcpConfig': (flavor?: unknown) => copyMcpConfig(d.ext.extensionPath, archive, flavor),
    'msgbrowse.showLog': () => log.show(),
    'msgbrowse.revealArchive': () => revealArchive(archive),
    'msgbrowse.checkCitations': (uri?: unknown, opts?: { quiet?: boolean }) => checkCitations(d.citations, uri, opts),
    'msgbrowse.clearLedger': (opts?: { confirm?: boolean }) => clearLedger(d.ledger, log, opts),
  };
  return vscode.Disposable.from(
    ...Object.entries(commands).map(([id, run]) => vscode.commands.registerCommand(id, run)),
  );
}
