/** The conversation viewers: one panel per conversation, restored after a reload. */
import * as vscode from 'vscode';
import { resolveCitation } from '../../core';
import type { CitationRef } from '../citation-ref';
import { VIEWER_VIEW_TYPE } from '../constants';
import { parseState, type ViewerState } from './webview-protocol';
import { type ViewerDeps, ViewerPanel, type ViewerReport, webviewOptions } from './viewer-panel';

export interface OpenOptions {
  messageId?: number;
  highlight?: boolean;
  viewColumn?: vscode.ViewColumn;
  preserveFocus?: boolean;
  /** The focused message's hash (checked by the panel, and followed on refresh). */
  hash?: string;
  notice?: string;
}

/** How a citation was opened (what the user was told). */
export interface CitationOutcome {
  ref: CitationRef;
  status: 'exact' | 'moved' | 'gone' | 'unchecked';
  opened?: { conversationId: number; messageId: number };
  note?: string;
}

export class ViewerManager implements vscode.Disposable {
  private readonly panels = new Map<number, ViewerPanel>();
  private readonly reported = new vscode.EventEmitter<ViewerReport>();
  /** What the webviews report they rendered (the integration tests wait on it). */
  readonly onDidReport = this.reported.event;
  private readonly cited = new vscode.EventEmitter<CitationOutcome>();
  readonly onDidOpenCitation = this.cited.event;
  private readonly disposables: vscode.Disposable[] = [this.reported, this.cited];

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
      (e) => this.reported.fire(e),
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
    vp.show(opts.messageId, opts.highlight ?? opts.messageId !== undefined, { hash: opts.hash, notice: opts.notice });
  }

  /**
   * Opens a citation, highlighted. With a hash it is resolved first: a moved message opens where it is now (and says
   * so); a gone one gives a warning, never a viewer at whatever holds its old id. Without a hash it opens by id.
   */
  async openCitation(ref: CitationRef, opts: Pick<OpenOptions, 'viewColumn'> = {}): Promise<CitationOutcome> {
    const at = (conversationId: number, messageId: number, extra: Partial<OpenOptions> = {}) =>
      this.open(conversationId, { messageId, highlight: true, viewColumn: opts.viewColumn, ...extra });
    let outcome: CitationOutcome;
    if (!ref.hash) {
      at(ref.conversationId, ref.messageId);
      outcome = { ref, status: 'unchecked', opened: { conversationId: ref.conversationId, messageId: ref.messageId } };
    } else {
      const r = await resolveCitation(await this.deps.archive(), ref);
      if (r.status === 'gone') {
        outcome = { ref, status: 'gone', note: r.note };
        this.deps.log.warn(`citation c/${ref.conversationId}/at/${ref.messageId}?h=${ref.hash}: ${r.note}`);
        void vscode.window.showWarningMessage(`msgbrowse: ${r.note}.`);
      } else {
        const m = r.message;
        const note = r.status === 'moved' ? r.note : undefined;
        at(m.conversationId, m.id, {
          hash: m.hash,
          ...(note ? { notice: `${note.charAt(0).toUpperCase()}${note.slice(1)}.` } : {}),
        });
        outcome = {
          ref,
          status: r.status,
          opened: { conversationId: m.conversationId, messageId: m.id },
          ...(note ? { note } : {}),
        };
        if (note) {
          this.deps.log.info(`citation c/${ref.conversationId}/at/${ref.messageId}?h=${ref.hash}: ${note}`);
          void vscode.window.showInformationMessage(`msgbrowse: ${note}.`);
        }
      }
    }
    this.cited.fire(outcome);
    return outcome;
  }

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
