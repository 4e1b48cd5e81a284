/** Opening the viewer: at a citation, on a conversation, or from the search QuickPick. */
import * as vscode from 'vscode';
import { parseCitationHash } from '../../core';
import type { ArchiveService } from '../archive-service';
import { refOf, type CitationRef } from '../citation-ref';
import { showSearchPick } from '../search-pick';
import type { SearchResult, SearchService } from '../search-service';
import type { ViewerManager } from '../viewer/viewer-manager';

/** Opens a citation, highlighted; shared by the commands, the URI handler, the pickers and the API. */
export function openCitation(viewer: ViewerManager, ref: CitationRef, side = false, log?: vscode.LogOutputChannel) {
  viewer.openCitation(ref, { viewColumn: side ? vscode.ViewColumn.Beside : undefined }).catch((e: unknown) => {
    const text = e instanceof Error ? e.message : String(e);
    log?.error(`opening citation c/${ref.conversationId}/at/${ref.messageId}: ${text}`);
    void vscode.window.showErrorMessage(`msgbrowse: cannot open the citation: ${text}`);
  });
}

/** `msgbrowse.openCitation(conversationId, messageId, hash?)`: the target of citation document links. */
export function openCitationCommand(
  viewer: ViewerManager,
  conversationId: unknown,
  messageId: unknown,
  hash?: unknown,
) {
  if (typeof conversationId !== 'number' || typeof messageId !== 'number') return;
  const h = typeof hash === 'string' ? parseCitationHash(hash) : undefined;
  openCitation(viewer, { conversationId, messageId, ...(h ? { hash: h } : {}) });
}

/** `msgbrowse.openConversation([conversationId[, messageId]])`: picks one when no id is given. */
export async function openConversation(
  archive: ArchiveService,
  viewer: ViewerManager,
  conversationId?: unknown,
  messageId?: unknown,
): Promise<{ conversationId: number } | undefined> {
  if (typeof conversationId === 'number') {
    viewer.open(conversationId, { messageId: typeof messageId === 'number' ? messageId : undefined });
    return { conversationId };
  }
  const a = await archive.archive().catch((e: unknown) => {
    void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
    return undefined;
  });
  if (!a) return undefined;
  const rows = await a.listConversations();
  const items = [...rows]
    .sort((x, y) => y.lastUnix - x.lastUnix)
    .map((r) => ({
      label: r.name,
      description: `${r.source} · ${r.messageCount} messages`,
      detail: `last ${r.lastTs}`,
      id: r.id,
    }));
  const pick = await vscode.window.showQuickPick(items, {
    title: 'msgbrowse: Open Conversation',
    matchOnDescription: true,
    placeHolder: 'Conversation name',
  });
  if (!pick) return undefined;
  viewer.open(pick.id);
  return { conversationId: pick.id };
}

/** `msgbrowse.searchMessages([query])`: resolves with the results of a query, else opens the live search. */
export async function searchMessages(
  search: SearchService,
  viewer: ViewerManager,
  query?: unknown,
): Promise<SearchResult | undefined> {
  if (typeof query === 'string' && query.trim()) return search.search(query.trim());
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
  showSearchPick(search, (hit, o) => openCitation(viewer, refOf(hit), o.side), selected.slice(0, 200));
  return undefined;
}
