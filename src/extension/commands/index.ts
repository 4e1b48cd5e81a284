/**
 * Every msgbrowse command, one module each. Commands return useful values so they can be driven programmatically
 * (and by tests); registerCommands() hands back the CommandManager owning all registrations, for context.subscriptions.
 */
import type * as vscode from 'vscode';
import type { ArchiveService } from '../archive-service';
import type { CitationDiagnostics } from '../citation-diagnostics';
import type { DisclosureLedger } from '../disclosure-ledger';
import type { McpEndpoint } from '../mcp-endpoint';
import type { SearchService } from '../search-service';
import type { ViewerManager } from '../viewer/viewer-manager';
import { CheckCitationsCommand } from './check-citations';
import { ClearLedgerCommand } from './clear-ledger';
import { CommandManager } from './command-manager';
import { CopyMcpConfigCommand } from './copy-mcp-config';
import { OnThisDayCommand } from './on-this-day-pick';
import { OpenCitationCommand } from './open-citation';
import { OpenConversationCommand } from './open-conversation';
import { OpenDemoArchiveCommand } from './open-demo-archive';
import { RevealArchiveCommand } from './reveal-archive';
import { SearchMessagesCommand } from './palette-search';
import { SelectArchiveCommand } from './select-archive';
import { SetApiKeyCommand } from './set-api-key';
import { ShowLogCommand } from './show-log';
import { ShowStatusCommand, type StatusSources } from './show-status';

export type { Command } from './command-manager';
export { CommandManager } from './command-manager';
export { openCitation } from './open-citation';
export type { CheckCitationsSummary } from './check-citations';
export { statusReport, type StatusReport, type StatusSources } from './show-status';

export interface CommandDeps {
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

export function registerCommands(d: CommandDeps): CommandManager {
  const commands = new CommandManager();
  commands.register(new SearchMessagesCommand(d.search, d.viewer));
  commands.register(new OnThisDayCommand(d.search, d.viewer));
  commands.register(new OpenConversationCommand(d.archive, d.viewer));
  commands.register(new OpenCitationCommand(d.viewer));
  commands.register(new SelectArchiveCommand());
  commands.register(new OpenDemoArchiveCommand(d.ext));
  commands.register(new SetApiKeyCommand(d.ext.secrets, d.archive));
  commands.register(
    new ShowStatusCommand({ archive: d.archive, endpoint: d.endpoint, mcpApi: d.mcpApi, privacy: d.privacy }, d.log),
  );
  commands.register(new CopyMcpConfigCommand(d.ext.extensionPath, d.archive));
  commands.register(new ShowLogCommand(d.log));
  commands.register(new RevealArchiveCommand(d.archive));
  commands.register(new CheckCitationsCommand(d.citations));
  commands.register(new ClearLedgerCommand(d.ledger, d.log));
  return commands;
}
