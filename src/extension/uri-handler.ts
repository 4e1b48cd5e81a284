/**
 * Handles `${uriScheme}://msgbrowse.msgbrowse-vscode/c/<id>/at/<message_id>?h=<hash prefix>` (citation links from
 * Copilot chat); `open` resolves the hash (ViewerManager.openCitation). Links without `h` open by id, as before.
 */
import * as vscode from 'vscode';
import { parseCitationPath, type CitationRef } from './citation-ref';

export class CitationUriHandler implements vscode.UriHandler {
  /** Every URI received (for diagnostics and tests). */
  readonly received: string[] = [];

  constructor(
    private readonly open: (ref: CitationRef) => void,
    private readonly openConversation: (conversationId: number) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  handleUri(uri: vscode.Uri): void {
    this.received.push(uri.toString());
    const ref = parseCitationPath(uri.path, uri.query);
    const conv = /^\/?c\/(\d{1,15})\/?$/.exec(uri.path);
    if (!ref && conv) {
      this.openConversation(Number(conv[1]));
      return;
    }
    if (!ref) {
      this.log.warn(`ignored URI ${uri.toString()}: expected /c/<conversation_id>/at/<message_id>`);
      void vscode.window.showWarningMessage(
        `msgbrowse cannot open "${uri.path}": citation links look like /c/<conversation_id>/at/<message_id>.`,
      );
      return;
    }
    this.log.info(
      `opening citation c/${ref.conversationId}/at/${ref.messageId}${ref.hash ? `?h=${ref.hash}` : ' (no hash: not checked)'}`,
    );
    this.open(ref);
  }
}
