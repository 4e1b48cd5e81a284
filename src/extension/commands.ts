/** Command registrations. Commands return useful values so they can be driven programmatically (and by tests). */
import path from 'node:path';
import * as vscode from 'vscode';
import type { ArchiveService } from './archiveService';
import type { CitationRef } from './citations';
import { OPEN_CITATION_COMMAND } from './citationLinks';
import { CONFIG_SECTION } from './constants';
import { materializeDemo } from './demo';
import { mcpConfigSnippet, type ConfigFlavor } from './mcpConfig';
import type { McpEndpoint } from './mcpEndpoint';
import { showSearchPick } from './searchPick';
import type { SearchResult, SearchService } from './searchService';
import { promptApiKey, readSettings } from './settings';
import { describeState } from './statusBar';
import type { ViewerManager } from './viewer/panel';

export interface CommandDeps {
  ext: vscode.ExtensionContext;
  archive: ArchiveService;
  endpoint: McpEndpoint;
  search: SearchService;
  viewer: ViewerManager;
  log: vscode.LogOutputChannel;
  mcpApi: boolean;
}

export interface StatusReport {
  state: ArchiveService['state'];
  archivePath?: string;
  version: string;
  mcpApi: boolean;
  endpoint?: { kind: string; uri: string };
  sessions: number;
}

/** Writes msgbrowse.archivePath where it takes effect: the most specific scope that already sets it, else user settings. */
async function setArchivePath(value: string): Promise<void> {
  const cfg = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const i = cfg.inspect<string>('archivePath');
  const target =
    i?.workspaceValue !== undefined || i?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
  await cfg.update('archivePath', value, target);
}

export function openCitation(viewer: ViewerManager, ref: CitationRef, side = false): void {
  viewer.open(ref.conversationId, {
    messageId: ref.messageId,
    highlight: true,
    viewColumn: side ? vscode.ViewColumn.Beside : undefined,
  });
}

