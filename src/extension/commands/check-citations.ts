/** `msgbrowse.checkCitations([uri], [{ quiet }])`: checks a document's citations, resolves with a summary. */
import * as vscode from 'vscode';
import { type CitationCheckSummary, type CitationStatus, type QuoteVerdict, summarizeChecks } from '../../core';
import type { CitationDiagnostics } from '../citation-diagnostics';
import { summaryLine } from '../citation-findings';

export interface CheckCitationsSummary extends CitationCheckSummary {
  uri: string;
  results: {
    line: number;
    link: string;
    status: CitationStatus;
    note: string;
    quote?: { text: string; verdict: QuoteVerdict };
    fix?: string;
  }[];
}

export async function checkCitations(
  diagnostics: CitationDiagnostics,
  target?: unknown,
  opts?: { quiet?: boolean },
): Promise<CheckCitationsSummary | undefined> {
  const doc =
    target instanceof vscode.Uri
      ? await vscode.workspace.openTextDocument(target)
      : vscode.window.activeTextEditor?.document;
  if (!doc) {
    if (!opts?.quiet) void vscode.window.showWarningMessage('msgbrowse: open a document to check its citations.');
    return undefined;
  }
  const checks = await diagnostics.check(doc, { track: true }).catch((e: unknown) => {
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
  if (!opts?.quiet) void report(diagnostics, doc, summary);
  return summary;
}

async function report(diagnostics: CitationDiagnostics, doc: vscode.TextDocument, s: CheckCitationsSummary) {
  const line = `msgbrowse: ${summaryLine(s)}`;
  const problems = s.gone + s.moved + s.unverified + s.quotes.altered + s.quotes.fabricated;
  if (s.citations === 0 || problems === 0) {
    await vscode.window.showInformationMessage(s.citations ? `${line}. All good.` : `${line}.`);
    return;
  }
  const update = s.moved ? `Update ${s.moved === 1 ? 'Moved Link' : `${s.moved} Moved Links`}` : undefined;
  const show = 'Show Problems';
  const warn = s.gone || s.quotes.altered || s.quotes.fabricated;
  const notify = warn ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const choice = await notify(line, ...(update ? [show, update] : [show]));
  if (choice === show) await vscode.commands.executeCommand('workbench.actions.view.problems');
  if (choice === update) await vscode.workspace.applyEdit(diagnostics.updateAllEdit(doc));
}
