/**
 * `msgbrowse.checkCitations([uri], [{ quiet }])`: checks every msgbrowse citation of a document (the active editor's
 * unless a URI is given) against the served archive — does each link still reach its message, and does the quote
 * next to it appear in that message — publishes the findings as diagnostics (Problems panel) and resolves with a
 * CheckCitationsSummary. Unless quiet, shows the counts, with "Show Problems" and "Update Moved Links".
 */
import * as vscode from 'vscode';
import { type CitationCheckSummary, type CitationStatus, type QuoteVerdict, summarizeChecks } from '../../core';
import type { CitationDiagnostics } from '../citation-diagnostics';
import { summaryLine } from '../citation-findings';
import type { Command } from './command-manager';

export interface CheckCitationsSummary extends CitationCheckSummary {
  uri: string;
  /** One line of text per citation, in document order. */
  results: {
    line: number;
    link: string;
    status: CitationStatus;
    note: string;
    quote?: { text: string; verdict: QuoteVerdict };
    fix?: string;
  }[];
}

export class CheckCitationsCommand implements Command {
  readonly id = 'msgbrowse.checkCitations';

  constructor(private readonly diagnostics: CitationDiagnostics) {}

  async execute(target?: vscode.Uri, opts?: { quiet?: boolean }): Promise<CheckCitationsSummary | undefined> {
    const doc =
      target instanceof vscode.Uri
        ? await vscode.workspace.openTextDocument(target)
        : vscode.window.activeTextEditor?.document;
    if (!doc) {
      if (!opts?.quiet) void vscode.window.showWarningMessage('msgbrowse: open a document to check its citations.');
      return undefined;
    }
    const checks = await this.diagnostics.check(doc, { track: true }).catch((e: unknown) => {
      const message = e instanceof Error ? e.message : String(e);
      if (!opts?.quiet) void vscode.window.showErrorMessage(`msgbrowse: cannot check citations: ${message}`);
      throw e;
    });
    const summary: CheckCitationsSummary = {
      uri: doc.uri.toString(),
      ...summarizeChecks(checks),
      results: checks.map((c) => ({
        line: doc.positionAt(c.citation.start).line,
        link: c.citation.text,
        status: c.status,
        note: c.note,
        ...(c.quote ? { quote: { text: c.quote.text, verdict: c.quote.verdict } } : {}),
        ...(c.fix ? { fix: c.fix.text } : {}),
      })),
    };
    if (!opts?.quiet) void this.report(doc, summary);
    return summary;
  }

  private async report(doc: vscode.TextDocument, s: CheckCitationsSummary): Promise<void> {
    const line = `msgbrowse: ${summaryLine(s)}`;
    const problems = s.gone + s.moved + s.unverified + s.quotes.altered + s.quotes.fabricated;
    if (s.citations === 0 || problems === 0) {
      await vscode.window.showInformationMessage(s.citations ? `${line}. All good.` : `${line}.`);
      return;
    }
    const update = s.moved ? `Update ${s.moved === 1 ? 'Moved Link' : `${s.moved} Moved Links`}` : undefined;
    const show = 'Show Problems';
    const notify =
      s.gone || s.quotes.altered || s.quotes.fabricated
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
    const choice = await notify(line, ...[show, update].filter((x): x is string => !!x));
    if (choice === show) await vscode.commands.executeCommand('workbench.actions.view.problems');
    if (choice === update) {
      const { edit } = this.diagnostics.updateAllEdit(doc);
      await vscode.workspace.applyEdit(edit);
    }
  }
}
