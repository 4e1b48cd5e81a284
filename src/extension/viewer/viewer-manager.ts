/** The conversation viewers: one panel per conversation, restored after a reload. */
import * as vscode from 'vscode';
import { openCitation } from '../../core';
import type { CitationRef } from '../citation-ref';
import { VIEWER_VIEW_TYPE } from '../constants';
import { parseState, type ViewerState } from './webview-protocol';
import { type ShowOptions, VIEWER_PAGE, type ViewerDeps, ViewerPanel, webviewOptions } from './viewer-panel';

interface OpenOptions extends ShowOptions {
  messageId?: number;
  highlight?: boolean;
  viewColumn?: vscode.ViewColumn;
  preserveFocus?: boolean;
}

export interface CitationOutcome {
  ref: CitationRef;
  status: 'exact' | 'moved' | 'gone' | 'unchecked';
  opened?: { conversationId: number; messageId: number };
  note?: string;
}

export class ViewerManager implements vscode.Disposable {
  private readonly panels = new Map<number, ViewerPanel>();
  private readonly disposables: vscode.Disposable[] = [];
  // Bumped by refreshAll: a citation read before a change is read again by its panel.
  private refreshes = 0;

  constructor(private readonly deps: ViewerDeps) {
    this.disposables.push(
      vscode.window.registerWebviewPanelSerializer(VIEWER_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, raw) => {
          const state = parseState(raw);
          if (state) this.adopt(panel, state);
          else panel.dispose();
        },
      }),
    );
  }

  adopt(panel: vscode.WebviewPanel, state: ViewerState): ViewerPanel {
    this.panels.get(state.conversationId)?.panel.dispose();
    const vp = new ViewerPanel(panel, state, this.deps, () => this.panels.delete(state.conversationId));
    this.panels.set(state.conversationId, vp);
    return vp;
  }

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
    vp.show(opts.messageId, opts.highlight ?? opts.messageId !== undefined, { hash: opts.hash, opened: opts.opened });
  }

  /**
   * With a hash the citation is resolved first, in the same archive call as its page: a moved message opens where it
   * is now (and says so); a gone one gives a warning, never a viewer at whatever holds its old id.
   */
  async openCitation(ref: CitationRef, opts: Pick<OpenOptions, 'viewColumn'> = {}): Promise<CitationOutcome> {
    const at = (conversationId: number, extra: Partial<OpenOptions> = {}) =>
      this.open(conversationId, { messageId: ref.messageId, highlight: true, viewColumn: opts.viewColumn, ...extra });
    const where = `citation c/${ref.conversationId}/at/${ref.messageId}?h=${ref.hash}`;
    if (!ref.hash) {
      at(ref.conversationId);
      return { ref, status: 'unchecked', opened: { conversationId: ref.conversationId, messageId: ref.messageId } };
    }
    const seen = this.refreshes;
    const opened = await openCitation(await this.deps.archive(), ref, { limit: VIEWER_PAGE });
    const r = opened.resolution;
    if (r.status === 'gone') {
      this.deps.log.warn(`${where}: ${r.note}`);
      void vscode.window.showWarningMessage(`msgbrowse: ${r.note}.`);
      return { ref, status: 'gone', note: r.note };
    }
    const m = r.message;
    // The panel follows the citation as read: to the message's current id, with the note as its notice.
    at(m.conversationId, { hash: ref.hash, ...(seen === this.refreshes ? { opened } : {}) });
    const now = { conversationId: m.conversationId, messageId: m.id };
    const outcome: CitationOutcome = { ref, status: r.status, opened: now };
    if (r.status === 'moved' && r.note) {
      outcome.note = r.note;
      this.deps.log.info(`${where}: ${r.note}`);
      void vscode.window.showInformationMessage(`msgbrowse: ${r.note}.`);
    }
    return outcome;
  }

  refreshAll(): void {
    this.refreshes++;
    for (const p of this.panels.values()) p.refresh();
  }

  dispose(): void {
    for (const p of this.panels.values()) p.panel.dispose();
    this.panels.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
