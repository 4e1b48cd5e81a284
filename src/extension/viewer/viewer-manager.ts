/**
 * The conversation viewers: at most one panel per conversation, restored after a reload by a
 * WebviewPanelSerializer. Panels report what their webview rendered through the onDid* events (what the
 * integration tests' waiters, viewer-test-hooks.ts, listen to).
 */
import * as vscode from 'vscode';
import { resolveCitation } from '../../core';
import type { CitationRef } from '../citation-ref';
import { VIEWER_VIEW_TYPE } from '../constants';
import { parseState, type ViewerState } from './webview-protocol';
import {
  type FoundEvent,
  type PagedEvent,
  type ShownEvent,
  type ViewerDeps,
  ViewerPanel,
  webviewOptions,
} from './viewer-panel';

export interface OpenOptions {
  messageId?: number;
  highlight?: boolean;
  viewColumn?: vscode.ViewColumn;
  preserveFocus?: boolean;
  /** The focused message's hash (checked by the panel, and followed on refresh). */
  hash?: string;
  /** Shown above the messages. */
  notice?: string;
}

/** How a citation was opened (what the user was told), for the log and the integration tests. */
export interface CitationOutcome {
  ref: CitationRef;
  status: 'exact' | 'moved' | 'gone' | 'unchecked';
  /** Where the viewer opened, unless gone. */
  opened?: { conversationId: number; messageId: number };
  note?: string;
}

export class ViewerManager implements vscode.Disposable {
  private readonly panels = new Map<number, ViewerPanel>();
  private readonly shownEmitter = new vscode.EventEmitter<ShownEvent>();
  readonly onDidShow = this.shownEmitter.event;
  private readonly pagedEmitter = new vscode.EventEmitter<PagedEvent>();
  readonly onDidPage = this.pagedEmitter.event;
  private readonly foundEmitter = new vscode.EventEmitter<FoundEvent>();
  readonly onDidFind = this.foundEmitter.event;
  private readonly citedEmitter = new vscode.EventEmitter<CitationOutcome>();
  readonly onDidOpenCitation = this.citedEmitter.event;
  private readonly disposables: vscode.Disposable[] = [
    this.shownEmitter,
    this.pagedEmitter,
    this.foundEmitter,
    this.citedEmitter,
  ];

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
    vp.show(opts.messageId, opts.highlight ?? opts.messageId !== undefined, { hash: opts.hash, notice: opts.notice });
  }

  /**
   * Opens a citation, highlighted. One with a hash is resolved first: the message moved after a re-import → the
   * viewer opens at its current conversation and id and says so; it is gone → a warning, and no viewer at whatever
   * message holds the old id now. One without a hash (older links) opens by id, as before.
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
    this.citedEmitter.fire(outcome);
    return outcome;
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
