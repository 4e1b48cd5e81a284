/** The "Conversations" tree in the msgbrowse view container (its welcome content covers the no-archive case). */
import * as vscode from 'vscode';
import type { ConversationRow } from '../core';
import type { ArchiveService } from './archive-service';

type Node = { kind: 'source'; source: string; rows: ConversationRow[] } | { kind: 'conv'; row: ConversationRow };

export class ConversationsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly archive: ArchiveService) {
    this.sub = archive.onDidChange(() => this.emitter.fire());
  }

  getTreeItem(n: Node): vscode.TreeItem {
    if (n.kind === 'source') {
      const item = new vscode.TreeItem(n.source, vscode.TreeItemCollapsibleState.Expanded);
      item.description = `${n.rows.length}`;
      item.iconPath = new vscode.ThemeIcon('inbox');
      return item;
    }
    const r = n.row;
    const item = new vscode.TreeItem(r.name, vscode.TreeItemCollapsibleState.None);
    const hidden = this.archive.isHiddenFromModel(r);
    item.description = `${r.messageCount} · ${r.lastTs.slice(0, 10)}${hidden ? ' · hidden from Copilot' : ''}`;
    item.tooltip =
      `${r.name} (${r.source})\n${r.messageCount} messages, ${r.firstTs} – ${r.lastTs}\n${r.images} images, ${r.videos} videos, ${r.files} files, ${r.links} links` +
      (hidden
        ? '\nHidden from Copilot (msgbrowse.privacy.excludeConversations): its tools and resources answer as if it did not exist.'
        : '');
    item.iconPath = new vscode.ThemeIcon(hidden ? 'eye-closed' : 'comment-discussion');
    if (hidden) item.contextValue = 'conversation.hidden';
    item.command = { command: 'msgbrowse.openConversation', title: 'Open', arguments: [r.id] };
    return item;
  }

  async getChildren(n?: Node): Promise<Node[]> {
    if (n?.kind === 'source') return n.rows.map((row) => ({ kind: 'conv', row }));
    if (n || this.archive.state.kind !== 'ready') return [];
    try {
      const rows = await (await this.archive.archive()).listConversations();
      const by = new Map<string, ConversationRow[]>();
      for (const r of [...rows].sort((a, b) => b.lastUnix - a.lastUnix)) {
        by.set(r.source, [...(by.get(r.source) ?? []), r]);
      }
      return [...by].map(([source, list]) => ({ kind: 'source', source, rows: list }));
    } catch {
      return [];
    }
  }

  dispose(): void {
    this.sub.dispose();
    this.emitter.dispose();
  }
}
