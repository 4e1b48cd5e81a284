/**
 * Makes citation URIs and `msgbrowse:c/<id>/at/<msg>` tokens clickable in every editor (document links open the
 * viewer through a command URI, no consent prompt) and previews the cited message on hover.
 */
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
    const line = doc.lineAt(pos.line).text;
    const hit = findCitations(line).find((m) => pos.character >= m.start && pos.character <= m.start + m.length);
    if (!hit) return undefined;
    const range = new vscode.Range(pos.line, hit.start, pos.line, hit.start + hit.length);
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: [OPEN_CITATION_COMMAND] };
    try {
      const a = await this.archive();
      let msg: MessageRow | undefined;
      if (hit.hash) {
        // Anchored: checked by hash; a message that moved is previewed where it is now, one that is gone says so.
        const r = await resolveCitation(a, hit);
        if (r.status === 'gone') {
          md.appendText(`msgbrowse: ${r.note}.`);
          return new vscode.Hover(md, range);
        }
        msg = r.message;
        if (r.status === 'moved') {
          md.appendMarkdown('*');
          md.appendText(`${r.note.charAt(0).toUpperCase()}${r.note.slice(1)}.`);
          md.appendMarkdown('*\n\n');
        }
      } else {
        msg = await a.messageById(hit.messageId);
        if (!msg || msg.conversationId !== hit.conversationId) {
          md.appendText(
            `msgbrowse: message ${hit.messageId} is not in conversation ${hit.conversationId} of the current archive.`,
          );
          return new vscode.Hover(md, range);
        }
      }
      md.appendMarkdown('**');
      md.appendText(msg.sender);
      md.appendMarkdown('** · ');
      md.appendText(`${msg.conversation} (${msg.source}) · ${msg.ts}`);
      md.appendMarkdown('\n\n');
      const body = msg.body.length > 600 ? `${msg.body.slice(0, 600)}…` : msg.body;
      md.appendCodeblock(body, 'text');
      md.appendMarkdown(`[Open in viewer](${commandUri(hit).toString()})`);
    } catch (e) {
      md.appendText(`msgbrowse: ${e instanceof Error ? e.message : String(e)}`);
    }
    return new vscode.Hover(md, range);
  }
}
