/** Citation links in every editor (a command URI: no consent prompt) and a preview of the cited message on hover. */
import * as vscode from 'vscode';
import { type AsyncArchive, type MessageRow, resolveCitation } from '../core';
import { findCitations, type CitationRef } from './citation-ref';

export const OPEN_CITATION_COMMAND = 'msgbrowse.openCitation';

function commandUri(ref: CitationRef): vscode.Uri {
  return vscode.Uri.parse(
    `command:${OPEN_CITATION_COMMAND}?${encodeURIComponent(JSON.stringify([ref.conversationId, ref.messageId, ...(ref.hash ? [ref.hash] : [])]))}`,
  );
}

export class CitationLinkProvider implements vscode.DocumentLinkProvider, vscode.HoverProvider {
  constructor(private readonly archive: () => Promise<AsyncArchive>) {}

  provideDocumentLinks(doc: vscode.TextDocument): vscode.DocumentLink[] {
    if (doc.lineCount > 200_000) return [];
    return findCitations(doc.getText()).map((m) => {
      const range = new vscode.Range(doc.positionAt(m.start), doc.positionAt(m.start + m.length));
      const link = new vscode.DocumentLink(range, commandUri(m));
      link.tooltip = `Open message ${m.messageId} in the msgbrowse viewer`;
      return link;
    });
  }

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position): Promise<vscode.Hover | undefined> {
    const hit = findCitations(doc.lineAt(pos.line).text).find(
      (m) => pos.character >= m.start && pos.character <= m.start + m.length,
    );
    if (!hit) return undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: [OPEN_CITATION_COMMAND] };
    await this.preview(md, hit).catch((e: unknown) =>
      md.appendText(`msgbrowse: ${e instanceof Error ? e.message : String(e)}`),
    );
    return new vscode.Hover(md, new vscode.Range(pos.line, hit.start, pos.line, hit.start + hit.length));
  }

  private async preview(md: vscode.MarkdownString, hit: CitationRef): Promise<void> {
    const a = await this.archive();
    let msg: MessageRow | undefined;
    if (hit.hash) {
      // Anchored: checked by hash; a message that moved is previewed where it is now, one that is gone says so.
      const r = await resolveCitation(a, hit);
      if (r.status === 'gone') return void md.appendText(`msgbrowse: ${r.note}.`);
      msg = r.message;
      if (r.status === 'moved') {
        md.appendMarkdown('*')
          .appendText(`${r.note.charAt(0).toUpperCase()}${r.note.slice(1)}.`)
          .appendMarkdown('*\n\n');
      }
    } else {
      msg = await a.messageById(hit.messageId);
      if (!msg || msg.conversationId !== hit.conversationId) {
        const where = `message ${hit.messageId} is not in conversation ${hit.conversationId}`;
        return void md.appendText(`msgbrowse: ${where} of the current archive.`);
      }
    }
    md.appendMarkdown('**').appendText(msg.sender).appendMarkdown('** · ');
    md.appendText(`${msg.conversation} (${msg.source}) · ${msg.ts}`).appendMarkdown('\n\n');
    md.appendCodeblock(msg.body.length > 600 ? `${msg.body.slice(0, 600)}…` : msg.body, 'text');
    md.appendMarkdown(`[Open in viewer](${commandUri(hit).toString()})`);
  }
}
