/**
 * The citation check as diagnostics and quick fixes: Markdown is checked on open, on change and when the archive
 * changes; another document once "Check Citations" ran on it, until it closes.
 */
import * as vscode from 'vscode';
import { type AsyncArchive, type CitationCheck, isAbortError } from '../core';
import { checkDocumentText, findingsOf, type Finding } from './citation-findings';

const DIAGNOSTIC_SOURCE = 'msgbrowse';
const DEBOUNCE_MS = 400;
/** Views of other content (diffs, output): never checked on their own. */
const SKIPPED_SCHEMES = new Set(['git', 'gitfs', 'output', 'vscode-scm', 'vscode-chat-code-block', 'review', 'pr']);
const MAX_LINES = 200_000;

const SEVERITY: Record<Finding['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
};

interface Checked {
  version: number;
  checks: CitationCheck[];
}

export class CitationDiagnostics implements vscode.CodeActionProvider, vscode.Disposable {
  static readonly providedCodeActionKinds = [vscode.CodeActionKind.QuickFix];
  readonly collection = vscode.languages.createDiagnosticCollection(DIAGNOSTIC_SOURCE);
  private readonly tracked = new Set<string>();
  private readonly results = new Map<string, Checked>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly running = new Map<string, AbortController>();
  /** The check in flight per document: a quick-fix request waits for it instead of answering from nothing. */
  private readonly inflight = new Map<string, Promise<CitationCheck[]>>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly archive: () => Promise<AsyncArchive>,
    private readonly log: vscode.LogOutputChannel,
    onDidChangeArchive: vscode.Event<void>,
  ) {
    this.disposables.push(
      this.collection,
      vscode.languages.registerCodeActionsProvider({ scheme: '*' }, this, {
        providedCodeActionKinds: CitationDiagnostics.providedCodeActionKinds,
      }),
      vscode.workspace.onDidOpenTextDocument((d) => this.schedule(d, 0)),
      vscode.workspace.onDidChangeTextDocument(
        (e) => e.contentChanges.length && this.schedule(e.document, DEBOUNCE_MS),
      ),
      vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri)),
      onDidChangeArchive(() => this.refreshAll()),
    );
    this.refreshAll();
  }

  /** Whether a document is checked automatically. */
  private wants(doc: vscode.TextDocument): boolean {
    if (SKIPPED_SCHEMES.has(doc.uri.scheme) || doc.lineCount > MAX_LINES) return false;
    return doc.languageId === 'markdown' || this.tracked.has(doc.uri.toString());
  }

  refreshAll(): void {
    for (const doc of vscode.workspace.textDocuments) this.schedule(doc, 0);
  }

  private schedule(doc: vscode.TextDocument, delayMs: number): void {
    if (!this.wants(doc)) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.check(doc).catch(() => {}); // logged in run()
      }, delayMs),
    );
  }

  /**
   * Checks a document now and publishes its diagnostics; `track` keeps a non-Markdown document checked until it
   * closes. Rejects when the archive cannot be read, or a newer check superseded this one.
   */
  check(doc: vscode.TextDocument, opts: { track?: boolean } = {}): Promise<CitationCheck[]> {
    const key = doc.uri.toString();
    if (opts.track && doc.languageId !== 'markdown') this.tracked.add(key);
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    const run = this.run(doc, key);
    this.inflight.set(key, run);
    const clear = () => {
      if (this.inflight.get(key) === run) this.inflight.delete(key);
    };
    run.then(clear, clear);
    return run;
  }

  private async run(doc: vscode.TextDocument, key: string): Promise<CitationCheck[]> {
    this.running.get(key)?.abort();
    const ctl = new AbortController();
    this.running.set(key, ctl);
    const version = doc.version;
    const text = doc.getText();
    try {
      const checks = /msgbrowse/i.test(text)
        ? await checkDocumentText(await this.archive(), text, doc.languageId === 'markdown', ctl.signal)
        : [];
      ctl.signal.throwIfAborted();
      if (doc.isClosed) return checks;
      this.results.set(key, { version, checks });
      this.collection.set(doc.uri, this.diagnostics(doc, checks));
      return checks;
    } catch (e) {
      if (!isAbortError(e) && !ctl.signal.aborted) {
        // No archive (or an unreadable one): say nothing about the links rather than call them all gone.
        this.results.delete(key);
        this.collection.delete(doc.uri);
        this.log.debug(
          `citation check of ${doc.uri.fsPath || key} skipped: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      throw e;
    } finally {
      if (this.running.get(key) === ctl) this.running.delete(key);
    }
  }

  private diagnostics(doc: vscode.TextDocument, checks: readonly CitationCheck[]): vscode.Diagnostic[] {
    const range = (start: number, length: number) =>
      new vscode.Range(doc.positionAt(start), doc.positionAt(start + length));
    return findingsOf(checks).map((f) => {
      const d = new vscode.Diagnostic(range(f.start, f.length), f.message, SEVERITY[f.severity]);
      d.source = DIAGNOSTIC_SOURCE;
      d.code = f.code;
      const c = checks[f.check].citation;
      if (f.code.startsWith('quote-')) {
        d.relatedInformation = [
          new vscode.DiagnosticRelatedInformation(
            new vscode.Location(doc.uri, range(c.start, c.length)),
            'the citation this quote is checked against',
          ),
        ];
      }
      return d;
    });
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.running.get(key)?.abort();
    this.tracked.delete(key);
    this.results.delete(key);
    this.collection.delete(uri);
  }

  /** The checks of `doc` whose fix still applies (the link text is unchanged where it was found). */
  fixable(doc: vscode.TextDocument, kind?: 'update' | 'anchor'): { check: CitationCheck; range: vscode.Range }[] {
    const r = this.results.get(doc.uri.toString());
    if (!r) return [];
    return r.checks.flatMap((check) => {
      if (!check.fix || (kind && check.fix.kind !== kind)) return [];
      const range = new vscode.Range(
        doc.positionAt(check.citation.start),
        doc.positionAt(check.citation.start + check.citation.length),
      );
      return doc.getText(range) === check.citation.text ? [{ check, range }] : [];
    });
  }

  /** One WorkspaceEdit updating every moved link of `doc`. */
  updateAllEdit(doc: vscode.TextDocument): { edit: vscode.WorkspaceEdit; count: number } {
    const edit = new vscode.WorkspaceEdit();
    const fixes = this.fixable(doc, 'update');
    for (const f of fixes) edit.replace(doc.uri, f.range, f.check.fix!.text);
    return { edit, count: fixes.length };
  }

  /**
   * Waits until the results of `doc` are those of its current version, so a quick fix asked for right after a change
   * is offered, not missing. Only a person's request (`start`) starts a check: cursor moves keep the debounce.
   */
  private async settled(doc: vscode.TextDocument, token: vscode.CancellationToken, start: boolean): Promise<void> {
    const key = doc.uri.toString();
    if (!this.wants(doc)) return;
    // A superseded check rejects; the one that replaced it is then in flight. Three rounds bound a document being edited.
    for (
      let round = 0;
      round < 3 && !token.isCancellationRequested && this.results.get(key)?.version !== doc.version;
      round++
    ) {
      const running = this.inflight.get(key);
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
    if (
      context.only &&
      !context.only.contains(vscode.CodeActionKind.QuickFix) &&
      !vscode.CodeActionKind.QuickFix.contains(context.only)
    )
      return [];
    await this.settled(doc, token, context.triggerKind === vscode.CodeActionTriggerKind.Invoke);
    if (token.isCancellationRequested) return [];
    // The published diagnostics, not context.diagnostics: those are from before the check this request waited for.
    const ours = this.collection.get(doc.uri) ?? [];
    const actions: vscode.CodeAction[] = [];
    const fixes = this.fixable(doc);
    for (const { check, range: at } of fixes) {
      if (!at.intersection(range)) continue;
      const fix = check.fix!;
      const moved = fix.kind === 'update';
      const title = moved
        ? `Update the link to message ${check.message!.id} in conversation ${check.message!.conversationId}`
        : `Anchor the link to message ${check.message!.id} (add its hash)`;
      const action = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
      action.edit = new vscode.WorkspaceEdit();
      action.edit.replace(doc.uri, at, fix.text);
      action.diagnostics = ours.filter(
        (d) => d.range.isEqual(at) && d.code === (moved ? 'citation-moved' : 'citation-unverified'),
      );
      action.isPreferred = moved;
      actions.push(action);
    }
    const moved = fixes.filter((f) => f.check.fix!.kind === 'update');
    if (moved.length > 1 && actions.some((a) => a.isPreferred)) {
      const all = new vscode.CodeAction(
        `Update all ${moved.length} moved msgbrowse links in this file`,
        vscode.CodeActionKind.QuickFix,
      );
      all.edit = this.updateAllEdit(doc).edit;
      actions.push(all);
    }
    return actions;
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const c of this.running.values()) c.abort();
    this.timers.clear();
    this.running.clear();
    this.inflight.clear();
    for (const d of this.disposables) d.dispose();
  }
}
