/** One conversation viewer: a webview paged through its conversation both ways; it only ever receives plain data. */
import * as vscode from 'vscode';
import {
  type AsyncArchive,
  citationHash,
  type ConversationPageView,
  type OpenedCitation,
  openCitation,
  type PageMessage,
  readConversationPage,
} from '../../core';
import type { CitationRef } from '../citation-ref';
import { isInlineImage, resolveAttachment } from './attachments';
import { viewerHtml } from './html';
import { parseFromWebview, type ToWebview, type ViewerMessage, type ViewerState } from './webview-protocol';

export const VIEWER_PAGE = 60;
const FIND_LIMIT = 500;

export interface ViewerDeps {
  extensionUri: vscode.Uri;
  archive(): Promise<AsyncArchive>;
  hiddenFromModel?(c: { name: string; source: string }): boolean;
  attachmentRoot(): string | undefined;
  citationUri(ref: CitationRef): string;
  log: vscode.LogOutputChannel;
}

export interface ShowOptions {
  hash?: string;
  /** Already opened as a citation: shown as read, without reading the archive again. */
  opened?: OpenedCitation;
}

interface Pending extends ShowOptions {
  focusId?: number;
  highlight: boolean;
  notice?: string;
}

/** The view a saved state asks for: its highlight (followed by hash), else its anchor. */
function viewOf(s: ViewerState): Pending {
  const highlight = s.highlightId !== undefined;
  return {
    focusId: s.highlightId ?? s.anchorId,
    highlight,
    ...(highlight && s.highlightHash ? { hash: s.highlightHash } : {}),
  };
}