export function registerCommands(d: CommandDeps): vscode.Disposable[] {
  const reg = (id: string, fn: (...args: any[]) => unknown) => vscode.commands.registerCommand(id, fn);

  const status = (): StatusReport => ({
    state: d.archive.state,
    archivePath: d.archive.currentPath,
    version: d.archive.version,
    mcpApi: d.mcpApi,
    endpoint: d.endpoint.current && { kind: d.endpoint.current.kind, uri: d.endpoint.current.uri.toString() },
    sessions: d.endpoint.sessionCount(),
  });

  return [
    reg('msgbrowse.searchMessages', async (query?: unknown): Promise<SearchResult | undefined> => {
      if (typeof query === 'string' && query.trim()) return d.search.search(query.trim());
      const editor = vscode.window.activeTextEditor;
      const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
      showSearchPick(d.search, (hit, o) => openCitation(d.viewer, hit, o.side), selected.slice(0, 200));
      return undefined;
    }),

    reg('msgbrowse.openConversation', async (conversationId?: unknown, messageId?: unknown) => {
      if (typeof conversationId === 'number') {
        d.viewer.open(conversationId, { messageId: typeof messageId === 'number' ? messageId : undefined });
        return { conversationId };
      }
      const archive = await d.archive.archive().catch((e: unknown) => {
        void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
        return undefined;
      });
      if (!archive) return undefined;
      const rows = await archive.listConversations();
      const pick = await vscode.window.showQuickPick(
        [...rows]
          .sort((a, b) => b.lastUnix - a.lastUnix)
          .map((r) => ({ label: r.name, description: `${r.source} · ${r.messageCount} messages`, detail: `last ${r.lastTs}`, id: r.id })),
        { title: 'msgbrowse: Open Conversation', matchOnDescription: true, placeHolder: 'Conversation name' },
      );
      if (!pick) return undefined;
      d.viewer.open(pick.id);
      return { conversationId: pick.id };
    }),

    reg(OPEN_CITATION_COMMAND, (conversationId: unknown, messageId: unknown) => {
      if (typeof conversationId !== 'number' || typeof messageId !== 'number') return;
      openCitation(d.viewer, { conversationId, messageId });
    }),

    reg('msgbrowse.selectArchive', async (file?: unknown) => {
      let chosen = typeof file === 'string' ? file : undefined;
      if (!chosen) {
        const uris = await vscode.window.showOpenDialog({
          title: 'Select your msgbrowse archive (msgbrowse.sqlite or its data directory)',
          canSelectFiles: true,
          canSelectFolders: true,
          canSelectMany: false,
          filters: { 'msgbrowse archive': ['sqlite', 'db'], 'All files': ['*'] },
        });
        chosen = uris?.[0]?.fsPath;
      }
      if (!chosen) return undefined;
      await setArchivePath(chosen);
      return chosen;
    }),

    reg('msgbrowse.openDemoArchive', async () => {
      const file = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'msgbrowse: preparing the demo archive' },
        () => materializeDemo(d.ext),
      );
      await d.ext.globalState.update('msgbrowse.demoArchive', file);
      await setArchivePath(file);
      return file;
    }),

    reg('msgbrowse.setApiKey', async () => {
      if (await promptApiKey(d.ext.secrets)) await d.archive.apply();
    }),

    reg('msgbrowse.showStatus', async (opts?: { quiet?: boolean }) => {
      const report = status();
      if (opts?.quiet) return report;
      const desc = describeState(report.state);
      const items: (vscode.QuickPickItem & { run?: () => unknown })[] = [
        { label: desc.text.replace(/\$\([^)]*\)\s*/g, ''), detail: desc.tooltip.replace(/\n/g, ' · ') },
        {
          label: d.mcpApi ? `$(server) MCP server: ${report.endpoint ? report.endpoint.uri : 'not started yet'}` : '$(warning) This editor has no MCP provider API',
          detail: d.mcpApi ? `${report.sessions} session(s) · definition version ${report.version}` : 'Use "Copy MCP Config for Other Clients" to run the CLI instead.',
        },
        { label: '$(output) Show Log', run: () => d.log.show() },
        { label: '$(folder-opened) Select Archive…', run: () => vscode.commands.executeCommand('msgbrowse.selectArchive') },
        { label: '$(beaker) Open Demo Archive', run: () => vscode.commands.executeCommand('msgbrowse.openDemoArchive') },
        { label: '$(key) Set Embeddings API Key', run: () => vscode.commands.executeCommand('msgbrowse.setApiKey') },
        { label: '$(copy) Copy MCP Config for Other Clients', run: () => vscode.commands.executeCommand('msgbrowse.copyMcpConfig') },
      ];
      void vscode.window.showQuickPick(items, { title: 'msgbrowse status' }).then((p) => p?.run?.());
      return report;
    }),

    reg('msgbrowse.copyMcpConfig', async (flavor?: unknown) => {
      let f: ConfigFlavor | undefined = flavor === 'vscode' || flavor === 'mcpServers' ? flavor : undefined;
      if (!f) {
        const pick = await vscode.window.showQuickPick(
          [
            { label: 'VS Code / Copilot (.vscode/mcp.json)', flavor: 'vscode' as const },
            { label: 'Claude Desktop, Claude Code, Cursor… ("mcpServers")', flavor: 'mcpServers' as const },
          ],
          { title: 'msgbrowse: MCP config for which client?' },
        );
        f = pick?.flavor;
      }
      if (!f) return undefined;
      const text = mcpConfigSnippet(f, d.ext.extensionPath, d.archive.currentPath, readSettings());
      await vscode.env.clipboard.writeText(text);
      vscode.window.setStatusBarMessage('msgbrowse: MCP config copied to the clipboard', 4000);
      return text;
    }),

    reg('msgbrowse.showLog', () => d.log.show()),

    reg('msgbrowse.revealArchive', () => {
      const p = d.archive.currentPath;
      if (p) void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(path.dirname(p)));
    }),
  ];
}
