/**
 * Conversation viewer panels: one webview per conversation, keyset-paged through the archive in both directions,
 * restored after a reload by a WebviewPanelSerializer. The webview only ever receives plain data.
 */
import * as vscode from 'vscode';
import type { AsyncArchive, MessageRow } from '../../archive/types';
import type { CitationRef } from '../citations';
import { VIEWER_VIEW_TYPE } from '../constants';
import { isInlineImage, resolveAttachment } from './attachments';
import { viewerHtml } from './html';
import {
  type FoundReport,
  type PagedReport,
  type ShownReport,
  parseFromWebview,
  parseState,
  type ToWebview,
  type ViewerMessage,
  type ViewerState,
} from './protocol';

const PAGE = 60;
const FIND_LIMIT = 500;
const END = Number.MAX_SAFE_INTEGER;

export interface ViewerDeps {
  extensionUri: vscode.Uri;
  archive(): Promise<AsyncArchive>;
  /** Directory the archive's attachment paths are relative to, when known. */
  attachmentRoot(): string | undefined;
  citationUri(ref: CitationRef): string;
  log: vscode.LogOutputChannel;
}

export interface ShownEvent extends ShownReport {
  conversationId: number;
}

export interface PagedEvent extends PagedReport {
  conversationId: number;
}

export interface FoundEvent extends FoundReport {
  conversationId: number;
}

export interface OpenOptions {
  messageId?: number;
  highlight?: boolean;
  viewColumn?: vscode.ViewColumn;
  preserveFocus?: boolean;
}

class ViewerPanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  state: ViewerState;
  private ready = false;
  private pending: { focusId?: number; highlight: boolean } | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    state: ViewerState,
    private readonly deps: ViewerDeps,
    private readonly onShown: (e: ShownEvent) => void,
    private readonly onPaged: (e: PagedEvent) => void,
    private readonly onFound: (e: FoundEvent) => void,
    onDispose: () => void,
  ) {
    this.state = state;
    panel.webview.options = webviewOptions(deps);
    panel.webview.html = viewerHtml(panel.webview, deps.extensionUri);
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'icon.png');
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => void this.handle(raw)),
      // Without retainContextWhenHidden the webview document is discarded while hidden and re-created (it then
      // posts 'ready' again and is rebuilt from the saved state), so nothing may be posted to it meanwhile.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
      panel.onDidDispose(() => {
        onDispose();
        this.dispose();
      }),
    );
  }

  get conversationId(): number {
    return this.state.conversationId;
  }

  /** Shows the conversation around `focusId` (or its end) once the webview is ready. */
  show(focusId: number | undefined, highlight: boolean): void {
    this.pending = { focusId, highlight };
    if (this.ready) void this.flush();
  }

  private post(msg: ToWebview): void {
    this.deps.log.debug(`viewer ${this.conversationId}: posting ${msg.type} (ready=${this.ready})`);
    void this.panel.webview.postMessage(msg);
  }

  /** Loads the requested view. `pending` stays set until the webview confirms it rendered it ('shown'). */
  private async flush(): Promise<void> {
    const p = this.pending;
    if (!p) return;
    try {
      await this.load(p.focusId, p.highlight);
    } catch (e) {
      this.pending = undefined;
      this.post({ type: 'error', message: errorText(e) });
      this.deps.log.error(`viewer: ${errorText(e)}`);
    }
  }

  private async handle(raw: unknown): Promise<void> {
    const msg = parseFromWebview(raw);
    if (!msg) return;
    if (msg.type !== 'state') this.deps.log.debug(`viewer ${this.conversationId}: webview says ${msg.type}`);
    try {
      switch (msg.type) {
        case 'ready': {
          this.ready = true;
          if (!this.pending) {
            const s = msg.state && msg.state.conversationId === this.conversationId ? msg.state : this.state;
            this.pending = { focusId: s.highlightId ?? s.anchorId, highlight: s.highlightId !== undefined };
          }
          await this.flush();
          break;
        }
        case 'loadMore':
          await this.loadMore(msg.direction, msg.edgeId);
          break;
        case 'jump':
          await this.load(msg.messageId, true);
          break;
        case 'find':
          await this.find(msg.query);
          break;
        case 'copyCitation': {
          const uri = this.deps.citationUri({ conversationId: this.conversationId, messageId: msg.messageId });
          await vscode.env.clipboard.writeText(uri);
          vscode.window.setStatusBarMessage(`Copied citation ${uri}`, 3000);
          break;
        }
        case 'openLink':
          await vscode.env.openExternal(vscode.Uri.parse(msg.url, true));
          break;
        case 'shown': {
          if (this.pending && (this.pending.focusId ?? 0) === msg.focusId) this.pending = undefined;
          const { type: _t, ...report } = msg;
          this.onShown({ conversationId: this.conversationId, ...report });
          break;
        }
        case 'paged': {
          const { type: _t, ...report } = msg;
          this.onPaged({ conversationId: this.conversationId, ...report });
          break;
        }
        case 'found': {
          const { type: _t, ...report } = msg;
          this.onFound({ conversationId: this.conversationId, ...report });
          break;
        }
        case 'state':
          if (msg.state.conversationId === this.conversationId) this.state = msg.state;
          break;
      }
    } catch (e) {
      this.post({ type: 'error', message: errorText(e) });
    }
  }

  private async load(focusId: number | undefined, highlight: boolean): Promise<void> {
    const archive = await this.deps.archive();
    const conv = await archive.conversationById(this.conversationId);
    if (!conv) throw new Error(`Conversation ${this.conversationId} is not in the current archive.`);
    this.panel.title = conv.name;
    let messages: MessageRow[];
    let hasBefore: boolean;
    let hasAfter: boolean;
    let focus: MessageRow | undefined;
    if (focusId !== undefined) {
      focus = await archive.messageById(focusId);
      if (focus && focus.conversationId !== conv.id) {
        throw new Error(`Message ${focusId} belongs to conversation ${focus.conversationId}, not ${conv.id}.`);
      }
      if (!focus && highlight) {
        this.post({ type: 'error', message: `Message ${focusId} is not in the current archive; showing the latest messages.` });
      }
    }
    if (focus) {
      const before = await archive.transcript({
        conversationId: conv.id,
        before: { tsUnix: focus.tsUnix, id: focus.id },
        limit: PAGE / 2,
      });
      const after = await archive.transcript({
        conversationId: conv.id,
        after: { tsUnix: focus.tsUnix, id: focus.id - 1 },
        limit: PAGE / 2 + 1,
      });
      messages = [...before.messages, ...after.messages];
      hasBefore = before.next !== undefined;
      hasAfter = after.next !== undefined;
    } else {
      const tail = await archive.transcript({ conversationId: conv.id, before: { tsUnix: END, id: END }, limit: PAGE });
      messages = tail.messages;
      hasBefore = tail.next !== undefined;
      hasAfter = false;
    }
    this.state = { conversationId: conv.id, anchorId: focus?.id, highlightId: highlight && focus ? focus.id : undefined };
    this.post({
      type: 'load',
      conversation: { id: conv.id, name: conv.name, source: conv.source, messageCount: conv.messageCount },
      messages: await this.enrich(archive, messages),
      hasBefore,
      hasAfter,
      focusId: focus?.id,
      highlight: highlight && !!focus,
    });
  }

  private async loadMore(direction: 'before' | 'after', edgeId: number): Promise<void> {
    const archive = await this.deps.archive();
    const edge = await archive.messageById(edgeId);
    if (!edge || edge.conversationId !== this.conversationId) {
      this.post({ type: 'page', direction, messages: [], hasMore: false });
      return;
    }
    const cursor = { tsUnix: edge.tsUnix, id: edge.id };
    const page = await archive.transcript(
      direction === 'before'
        ? { conversationId: this.conversationId, before: cursor, limit: PAGE }
        : { conversationId: this.conversationId, after: cursor, limit: PAGE },
    );
    this.post({
      type: 'page',
      direction,
      messages: await this.enrich(archive, page.messages),
      hasMore: page.next !== undefined,
    });
  }

  private async find(query: string): Promise<void> {
    const archive = await this.deps.archive();
    try {
      const hits = await archive.searchKeyword({ query, conversationId: this.conversationId, limit: FIND_LIMIT });
      const ids = [...hits].sort((a, b) => a.tsUnix - b.tsUnix || a.id - b.id).map((h) => h.id);
      this.post({ type: 'findResults', query, ids, truncated: hits.length >= FIND_LIMIT });
    } catch (e) {
      this.post({ type: 'findResults', query, ids: [], truncated: false, error: errorText(e) });
    }
  }

  private async enrich(archive: AsyncArchive, rows: MessageRow[]): Promise<ViewerMessage[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id);
    const [atts, reactions] = await Promise.all([
      archive.attachmentsForMessages(ids),
      archive.reactionsForHashes(rows.map((r) => r.hash)),
    ]);
    const root = this.deps.attachmentRoot();
    const webview = this.panel.webview;
    return rows.map((r) => {
      const rx = new Map<string, string[]>();
      for (const x of reactions) {
        if (x.messageHash !== r.hash) continue;
        const list = rx.get(x.emoji) ?? [];
        list.push(x.actor);
        rx.set(x.emoji, list);
      }
      return {
        id: r.id,
        sender: r.sender,
        ts: r.ts,
        tsUnix: r.tsUnix,
        body: r.body,
        isSystem: r.isSystem,
        attachments: atts
          .filter((a) => a.messageId === r.id)
          .map((a) => {
            const file = root && a.kind === 'image' ? resolveAttachment(root, a.source, a.conversation, a.relPath) : undefined;
            return {
              kind: String(a.kind),
              name: a.originalName,
              relPath: a.relPath,
              src: file && isInlineImage(file) ? webview.asWebviewUri(vscode.Uri.file(file)).toString() : undefined,
            };
          }),
        reactions: [...rx].map(([emoji, actors]) => ({ emoji, actors })),
      };
    });
  }

  scrollEdge(edge: 'top' | 'bottom'): void {
    this.post({ type: 'scrollEdge', edge });
  }

  setFind(query: string): void {
    this.post({ type: 'setFind', query });
  }

  /** Re-reads the conversation after the archive changed, keeping the reader's place. */
  refresh(): void {
    // Changing the options reloads the webview: only do it when the attachment root changed.
    const next = webviewOptions(this.deps);
    const roots = (o: vscode.WebviewOptions) => (o.localResourceRoots ?? []).map((u) => u.toString()).join('|');
    if (roots(next) !== roots(this.panel.webview.options)) this.panel.webview.options = next;
    // A view that was requested but not yet shown wins over the reader's last position.
    if (this.pending) this.show(this.pending.focusId, this.pending.highlight);
    else this.show(this.state.highlightId ?? this.state.anchorId, this.state.highlightId !== undefined);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function webviewOptions(deps: ViewerDeps): vscode.WebviewOptions {
  const roots = [vscode.Uri.joinPath(deps.extensionUri, 'media'), vscode.Uri.joinPath(deps.extensionUri, 'dist')];
  const att = deps.attachmentRoot();
  if (att) roots.push(vscode.Uri.file(att));
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: roots };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
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

  /** Resolves with the webview's acknowledgement that `messageId` is rendered (and highlighted). */
  waitForShown(conversationId: number, messageId: number, timeoutMs = 15000): Promise<ShownEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.dispose();
        reject(new Error(`viewer did not show message ${messageId} of conversation ${conversationId} within ${timeoutMs} ms`));
      }, timeoutMs);
      const sub = this.onDidShow((e) => {
        if (e.conversationId === conversationId && e.focusId === messageId) {
          clearTimeout(timer);
          sub.dispose();
          resolve(e);
        }
      });
    });
  }

  /**
   * Scrolls a conversation's viewer to its top/bottom edge (loading pages as a reader scrolling would) and
   * resolves with the webview's report of the page it rendered.
   */
  scrollEdge(conversationId: number, edge: 'top' | 'bottom', timeoutMs = 15000): Promise<PagedEvent> {
    const vp = this.panels.get(conversationId);
    if (!vp) return Promise.reject(new Error(`no viewer is open for conversation ${conversationId}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.dispose();
        reject(new Error(`viewer of conversation ${conversationId} loaded no page within ${timeoutMs} ms`));
      }, timeoutMs);
      const sub = this.onDidPage((e) => {
        if (e.conversationId !== conversationId) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(e);
      });
      vp.scrollEdge(edge);
    });
  }

  /** Runs find-in-conversation in a viewer and resolves with what it found and moved to. */
  find(conversationId: number, query: string, timeoutMs = 15000): Promise<FoundEvent> {
    const vp = this.panels.get(conversationId);
    if (!vp) return Promise.reject(new Error(`no viewer is open for conversation ${conversationId}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.dispose();
        reject(new Error(`find "${query}" in conversation ${conversationId} reported nothing within ${timeoutMs} ms`));
      }, timeoutMs);
      const sub = this.onDidFind((e) => {
        if (e.conversationId !== conversationId || e.query !== query) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(e);
      });
      vp.setFind(query);
    });
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
