/** `msgbrowse.showStatus([{ quiet }])`: resolves with a StatusReport; unless quiet, shows it in a QuickPick. */
import * as vscode from 'vscode';
import type { ArchiveService } from '../archive-service';
import type { McpEndpoint } from '../mcp-endpoint';
import { exclusionsLine, ledgerLine, redactionLine, type PrivacyInfo } from '../privacy-summary';
import { type ExclusionMatch, unmatchedExclusionLines } from '../../core';
import { usableBudget } from '../../mcp/answer-budget';
import { describeState } from '../status-bar';

export interface StatusReport {
  state: ArchiveService['state'];
  archivePath?: string;
  version: string;
  mcpApi: boolean;
  endpoint?: { kind: string; uri: string };
  sessions: number;
  privacy: PrivacyInfo;
  /** Set when a newer msgbrowse wrote the archive's schema. */
  schemaNotice?: string;
  /** Bytes of structuredContent JSON a tool answer takes at most. */
  answerBudget: number;
  /** Each exclusion entry with what it hides (filled by the command only). */
  exclusions: ExclusionMatch[];
}

export interface StatusSources {
  archive: ArchiveService;
  endpoint: McpEndpoint;
  mcpApi: boolean;
  privacy: () => PrivacyInfo;
}

export function statusReport(s: StatusSources): StatusReport {
  return {
    state: s.archive.state,
    archivePath: s.archive.currentPath,
    version: s.archive.version,
    mcpApi: s.mcpApi,
    endpoint: s.endpoint.current && { kind: s.endpoint.current.kind, uri: s.endpoint.current.uri.toString() },
    sessions: s.endpoint.sessionCount(),
    privacy: s.privacy(),
    answerBudget: usableBudget(s.archive.runtime.context.answerBudget),
    exclusions: [],
    ...(s.archive.state.kind === 'ready' && s.archive.state.status.notice
      ? { schemaNotice: s.archive.state.status.notice }
      : {}),
  };
}

export async function showStatus(
  sources: StatusSources,
  log: vscode.LogOutputChannel,
  opts?: { quiet?: boolean },
): Promise<StatusReport> {
  const report = {
    ...statusReport(sources),
    exclusions: await sources.archive.runtime.exclusions().catch(() => []),
  };
  if (opts?.quiet) return report;
  const mcpApi = sources.mcpApi;
  const desc = describeState(report.state);
  const p = report.privacy;
  const items: (vscode.QuickPickItem & { run?: () => unknown })[] = [
    { label: desc.text.replace(/\$\([^)]*\)\s*/g, ''), detail: desc.tooltip.replace(/\n/g, ' · ') },
    ...(report.schemaNotice
      ? [
          {
            label: `$(info) Archive ${report.schemaNotice}`,
            detail:
              'its schema is newer than the msgbrowse schema this version was tested with; every tool reads the tables it knows',
          },
        ]
      : []),
    {
      label: mcpApi
        ? `$(server) MCP server: ${report.endpoint ? report.endpoint.uri : 'not started yet'}`
        : '$(warning) This editor has no MCP provider API',
      detail: mcpApi
        ? `${report.sessions} session(s) through the stdio bridge (Local and Copilot harness) · answers up to ${report.answerBudget} bytes each (github.copilot.chat.agent.largeToolResultsToDisk), more by cursor · definition version ${report.version}`
        : 'Use "Copy MCP Config for Other Clients" to run the CLI instead.',
    },
    {
      label: `$(shield) ${exclusionsLine(p.exclusions)}`,
      detail: `${redactionLine(p.redact)} · settings msgbrowse.privacy.*`,
      run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'msgbrowse.privacy'),
    },
    // What each exclusion hides; one that hides nothing is a warning.
    ...report.exclusions.map((m) => ({
      label: m.matched.length
        ? `$(eye-closed) "${m.entry}" hides ${m.matched.length} conversation${m.matched.length === 1 ? '' : 's'}`
        : `$(warning) "${m.entry}" hides nothing`,
      detail: m.matched.length
        ? m.matched.map((c) => `${c.source}:${c.name}`).join(', ')
        : unmatchedExclusionLines([m])[0],
      run: () =>
        vscode.commands.executeCommand('workbench.action.openSettings', 'msgbrowse.privacy.excludeConversations'),
    })),
    {
      label: '$(eye) What Copilot Has Seen',
      detail: ledgerLine(p.ledgerFile),
      run: () => vscode.commands.executeCommand('msgbrowse.disclosures.focus'),
    },
    { label: '$(output) Show Log', run: () => log.show() },
    {
      label: '$(folder-opened) Select Archive…',
      run: () => vscode.commands.executeCommand('msgbrowse.selectArchive'),
    },
    { label: '$(beaker) Open Demo Archive', run: () => vscode.commands.executeCommand('msgbrowse.openDemoArchive') },
    { label: '$(key) Set Embeddings API Key', run: () => vscode.commands.executeCommand('msgbrowse.setApiKey') },
    {
      label: '$(copy) Copy MCP Config for Other Clients',
      run: () => vscode.commands.executeCommand('msgbrowse.copyMcpConfig'),
    },
  ];
  void vscode.window.showQuickPick(items, { title: 'msgbrowse status' }).then((p) => p?.run?.());
  return report;
}