export class ViewerPanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  /** Until the webview reports it 'shown'. */
  private pending: Pending | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    public state: ViewerState,
    private readonly deps: ViewerDeps,
    onDispose: () => void,
  ) {
    panel.webview.options = webviewOptions(deps);
    panel.webview.html = viewerHtml(panel.webview, deps.extensionUri);
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'icon.png');
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => void this.handle(raw)),
      // Without retainContextWhenHidden a hidden webview is discarded, then rebuilt from its saved state once it
      // posts 'ready' again: nothing may be posted to it meanwhile.
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

  show(focusId: number | undefined, highlight: boolean, opts: ShowOptions = {}): void {
    this.pending = { focusId, highlight, ...opts };
    if (this.ready) void this.flush();
  }

  private post(msg: ToWebview): void {
    this.deps.log.debug(`viewer ${this.conversationId}: posting ${msg.type} (ready=${this.ready})`);
    void this.panel.webview.postMessage(msg);
  }

  private async flush(): Promise<void> {
    const p = this.pending;
    if (!p) return;
    try {
      await this.load(p);
    } catch (e) {
      this.pending = undefined;
      this.post({ type: 'error', message: errorText(e) });
      this.deps.log.error(`viewer: ${errorText(e)}`);
    }
  }

  async handle(raw: unknown): Promise<void> {
    const msg = parseFromWebview(raw);
    if (!msg) return;
    if (msg.type !== 'state') this.deps.log.debug(`viewer ${this.conversationId}: webview says ${msg.type}`);
    try {
      switch (msg.type) {
        case 'ready':
          this.ready = true;
          this.pending ??= viewOf(msg.state?.conversationId === this.conversationId ? msg.state : this.state);
          return await this.flush();
        case 'loadMore':
          return await this.loadMore(msg.direction, msg.edgeId);
        case 'jump':
          return await this.load({ focusId: msg.messageId, highlight: true });
        case 'find':
          return await this.find(msg.query);
        case 'copyCitation': {
          const hash = msg.hash ? { hash: citationHash(msg.hash) } : {};
          const uri = this.deps.citationUri({ conversationId: this.conversationId, messageId: msg.messageId, ...hash });
          await vscode.env.clipboard.writeText(uri);
          vscode.window.setStatusBarMessage(`Copied citation ${uri}`, 3000);
          return;
        }
        case 'openLink':
          await vscode.env.openExternal(vscode.Uri.parse(msg.url, true));
          return;
        case 'shown':
          if (this.pending && (this.pending.focusId ?? 0) === msg.focusId) this.pending = undefined;
          return;
        case 'state':
          if (msg.state.conversationId === this.conversationId) this.state = msg.state;
          return;
      }
    } catch (e) {
      this.post({ type: 'error', message: errorText(e) });
    }
  }

  private async read(p: Pending): Promise<{ page?: ConversationPageView; opened?: OpenedCitation }> {
    if (p.opened) return { page: p.opened.page, opened: p.opened };
    const archive = await this.deps.archive();
    const conversationId = this.conversationId;
    if (p.focusId === undefined) {
      return { page: await readConversationPage(archive, { conversationId, at: { kind: 'end' }, limit: VIEWER_PAGE }) };
    }
    const cited = { conversationId, messageId: p.focusId, ...(p.hash ? { hash: p.hash } : {}) };
    const opened = await openCitation(archive, cited, { limit: VIEWER_PAGE, conversationId });
    return { page: opened.page, opened };
  }

  /**
   * With a hash the focus is a citation: a message that moved is followed to its current id, and one that is gone is
   * never replaced by whatever holds its old id now (the view shows the latest messages and says why).
   */
  private async load(p: Pending): Promise<void> {
    const { page, opened } = await this.read(p);
    const conv = page?.conversation;
    if (!page || !conv) throw new Error(`Conversation ${this.conversationId} is not in the current archive.`);
    this.panel.title = this.deps.hiddenFromModel?.(conv) ? `${conv.name} (hidden from Copilot)` : conv.name;
    const r = opened?.resolution;
    let { highlight, notice } = p;
    let resolved: Partial<Pending> = {};
    if (p.hash && r?.status === 'moved' && r.message.conversationId === conv.id) {
      resolved = { focusId: r.message.id };
      notice ??= sentence(r.note);
    } else if (p.hash && r && r.status !== 'exact') {
      resolved = { focusId: undefined, highlight: false, hash: undefined };
      highlight = false;
      notice = sentence(r.status === 'moved' ? `${r.note}; open it from there` : r.note);
    } else if (r?.status === 'exact' && r.message.conversationId !== conv.id) {
      throw new Error(`Message ${p.focusId} belongs to conversation ${r.message.conversationId}, not ${conv.id}.`);
    }
    // What is pending is now the resolved view (so the webview's 'shown' for it clears it); what was read is used once.
    if (this.pending === p) Object.assign(p, resolved, { notice, opened: undefined });
    const focus = page.anchor;
    if (p.focusId !== undefined && !focus && highlight) {
      notice ??= `Message ${p.focusId} is not in the current archive; showing the latest messages.`;
    }
    const highlighted = highlight && focus ? { highlightId: focus.id, highlightHash: focus.hash } : {};
    this.state = { conversationId: conv.id, anchorId: focus?.id, highlightId: undefined, ...highlighted };
    const digest = opened?.digest;
    this.post({
      type: 'load',
      conversation: { id: conv.id, name: conv.name, source: conv.source, messageCount: conv.messageCount },
      ...(digest
        ? { digest: { day: digest.day, summary: digest.summary, mood: digest.mood, stale: digest.stale } }
        : {}),
      messages: this.toWebview(page.messages),
      hasBefore: page.hasBefore,
      hasAfter: page.hasAfter,
      focusId: focus?.id,
      highlight: highlight && !!focus,
      ...(notice ? { notice } : {}),
    });
  }

  private async loadMore(direction: 'before' | 'after', edgeId: number): Promise<void> {
    // An edge that is unknown or belongs to another conversation gives an empty page with nothing more.
    const page = await readConversationPage(await this.deps.archive(), {
      conversationId: this.conversationId,
      at: { kind: direction, messageId: edgeId },
      limit: VIEWER_PAGE,
    });
    const hasMore = direction === 'before' ? page.hasBefore : page.hasAfter;
    this.post({ type: 'page', direction, messages: this.toWebview(page.messages), hasMore });
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

  private toWebview(rows: PageMessage[]): ViewerMessage[] {
    const root = this.deps.attachmentRoot();
    const webview = this.panel.webview;
    return rows.map((r) => ({
      id: r.id,
      hash: r.hash,
      sender: r.sender,
      ts: r.ts,
      tsUnix: r.tsUnix,
      body: r.body,
      isSystem: r.isSystem,
      attachments: r.attachments.map((a) => {
        const file =
          root && a.kind === 'image' ? resolveAttachment(root, a.source, a.conversation, a.relPath) : undefined;
        return {
          kind: String(a.kind),
          name: a.originalName,
          relPath: a.relPath,
          src: file && isInlineImage(file) ? webview.asWebviewUri(vscode.Uri.file(file)).toString() : undefined,
        };
      }),
      reactions: r.reactions,
    }));
  }

  refresh(): void {
    // Changing the options reloads the webview: only do it when the attachment root changed.
    const next = webviewOptions(this.deps);
    const roots = (o: vscode.WebviewOptions) => (o.localResourceRoots ?? []).map((u) => u.toString()).join('|');
    if (roots(next) !== roots(this.panel.webview.options)) this.panel.webview.options = next;
    // A view asked for but not shown yet wins over the reader's last position.
    const p = this.pending ?? viewOf(this.state);
    this.show(p.focusId, p.highlight, p.hash ? { hash: p.hash } : {});
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

export function webviewOptions(deps: ViewerDeps): vscode.WebviewOptions {
  const roots = [vscode.Uri.joinPath(deps.extensionUri, 'media'), vscode.Uri.joinPath(deps.extensionUri, 'dist')];
  const att = deps.attachmentRoot();
  if (att) roots.push(vscode.Uri.file(att));
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: roots };
}

function sentence(note: string): string {
  const s = note.charAt(0).toUpperCase() + note.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
