/** Opens `${uriScheme}://msgbrowse.msgbrowse-vscode/c/<id>/at/<message_id>?h=<hash>` links (citations in chat). */
import * as vscode from 'vscode';
import { parseCitationPath, type CitationRef } from './citation-ref';

export class CitationUriHandler implements vscode.UriHandler {
  constructor(
    private readonly open: (ref: CitationRef) => void,
    private readonly openConversation: (conversationId: number) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  handleUri(uri: vscode.Uri): void {
    const ref = parseCitationPath(uri.path, uri.query);
    const conv = /^\/?c\/(\d{1,15})\/?$/.exec(uri.path);
    if (ref) {
      const anchor = ref.hash ? `?h=${ref.hash}` : ' (no hash: not checked)';
      this.log.info(`opening citation c/${ref.conversationId}/at/${ref.messageId}${anchor}`);
      this.open(ref);
    } else if (conv) this.openConversation(Number(conv[1]));
    else {
      this.log.warn(`ignored URI ${uri.toString()}: expected /c/<conversation_id>/at/<message_id>`);
      void vscode.window.showWarningMessage(
        `msgbrowse cannot open "${uri.path}": citation links look like /c/<conversation_id>/at/<message_id>.`,
      );
    }
  }
}
