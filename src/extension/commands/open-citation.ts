/** `msgbrowse.openCitation(conversationId, messageId, hash?)`: the target of citation document links; opens the
 * viewer at the message, highlighted, the hash checked (ViewerManager.openCitation: moved → followed and said, gone
 * → a warning). `openCitation()` is shared with the URI handler, the search pick and the API. */
import * as vscode from 'vscode';
import { parseCitationHash } from '../../core';
import type { CitationRef } from '../citation-ref';
import { OPEN_CITATION_COMMAND } from '../citation-link-provider';
import type { ViewerManager } from '../viewer/viewer-manager';
import type { Command } from './command-manager';

export function openCitation(
  viewer: ViewerManager,
  ref: CitationRef,
  side = false,
  log?: vscode.LogOutputChannel,
): void {
  viewer.openCitation(ref, { viewColumn: side ? vscode.ViewColumn.Beside : undefined }).catch((e: unknown) => {
    const text = e instanceof Error ? e.message : String(e);
    log?.error(`opening citation c/${ref.conversationId}/at/${ref.messageId}: ${text}`);
    void vscode.window.showErrorMessage(`msgbrowse: cannot open the citation: ${text}`);
  });
}

export class OpenCitationCommand implements Command {
  readonly id = OPEN_CITATION_COMMAND;

  constructor(private readonly viewer: ViewerManager) {}

  execute(conversationId: unknown, messageId: unknown, hash?: unknown): void {
    if (typeof conversationId !== 'number' || typeof messageId !== 'number') return;
    const h = typeof hash === 'string' ? parseCitationHash(hash) : undefined;
    openCitation(this.viewer, { conversationId, messageId, ...(h ? { hash: h } : {}) });
  }
}
