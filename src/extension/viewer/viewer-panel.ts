/**
 * One conversation viewer panel: a webview keyset-paged through its conversation in both directions, each page
 * read with one core call (readConversationPage: one archive call, one read snapshot). The webview only ever
 * receives plain data.
 */
import * as vscode from 'vscode';
import {
  type AsyncArchive,
  citationHash,
  digestOfDayAt,
  type PageMessage,
  readConversationPage,
  resolveCitation,
} from '../../core';
import type { CitationRef } from '../citation-ref';
import { isInlineImage, resolveAttachment } from './attachments';
import { viewerHtml } from './html';
import {
  type FoundReport,
  type PagedReport,
  type ShownReport,
  parseFromWebview,
  type ToWebview,
  type ViewerMessage,
  type ViewerState,
} from './webview-protocol';

const PAGE = 60;
const FIND_LIMIT = 500;

export interface ViewerDeps {
  extensionUri: vscode.Uri;
  archive(): Promise<AsyncArchive>;
  /** Whether Copilot cannot see a conversation (msgbrowse.privacy.excludeConversations): the title says so. */
  hiddenFromModel?(c: { name: string; source: string }): boolean;
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

/** A view to show: around `focusId` (else the end); `hash` anchors the focused message, `notice` is shown above. */
export interface ShowOptions {
  hash?: string;
  notice?: string;
}

interface Pending extends ShowOptions {
  focusId?: number;
  highlight: boolean;
}

export class ViewerPanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  state: ViewerState;
  private ready = false;
  private pending: Pending | undefined;

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
  show(focusId: number | undefined, highlight: boolean, opts: ShowOptions = {}): void {
    this.pending = { focusId, highlight, ...opts };
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
      await this.load(p);
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
            this.pending = {
              focusId: s.highlightId ?? s.anchorId,
              highlight: s.highlightId !== undefined,
              ...(s.highlightId !== undefined && s.highlightHash ? { hash: s.highlightHash } : {}),
            };
          }
          await this.flush();
          break;
        }
        case 'loadMore':
          await this.loadMore(msg.direction, msg.edgeId);
          break;
        case 'jump':
          await this.load({ focusId: msg.messageId, highlight: true });
          break;
        case 'find':
          await this.find(msg.query);
          break;
        case 'copyCitation': {
          const uri = this.deps.citationUri({
            conversationId: this.conversationId,
            messageId: msg.messageId,
            ...(msg.hash ? { hash: citationHash(msg.hash) } : {}),
          });
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

  /**
   * Loads the view around `p.focusId`. With a hash the focus is resolved as a citation first: a message that moved
   * (a re-import shifted the ids) is followed to its current id, and one that is gone is never replaced by whatever
   * holds its old id now — the view then shows the latest messages, nothing highlighted, and says why.
   */
  private async load(p: Pending): Promise<void> {
    const archive = await this.deps.archive();
    let focusId = p.focusId;
    let highlight = p.highlight;
    let notice = p.notice;
    if (p.hash && focusId !== undefined) {
      const r = await resolveCitation(archive, {
        conversationId: this.conversationId,
        messageId: focusId,
        hash: p.hash,
      });
      if (r.status === 'moved' && r.message.conversationId === this.conversationId) {
        focusId = r.message.id;
        notice ??= sentence(r.note);
      } else if (r.status !== 'exact') {
        notice = sentence(r.status === 'moved' ? `${r.note}; open it from there` : r.note);
        focusId = undefined;
        highlight = false;
      }
    }
    if (this.pending === p) {
      // What is pending is now the resolved view (so the webview's 'shown' for it clears it).
      p.focusId = focusId;
      p.highlight = highlight;
      p.notice = notice;
      if (focusId === undefined) p.hash = undefined;
    }
    const page = await readConversationPage(archive, {
      conversationId: this.conversationId,
      at: focusId === undefined ? { kind: 'end' } : { kind: 'around', messageId: focusId },
      limit: PAGE,
    });
    const conv = page.conversation;
    if (!conv) throw new Error(`Conversation ${this.conversationId} is not in the current archive.`);
    this.panel.title = this.deps.hiddenFromModel?.(conv) ? `${conv.name} (hidden from Copilot)` : conv.name;
    let focus = page.anchor;
    if (focus && focus.conversationId !== conv.id) {
      throw new Error(`Message ${focusId} belongs to conversation ${focus.conversationId}, not ${conv.id}.`);
    }
    if (focus && p.hash && !focus.hash.startsWith(p.hash)) {
      // The archive changed between resolving and reading: never mark another message as the cited one.
      notice = `Message ${focusId} changed while it was being opened; open the citation again.`;
      focus = undefined;
      highlight = false;
    }
    if (focusId !== undefined && !focus && highlight) {
      notice ??= `Message ${focusId} is not in the current archive; showing the latest messages.`;
    }
    this.state = {
      conversationId: conv.id,
      anchorId: focus?.id,
      highlightId: highlight && focus ? focus.id : undefined,
      ...(highlight && focus ? { highlightHash: focus.hash } : {}),
    };
    // The journal digest of the cited message's day (msgbrowse journal), when there is one.
    const digest = focus ? await digestOfDayAt(archive, focus.tsUnix).catch(() => null) : null;
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
    const archive = await this.deps.archive();
    // An edge that is unknown or belongs to another conversation gives an empty page with nothing more.
    const page = await readConversationPage(archive, {
      conversationId: this.conversationId,
      at: { kind: direction, messageId: edgeId },
      limit: PAGE,
    });
    this.post({
      type: 'page',
      direction,
      messages: this.toWebview(page.messages),
      hasMore: direction === 'before' ? page.hasBefore : page.hasAfter,
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

  /** Plain webview data; image attachments inside the archive root become webview URIs. */
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

  /** Asks the webview to scroll to an edge, as a reader would (the integration tests' scrollViewer). */
  scrollEdge(edge: 'top' | 'bottom'): void {
    this.post({ type: 'scrollEdge', edge });
  }

  /** Fills the webview's find box and searches (the integration tests' findInViewer). */
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
    // The highlighted message is followed by its hash: a re-import may have given its id to another message.
    if (this.pending) this.show(this.pending.focusId, this.pending.highlight, { hash: this.pending.hash });
    else {
      const { highlightId, highlightHash, anchorId } = this.state;
      this.show(
        highlightId ?? anchorId,
        highlightId !== undefined,
        highlightId !== undefined && highlightHash ? { hash: highlightHash } : {},
      );
    }
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

/** A resolution note as a sentence for the viewer's notice line. */
function sentence(note: string): string {
  const s = note.charAt(0).toUpperCase() + note.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
