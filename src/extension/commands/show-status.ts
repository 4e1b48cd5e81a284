/** `msgbrowse.showStatus([{ quiet }])`: resolves with a StatusReport; unless quiet, shows it in a QuickPick. */
import * as vscode from 'vscode';
import { type ExclusionMatch, unmatchedExclusionLines } from '../../core';
import { usableBudget } from '../../mcp/answer-budget';
import type { ArchiveService } from '../archive-service';
import type { McpEndpoint } from '../mcp-endpoint';
import { exclusionsLine, ledgerLine, redactionLine, type PrivacyInfo } from '../privacy-summary';
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

export function statusReport({ archive, endpoint, mcpApi, privacy }: StatusSources): StatusReport {
  const { state } = archive;
  return {
    state,
    archivePath: archive.currentPath,
    version: archive.version,
    mcpApi,
    endpoint: endpoint.current && { kind: endpoint.current.kind, uri: endpoint.current.uri.toString() },
    sessions: endpoint.sessionCount(),
    privacy: privacy(),
    answerBudget: usableBudget(archive.runtime.context.answerBudget),
    exclusions: [],
    ...(state.kind === 'ready' && state.status.notice ? { schemaNotice: state.status.notice } : {}),
  };
}

const NEWER_SCHEMA =
  'its schema is newer than the msgbrowse schema this version was tested with; every tool reads the tables it knows';
const openSettings = (query: string) => ({ command: 'workbench.action.openSettings', args: [query] });
type Item = vscode.QuickPickItem & { command?: string; args?: string[] };

export async function showStatus(sources: StatusSources, opts?: { quiet?: boolean }): Promise<StatusReport> {
  const report = { ...statusReport(sources), exclusions: await sources.archive.runtime.exclusions().catch(() => []) };
  if (opts?.quiet) return report;
  const desc = describeState(report.state);
  const p = report.privacy;
  const items: Item[] = [
    { label: desc.text.replace(/\$\([^)]*\)\s*/g, ''), detail: desc.tooltip.replace(/\n/g, ' · ') },
    ...(report.schemaNotice ? [{ label: `$(info) Archive ${report.schemaNotice}`, detail: NEWER_SCHEMA }] : []),
    report.mcpApi
      ? {
          label: `$(server) MCP server: ${report.endpoint ? report.endpoint.uri : 'not started yet'}`,
          detail: `${report.sessions} session(s) through the stdio bridge (Local and Copilot harness) · answers up to ${report.answerBudget} bytes each (github.copilot.chat.agent.largeToolResultsToDisk), more by cursor · definition version ${report.version}`,
        }
      : {
          label: '$(warning) This editor has no MCP provider API',
          detail: 'Use "Copy MCP Config for Other Clients" to run the CLI instead.',
        },
    {
      label: `$(shield) ${exclusionsLine(p.exclusions)}`,
      detail: `${redactionLine(p.redact)} · settings msgbrowse.privacy.*`,
      ...openSettings('msgbrowse.privacy'),
    },
    // What each exclusion hides; one that hides nothing is a warning.
    ...report.exclusions.map((m) => ({
      label: m.matched.length
        ? `$(eye-closed) "${m.entry}" hides ${m.matched.length} conversation${m.matched.length === 1 ? '' : 's'}`
        : `$(warning) "${m.entry}" hides nothing`,
      detail: m.matched.length
        ? m.matched.map((c) => `${c.source}:${c.name}`).join(', ')
        : unmatchedExclusionLines([m])[0],
      ...openSettings('msgbrowse.privacy.excludeConversations'),
    })),
    { label: '$(eye) What Copilot Has Seen', detail: ledgerLine(p.ledgerFile), command: 'msgbrowse.disclosures.focus' },
    { label: '$(output) Show Log', command: 'msgbrowse.showLog' },
    { label: '$(folder-opened) Select Archive…', command: 'msgbrowse.selectArchive' },
    { label: '$(beaker) Open Demo Archive', command: 'msgbrowse.openDemoArchive' },
    { label: '$(key) Set Embeddings API Key', command: 'msgbrowse.setApiKey' },
    { label: '$(copy) Copy MCP Config for Other Clients', command: 'msgbrowse.copyMcpConfig' },
  ];
  void vscode.window
    .showQuickPick(items, { title: 'msgbrowse status' })
    .then((picked) => picked?.command && vscode.commands.executeCommand(picked.command, ...(picked.args ?? [])));
  return report;
}
