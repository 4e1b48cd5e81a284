/** "What Copilot Has Seen": each tool call and resource read served to a model, newest first, with its messages. */
import * as vscode from 'vscode';
import {
  type AsyncArchive,
  citationHash,
  type DisclosedMessage,
  type DisclosureEntry,
  type MessageRow,
  resolveCitation,
} from '../core';
import { OPEN_CITATION_COMMAND } from './citation-link-provider';
import type { DisclosureLedger } from './disclosure-ledger';
import { callDescription, callLabel, callTooltip, messageLabel } from './ledger-items';

/** How many calls the view lists (the file keeps more). */
const MAX_CALLS = 500;

export type LedgerNode =
  | { kind: 'call'; entry: DisclosureEntry; index: number }
  | { kind: 'message'; entry: DisclosureEntry; message: DisclosedMessage };

export class LedgerView implements vscode.TreeDataProvider<LedgerNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly sub: vscode.Disposable;
  private refreshTimer: NodeJS.Timeout | undefined;
  /** Message rows looked up once per hash until the next refresh. */
  private readonly lookups = new Map<string, Promise<MessageRow | undefined>>();

  constructor(
    private readonly ledger: DisclosureLedger,
    private readonly archive: () => Promise<AsyncArchive>,
  ) {
    // Bursts of calls (an agent turn) refresh the tree once.
    this.sub = ledger.onDidChange(() => {
      clearTimeout(this.refreshTimer);
      this.refreshTimer = setTimeout(() => this.refresh(), 150);
    });
  }

  refresh(): void {
    this.lookups.clear();
    this.emitter.fire();
  }

  getChildren(n?: LedgerNode): LedgerNode[] {
    if (n?.kind === 'call') return n.entry.messages.map((message) => ({ kind: 'message', entry: n.entry, message }));
    if (n) return [];
    return this.ledger.read(MAX_CALLS).entries.map((entry, index) => ({ kind: 'call', entry, index }));
  }

  async getTreeItem(n: LedgerNode): Promise<vscode.TreeItem> {
    if (n.kind === 'call') {
      const e = n.entry;
      const item = new vscode.TreeItem(
        callLabel(e),
        e.messages.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `call:${e.time}:${n.index}:${e.name}`;
      item.description = callDescription(e);
      item.tooltip = callTooltip(e);
      item.iconPath = new vscode.ThemeIcon(e.ok ? (e.kind === 'resource' ? 'file-text' : 'tools') : 'warning');
      item.contextValue = 'msgbrowse.disclosure';
      return item;
    }
    const m = n.message;
    const row = await this.lookup(m);
    const item = new vscode.TreeItem(messageLabel(m, row), vscode.TreeItemCollapsibleState.None);
    item.tooltip = row
      ? `${row.sender} in ${row.conversation} (${row.source}), ${row.ts}\nhash ${row.hash}`
      : `hash ${m.hash}`;
    item.iconPath = new vscode.ThemeIcon(row ? 'comment' : 'circle-slash');
    const args = row && [row.conversationId, row.id, citationHash(row.hash)];
    if (args)
      item.command = { command: OPEN_CITATION_COMMAND, title: 'Open in the conversation viewer', arguments: args };
    return item;
  }

  /** The message a ledger entry names, by its hash (followed if it moved); undefined when gone. */
  private lookup(m: DisclosedMessage): Promise<MessageRow | undefined> {
    const found = this.lookups.get(m.hash) ?? this.find(m).catch(() => undefined);
    this.lookups.set(m.hash, found);
    return found;
  }

  private async find(m: DisclosedMessage): Promise<MessageRow | undefined> {
    const archive = await this.archive();
    if (m.hash.length === 64) return (await archive.messageByHash(m.hash)) ?? undefined;
    if (m.message_id === undefined) return undefined;
    const r = await resolveCitation(archive, { messageId: m.message_id, hash: m.hash });
    return r.status === 'gone' ? undefined : r.message;
  }

  dispose(): void {
    clearTimeout(this.refreshTimer);
    this.sub.dispose();
    this.emitter.dispose();
  }
}
