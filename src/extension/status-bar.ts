/** Status bar item: what is being served (conversations, messages) and whether semantic search is ready. */
import path from 'node:path';
import * as vscode from 'vscode';
import type { ArchiveService, ArchiveState } from './archive-service';
import { privacyLines, type PrivacyInfo } from './privacy-summary';

function compact(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

export function describeState(s: ArchiveState): { text: string; tooltip: string } {
  switch (s.kind) {
    case 'none':
      return { text: '$(archive) msgbrowse: no archive', tooltip: 'No msgbrowse archive found. Click for options.' };
    case 'opening':
      return { text: '$(sync~spin) msgbrowse', tooltip: `Opening ${s.path}…` };
    case 'error':
      return { text: '$(warning) msgbrowse', tooltip: `Cannot open ${s.path}: ${s.message}` };
    case 'ready': {
      const st = s.status;
      const sem = st.semantic.ready
        ? 'semantic search ready'
        : `keyword only: ${st.semantic.reason ?? 'semantic search unavailable'}`;
      const building = st.semantic.state === 'building' ? ` $(sync~spin) ${st.semantic.percent ?? 0}%` : '';
      return {
        text: `$(comment-discussion) ${compact(st.conversations)} · ${compact(st.messages)}${st.semantic.ready ? ' $(sparkle)' : building}`,
        tooltip: [
          `msgbrowse — ${path.basename(path.dirname(s.path))}/${path.basename(s.path)} (${s.origin})`,
          `${st.conversations} conversations, ${st.messages} messages`,
          sem,
          ...(st.notice ? [`Archive ${st.notice}`] : []),
          ...(st.missing.length ? [`Without ${st.missing.join('; ')}`] : []),
        ].join('\n'),
      };
    }
  }
}

export function createStatusBar(archive: ArchiveService, privacy: () => PrivacyInfo): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('msgbrowse.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'msgbrowse';
  item.command = 'msgbrowse.showStatus';
  const update = (s: ArchiveState) => {
    const d = describeState(s);
    item.text = d.text;
    // The privacy lines end the tooltip: exclusions, redaction, where the ledger is.
    item.tooltip = `${d.tooltip}\n\n${privacyLines(privacy()).join('\n')}`;
    item.backgroundColor = s.kind === 'error' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    item.show();
  };
  update(archive.state);
  return vscode.Disposable.from(
    item,
    archive.onDidChange(update),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('msgbrowse.privacy')) update(archive.state);
    }),
  );
}
