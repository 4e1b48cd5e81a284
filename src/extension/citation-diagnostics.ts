// The citation check as diagnostics and quick fixes: Markdown on open, on change and when the archive changes; another
// document once "Check Citations" ran on it, until it closes.
import * as vscode from 'vscode';
import { type AsyncArchive, type CitationCheck, isAbortError } from '../core';
import { checkDocumentText, findingsOf } from './citation-findings';

const SOURCE = 'msgbrowse';
const DEBOUNCE_MS = 400;
/** Views of other content (diffs, output): never checked on their own. */
const SKIPPED_SCHEMES = new Set(['git', 'gitfs', 'output', 'vscode-scm', 'vscode-chat-code-block', 'review', 'pr']);
const MAX_LINES = 200_000;
const QUICK_FIX = vscode.CodeActionKind.QuickFix;
const SEVERITY = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
};

export class CitationDiagnostics implements vscode.CodeActionProvider, vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection(SOURCE);
  private readonly tracked = new Set<string>();
  private readonly results = new Map<string, { version: number; checks: CitationCheck[] }>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** The check in flight per document: a newer one aborts it; a quick-fix request waits for it. */
  private readonly running = new Map<string, { ctl: AbortController; done: Promise<CitationCheck[]> }>();
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly archive: () => Promise<AsyncArchive>,
    private readonly log: vscode.LogOutputChannel,
    onDidChangeArchive: vscode.Event<void>,
  ) {
    this.disposables = [
      this.collection,
      vscode.languages.registerCodeActionsProvider({ scheme: '*' }, this, { providedCodeActionKinds: [QUICK_FIX] }),
      vscode.workspace.onDidOpenTextDocument((d) => this.schedule(d, 0)),
      vscode.workspace.onDidChangeTextDocument(
        (e) => e.contentChanges.length && this.schedule(e.document, DEBOUNCE_MS),
      ),
      vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri)),
      onDidChangeArchive(() => this.refreshAll()),
    ];
    this.refreshAll();
  }

  /** Whether a document is checked automatically. */
  private wants(doc: vscode.TextDocument): boolean {
    if (SKIPPED_SCHEMES.has(doc.uri.scheme) || doc.lineCount > MAX_LINES) return false;
    return doc.languageId === 'markdown' || this.tracked.has(doc.uri.toString());
  }

  private refreshAll(): void {
    for (const doc of vscode.workspace.textDocuments) this.schedule(doc, 0);
  }

  private schedule(doc: vscode.TextDocument, delayMs: number): void {
    if (!this.wants(doc)) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    const check = () => this.check(doc).catch(() => {}); // a failed check is logged in run()
    this.timers.set(key, setTimeout(check, delayMs));
  }

  /** Checks now; `track` keeps a non-Markdown document checked. Rejects without an archive, or when superseded. */
  check(doc: vscode.TextDocument, opts: { track?: boolean } = {}): Promise<CitationCheck[]> {
    const key = doc.uri.toString();
    if (opts.track && doc.languageId !== 'markdown') this.tracked.add(key);
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.running.get(key)?.ctl.abort();
    const ctl = new AbortController();
    const entry = { ctl, done: this.run(doc, key, ctl.signal) };
    this.running.set(key, entry);
    const clear = () => {
      if (this.running.get(key) === entry) this.running.delete(key);
    };
    entry.done.then(clear, clear);
    return entry.done;
  }

  private async run(doc: vscode.TextDocument, key: string, signal: AbortSignal): Promise<CitationCheck[]> {
    const version = doc.version;
    const text = doc.getText();
    try {
      const checks = /msgbrowse/i.test(text)
        ? await checkDocumentText(await this.archive(), text, doc.languageId === 'markdown', signal)
        : [];
      signal.throwIfAborted();
      if (doc.isClosed) return checks;
      this.results.set(key, { version, checks });
      this.collection.set(doc.uri, this.diagnostics(doc, checks));
      return checks;
    } catch (e) {
      if (!isAbortError(e) && !signal.aborted) {
        // No archive (or an unreadable one): say nothing about the links rather than call them all gone.
        this.results.delete(key);
        this.collection.delete(doc.uri);
        this.log.debug(
          `citation check of ${doc.uri.fsPath || key} skipped: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      throw e;
    }
  }

  private diagnostics(doc: vscode.TextDocument, checks: readonly CitationCheck[]): vscode.Diagnostic[] {
    return findingsOf(checks).map((f) => {
      const d = new vscode.Diagnostic(rangeOf(doc, f), f.message, SEVERITY[f.severity]);
      d.source = SOURCE;
      d.code = f.code;
      if (f.code.startsWith('quote-')) {
        const link = new vscode.Location(doc.uri, rangeOf(doc, checks[f.check].citation));
        d.relatedInformation = [
          new vscode.DiagnosticRelatedInformation(link, 'the citation this quote is checked against'),
        ];
      }
      return d;
    });
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.running.get(key)?.ctl.abort();
    this.tracked.delete(key);
    this.results.delete(key);
    this.collection.delete(uri);
  }

  /** The checks of `doc` whose fix still applies (the link text is unchanged where it was found). */
  private fixable(doc: vscode.TextDocument, kind?: 'update'): { check: CitationCheck; range: vscode.Range }[] {
    return (this.results.get(doc.uri.toString())?.checks ?? []).flatMap((check) => {
      const { fix, citation } = check;
      if (!fix || (kind && fix.kind !== kind)) return [];
      const range = rangeOf(doc, citation);
      return doc.getText(range) === citation.text ? [{ check, range }] : [];
    });
  }

  /** One WorkspaceEdit updating every moved link of `doc`. */
  updateAllEdit(doc: vscode.TextDocument): vscode.WorkspaceEdit {
    const edit = new vscode.WorkspaceEdit();
    for (const f of this.fixable(doc, 'update')) edit.replace(doc.uri, f.range, f.check.fix!.text);
    return edit;
  }

  /**
   * Waits until the results of `doc` are those of its current version, so a quick fix asked for right after a change
   * is offered, not missing. Only a person's request (`start`) starts a check: cursor moves keep the debounce.
   */
  private async settled(doc: vscode.TextDocument, token: vscode.CancellationToken, start: boolean): Promise<void> {
    const key = doc.uri.toString();
    if (!this.wants(doc)) return;
    // A superseded check rejects; the one that replaced it is then in flight. Three rounds bound a document being edited.
    for (let round = 0; round < 3; round++) {
      if (token.isCancellationRequested || this.results.get(key)?.version === doc.version) return;
      const running = this.running.get(key)?.done;
      if (!running && !start) return;
      await (running ?? this.check(doc)).catch(() => {}); // no archive: no fixes (logged in run())
      if (!running) return;
    }
  }

  async provideCodeActions(
    doc: vscode.TextDocument,
    range: vscode.Range | vscode.Selection,
    context: vscode.CodeActionContext,
    token: vscode.CancellationToken,
  ): Promise<vscode.CodeAction[]> {
    if (context.only && !context.only.contains(QUICK_FIX) && !QUICK_FIX.contains(context.only)) return [];
    await this.settled(doc, token, context.triggerKind === vscode.CodeActionTriggerKind.Invoke);
    if (token.isCancellationRequested) return [];
    // The published diagnostics, not context.diagnostics: those are from before the check this request waited for.
    const ours = this.collection.get(doc.uri) ?? [];
    const actions: vscode.CodeAction[] = [];
    const fixes = this.fixable(doc);
    for (const { check, range: at } of fixes) {
      if (!at.intersection(range)) continue;
      const moved = check.fix!.kind === 'update';
      const action = new vscode.CodeAction(
        moved
          ? `Update the link to message ${check.message!.id} in conversation ${check.message!.conversationId}`
          : `Anchor the link to message ${check.message!.id} (add its hash)`,
        QUICK_FIX,
      );
      action.edit = new vscode.WorkspaceEdit();
      action.edit.replace(doc.uri, at, check.fix!.text);
      const code = moved ? 'citation-moved' : 'citation-unverified';
      action.diagnostics = ours.filter((d) => d.range.isEqual(at) && d.code === code);
      action.isPreferred = moved;
      actions.push(action);
    }
    const moved = fixes.filter((f) => f.check.fix!.kind === 'update').length;
    if (moved > 1 && actions.some((a) => a.isPreferred)) {
      const all = new vscode.CodeAction(`Update all ${moved} moved msgbrowse links in this file`, QUICK_FIX);
      all.edit = this.updateAllEdit(doc);
      actions.push(all);
    }
    return actions;
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const r of this.running.values()) r.ctl.abort();
    for (const d of this.disposables) d.dispose();
  }
}

function rangeOf(doc: vscode.TextDocument, at: { start: number; length: number }): vscode.Range {
  return new vscode.Range(doc.positionAt(at.start), doc.positionAt(at.start + at.length));
}
