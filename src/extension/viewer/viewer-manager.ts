/**
 * The conversation viewers: at most one panel per conversation, restored after a reload by a
 * WebviewPanelSerializer. Panels report what their webview rendered through the onDid* events (what the
 * integration tests' waiters, viewer-test-hooks.ts, listen to).
 */
import * as vscode from 'vscode';
import { VIEWER_VIEW_TYPE } from '../constants';
import { parseState, type ViewerState } from './webview-protocol';
import { type FoundEvent, type PagedEvent, type ShownEvent, type ViewerDeps, ViewerPanel, webviewOptions } from './viewer-panel';

export interface OpenOptions {
  messageId?: number;
  highlight?: boolean;
  viewColumn?: vscode.ViewColumn;
  preserveFocus?: boolean;
}

export class ViewerManager implements vscode.Disposable {
  private readonly panels = new Map<number, ViewerPanel>();
  private readonly shownEmitter = new vscode.EventEmitter<ShownEvent>();
  readonly onDidShow = this.shownEmitter.event;
  private readonly pagedEmitter = new vscode.EventEmitter<PagedEvent>();
  readonly onDidPage = this.pagedEmitter.event;
  private readonly foundEmitter = new vscode.EventEmitter<FoundEvent>();
  readonly onDidFind = this.foundEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.shownEmitter, this.pagedEmitter, this.foundEmitter];

  constructor(private readonly deps: ViewerDeps) {
    this.disposables.push(
      vscode.window.registerWebviewPanelSerializer(VIEWER_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, raw) => {
          const state = parseState(raw);
          if (!state) {
            panel.dispose();
            return;
          }
          this.adopt(panel, state);
        },
      }),
    );
  }

  private adopt(panel: vscode.WebviewPanel, state: ViewerState): ViewerPanel {
    this.panels.get(state.conversationId)?.panel.dispose();
    const vp = new ViewerPanel(
      panel,
      state,
      this.deps,
      (e) => this.shownEmitter.fire(e),
      (e) => this.pagedEmitter.fire(e),
      (e) => this.foundEmitter.fire(e),
      () => this.panels.delete(state.conversationId),
    );
    this.panels.set(state.conversationId, vp);
    return vp;
  }

  /** Opens (or reveals) the viewer of a conversation, scrolled to `messageId` when given. */
  open(conversationId: number, opts: OpenOptions = {}): void {
    const column = opts.viewColumn ?? vscode.ViewColumn.Active;
    let vp = this.panels.get(conversationId);
    if (vp) {
      vp.panel.reveal(column, opts.preserveFocus);
    } else {
      const panel = vscode.window.createWebviewPanel(
        VIEWER_VIEW_TYPE,
        `Conversation ${conversationId}`,
        { viewColumn: column, preserveFocus: opts.preserveFocus },
        { ...webviewOptions(this.deps), enableFindWidget: true },
      );
      vp = this.adopt(panel, { conversationId });
    }
    vp.show(opts.messageId, opts.highlight ?? opts.messageId !== undefined);
  }

  /** The open panel of a conversation, if any. */
  panelOf(conversationId: number): ViewerPanel | undefined {
    return this.panels.get(conversationId);
  }

  openConversations(): number[] {
    return [...this.panels.keys()];
  }

  refreshAll(): void {
    for (const p of this.panels.values()) p.refresh();
  }

  dispose(): void {
    for (const p of this.panels.values()) p.panel.dispose();
    this.panels.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
