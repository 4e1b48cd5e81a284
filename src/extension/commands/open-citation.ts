/** `msgbrowse.openCitation(conversationId, messageId)`: the target of citation document links; opens the viewer
 * at the message, highlighted. `openCitation()` is shared with the URI handler, the search pick and the API. */
import * as vscode from 'vscode';
import type { CitationRef } from '../citation-ref';
import { OPEN_CITATION_COMMAND } from '../citation-link-provider';
import type { ViewerManager } from '../viewer/viewer-manager';
import type { Command } from './command-manager';

export function openCitation(viewer: ViewerManager, ref: CitationRef, side = false): void {
  viewer.open(ref.conversationId, {
    messageId: ref.messageId,
    highlight: true,
    viewColumn: side ? vscode.ViewColumn.Beside : undefined,
  });
}

export class OpenCitationCommand implements Command {
  readonly id = OPEN_CITATION_COMMAND;

  constructor(private readonly viewer: ViewerManager) {}

  execute(conversationId: unknown, messageId: unknown): void {
    if (typeof conversationId !== 'number' || typeof messageId !== 'number') return;
    openCitation(this.viewer, { conversationId, messageId });
  }
}
