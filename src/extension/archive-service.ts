/** Picks the archive to serve (setting, else discovery, else the demo) and serves it through the core runtime. */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import {
  ARCHIVE_FILE_NAME,
  type ArchiveOpener,
  type AsyncArchive,
  createRuntime,
  type Disclosure,
  isHiddenConversation,
  missingParts,
  type Runtime,
  type RuntimeSettings,
  type SemanticStatus,
  unmatchedExclusionLines,
} from '../core';
import { EXTENSION_ID } from './constants';
import { defaultDiscoveryEnv, discoverArchive, type Candidate } from './discovery';
import { usableBudget } from '../mcp';
import { embedConfig, HOST_RESULT_SETTINGS, readSettings, runtimeSettings, type Settings } from './settings';

export interface ArchiveStatus {
  conversations: number;
  messages: number;
  fingerprint: string;
  schemaVersion: number;
  notice?: string;
  missing: string[];
  semantic: { ready: boolean; state: SemanticStatus['state']; reason?: string; percent?: number };
}

export type ArchiveState =
  | { kind: 'none'; searched: Candidate[] }
  | { kind: 'opening'; path: string }
  | { kind: 'ready'; path: string; status: ArchiveStatus; origin: string }
  | { kind: 'error'; path: string; message: string };

function describeSemantic(s: SemanticStatus): ArchiveStatus['semantic'] {
  if (s.state === 'ready') return { ready: true, state: s.state };
  if (s.state === 'unknown')
    return { ready: false, state: s.state, reason: 'not loaded yet (loads on the first semantic query)' };
  if (s.state !== 'building') return { ready: false, state: s.state, reason: s.reason };
  const percent = s.percent ?? 0;
  const reason = `building the vector index for ${s.model} (${s.count} vectors): ${percent}%`;
  return { ready: false, state: s.state, reason, percent };
}

export class ArchiveService implements vscode.Disposable {
  readonly runtime: Runtime;
  private archivePath: string | undefined;
  private origin = '';
  private searched: Candidate[] = [];
  private settings: Settings = readSettings();
  private generation = 0;
  // Bumps on every apply() that reopens: a status read that started under older settings is dropped.
  private applied = 0;
  private started = false;
  private _state: ArchiveState = { kind: 'none', searched: [] };
  private readonly changed = new vscode.EventEmitter<ArchiveState>();
  readonly onDidChange = this.changed.event;
  private readonly definitionChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeDefinition = this.definitionChanged.event;
  private readonly contentChanged = new vscode.EventEmitter<void>();
  // Fires with every new definition and when msgbrowse writes into the served file.
  readonly onDidChangeContent = this.contentChanged.event;
  private readonly unsubscribe: () => void;
  private lastFingerprint = '';
  private lastStatusLine = '';
  private applying: Promise<void> = Promise.resolve();
  private warnedExclusions = '';
  private disposed = false;
  private warming: number | undefined;
  private buildProgress: (() => void) | undefined;
  private buildReport: ((percent: number) => void) | undefined;

  constructor(
    private readonly ext: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    citationScheme: string,
    openArchive?: ArchiveOpener,
    disclose?: (entry: Disclosure) => void,
  ) {
    const cacheDir = path.join(ext.globalStorageUri.fsPath, 'cache');
    fs.mkdirSync(cacheDir, { recursive: true });
    // No archive and no model until apply() has resolved the one and read the key for the other.
    const unset = { baseUrl: this.settings.embedBaseUrl, model: '' };
    this.runtime = createRuntime({
      ...runtimeSettings(this.settings, '', unset, { scheme: citationScheme, authority: EXTENSION_ID }),
      missingArchiveMessage: () =>
        'No msgbrowse archive is selected. Run "msgbrowse: Select Archive…" or set msgbrowse.archivePath to your ' +
        `msgbrowse.sqlite (or its data directory). Searched: ${this.searched.map((c) => c.file).join(', ') || 'nothing'}`,
      cacheDir,
      version: ext.extension.packageJSON.version as string,
      log: (level, message) => this.log[level](message),
      openArchive,
      // Calls wait while apply() resolves the archive and reads secrets (e.g. a citation link that activated us).
      beforeCall: () => this.applying,
      watchIntervalMs: 500,
      disclose,
    });
    this.unsubscribe = this.runtime.onDidChange((e) => {
      // Writes into the served file keep the MCP definition (live resources tell the session); a replaced file does not.
      if (e.kind === 'archive-changed') void this.refreshStatus(false, e.replaced);
      else if (e.kind !== 'config') void this.refreshStatus();
    });
    this.logAnswerBudget(this.settings.answerBudget);
  }

  isHiddenFromModel(c: { name: string; source: string }): boolean {
    return isHiddenConversation(c, this.runtime.exclusion());
  }

  /** Warns (once per change) about exclusion entries that hide nothing: a typo must not pass for privacy. */
  private async checkExclusions(): Promise<void> {
    const lines = unmatchedExclusionLines(await this.runtime.exclusions().catch(() => []));
    const key = lines.join('\n');
    if (key === this.warnedExclusions) return;
    this.warnedExclusions = key;
    if (!lines.length || this.disposed) return;
    const setting = 'msgbrowse.privacy.excludeConversations';
    for (const line of lines) this.log.warn(`${setting}: ${line}`);
    const more = lines.length > 1 ? ` (and ${lines.length - 1} more entr${lines.length === 2 ? 'y' : 'ies'})` : '';
    const warning = `msgbrowse: the exclusion ${lines[0]}${more}.`;
    if (await vscode.window.showWarningMessage(warning, 'Open Settings'))
      void vscode.commands.executeCommand('workbench.action.openSettings', setting);
  }

  private logAnswerBudget(asked: number): void {
    const used = usableBudget(asked);
    if (used === asked) this.log.info(`tool answers keep to ${used} bytes (${HOST_RESULT_SETTINGS[0]})`);
    else
      this.log.warn(
        `${HOST_RESULT_SETTINGS[0]}.thresholdBytes is ${asked}: tool answers keep to ${used} bytes instead (one page must hold a message with its citation, and a stdio line at most 10 MiB); VS Code hands the model a larger one as a file`,
      );
  }

  /** True when the privacy settings changed. */
  private reportApplied(before: RuntimeSettings, next: RuntimeSettings, reopened: boolean): boolean {
    if (next.answerBudget !== before.answerBudget) this.logAnswerBudget(next.answerBudget);
    const privacy = (s: RuntimeSettings) => JSON.stringify([s.redact, s.privacy]);
    if (privacy(next) === privacy(before)) return false;
    const excluded = next.privacy.excludeConversations;
    if (!reopened) this.log.info('privacy settings changed; applying them to Copilot without a reload');
    this.log.info(`redaction of secrets for Copilot: ${next.redact ? 'on' : 'off'}`);
    void this.checkExclusions();
    this.log.info(`hidden from Copilot: ${excluded.length} conversation entr${excluded.length === 1 ? 'y' : 'ies'}`);
    return true;
  }

  get state(): ArchiveState {
    return this._state;
  }

  get currentPath(): string | undefined {
    return this.archivePath;
  }

  get version(): string {
    return `${this.ext.extension.packageJSON.version as string}+g${this.generation}`;
  }

  attachmentRoot(): string | undefined {
    return this.settings.attachmentsRoot || (this.archivePath ? path.dirname(this.archivePath) : undefined);
  }

  archive(): Promise<AsyncArchive> {
    return this.runtime.personal.archive();
  }

  private setState(s: ArchiveState): void {
    if (this.disposed) return;
    this._state = s;
    this.changed.fire(s);
  }

  bump(): void {
    if (this.disposed) return;
    this.generation++;
    this.definitionChanged.fire();
    this.contentChanged.fire();
  }

  /** Hands the runtime every setting (it reopens only when it must); concurrent calls run one after another. */
  apply(): Promise<void> {
    const run = this.applying.then(() => this.doApply());
    this.applying = run.catch(() => {});
    return run;
  }

  private resolvePath(s: Settings): { file?: string; origin: string; searched: Candidate[] } {
    if (s.archivePath) {
      let file = s.archivePath;
      try {
        if (fs.statSync(file).isDirectory()) file = path.join(file, ARCHIVE_FILE_NAME);
      } catch {} // the runtime reports a missing path
      return { file, origin: 'msgbrowse.archivePath', searched: [] };
    }
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const d = discoverArchive(defaultDiscoveryEnv(folders));
    const demo = this.ext.globalState.get<string>('msgbrowse.demoArchive');
    if (!d.found && demo && fs.existsSync(demo)) return { file: demo, origin: 'demo archive', searched: d.searched };
    return { file: d.found?.file, origin: d.found?.why ?? '', searched: d.searched };
  }

  private async doApply(): Promise<void> {
    if (this.disposed) return;
    const settings = readSettings();
    const target = this.resolvePath(settings);
    const embed = await embedConfig(settings, this.ext.secrets);
    if (this.disposed) return;
    // From here to reload() nothing awaits: a status read can never pair the old archive with the new path.
    const moved = settings.attachmentsRoot !== this.settings.attachmentsRoot;
    this.settings = settings;
    const first = !this.started;
    this.started = true;
    this.archivePath = target.file;
    this.origin = target.origin;
    this.searched = target.searched;
    const before = this.runtime.settings;
    const next = runtimeSettings(settings, target.file ?? '', embed, before.citation);
    const reopened = await this.runtime.reload(next);
    if (reopened) this.applied++;
    const privacyChanged = this.reportApplied(before, next, reopened);
    if (reopened && !first) this.log.info('settings changed; reloading the archive');
    if (!target.file) {
      this.log.info(`no archive found (searched ${target.searched.map((c) => c.file).join(', ') || 'nothing'})`);
      this.setState({ kind: 'none', searched: target.searched });
      this.bump();
      return;
    }
    if (!reopened && !first) {
      // The same archive keeps serving: only what the next call answers, or where attachments are read, changed.
      if (privacyChanged) this.bump();
      else if (moved) this.contentChanged.fire();
      return;
    }
    this.log.info(`opening archive ${target.file} (${target.origin})`);
    this.setState({ kind: 'opening', path: target.file });
    await this.refreshStatus(true);
  }

  /** Publishes the runtime's status; a changed fingerprint is a new definition unless `bumpOnContentChange` is false. */
  async refreshStatus(forceBump = false, bumpOnContentChange = true): Promise<void> {
    const file = this.archivePath;
    const applied = this.applied;
    if (!file || this.disposed) return;
    const stale = () => this.disposed || applied !== this.applied;
    try {
      const s = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `msgbrowse: opening ${path.basename(file)}` },
        () => this.runtime.describe(),
      );
      if (stale() || s.generation !== this.runtime.status().generation) return;
      if (s.archive.state === 'error') throw new Error(s.archive.error);
      if (!s.summary) throw new Error(`the archive ${s.archivePath} could not be read`);
      const status: ArchiveStatus = {
        conversations: s.summary.conversations,
        messages: s.summary.messages,
        fingerprint: s.summary.fingerprint,
        schemaVersion: s.summary.schemaVersion,
        ...(s.archive.state === 'open' && s.archive.notice ? { notice: s.archive.notice } : {}),
        missing: missingParts(s.summary.parts),
        semantic: describeSemantic(s.semantic),
      };
      const line = `archive ready: ${status.conversations} conversations, ${status.messages} messages; semantic ${
        status.semantic.ready ? 'ready' : `unavailable (${status.semantic.reason ?? 'unknown'})`
      }`;
      if (line !== this.lastStatusLine) this.log.info(line);
      this.lastStatusLine = line;
      const changed = status.fingerprint !== this.lastFingerprint;
      this.lastFingerprint = status.fingerprint;
      this.setState({ kind: 'ready', path: file, status, origin: this.origin });
      void this.checkExclusions();
      this.trackBuild(status.semantic.state === 'building', status.semantic.percent);
      if (forceBump || (changed && bumpOnContentChange)) this.bump();
      else if (changed) this.contentChanged.fire();
      if (status.semantic.state === 'unknown') void this.warmSemantic(s.generation);
    } catch (e) {
      if (stale()) return;
      const message = e instanceof Error ? e.message : String(e);
      this.log.error(`cannot open ${file}: ${message}`);
      this.lastFingerprint = '';
      this.setState({ kind: 'error', path: file, message });
      this.bump();
    }
  }

  /** Loads (or builds) the vector index right after opening, so the status bar can say whether it is ready. */
  private async warmSemantic(generation: number): Promise<void> {
    if (this.warming === generation) return;
    this.warming = generation;
    const ac = new AbortController();
    const title = 'msgbrowse: preparing semantic search (vector index)';
    const slow = setTimeout(() => {
      void vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title, cancellable: true },
        (_p, token) => {
          token.onCancellationRequested(() => ac.abort());
          return done;
        },
      );
    }, 1000);
    const done = this.runtime.personal
      .semantic(ac.signal)
      .then((s) =>
        this.log.info(
          s.available ? `semantic search ready (${s.index.size} vectors)` : `semantic search unavailable: ${s.reason}`,
        ),
      )
      .catch((e: unknown) => this.log.warn(`semantic warm-up stopped: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => clearTimeout(slow));
    await done;
    if (generation === this.runtime.status().generation) await this.refreshStatus();
  }

  private trackBuild(building: boolean, percent = 0): void {
    if (building && !this.buildProgress) {
      let shown = 0;
      const title = 'msgbrowse: building the vector index (search_messages answers with keyword results meanwhile)';
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, (progress) => {
        this.buildReport = (p) => {
          if (p > shown) progress.report({ increment: p - shown, message: `${p}%` });
          shown = Math.max(shown, p);
        };
        this.buildReport(percent);
        return new Promise<void>((resolve) => (this.buildProgress = resolve));
      });
    } else if (building) {
      this.buildReport?.(percent);
    } else if (this.buildProgress) {
      this.buildReport = undefined;
      this.buildProgress();
      this.buildProgress = undefined;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.trackBuild(false);
    this.unsubscribe();
    void this.runtime.dispose();
    for (const e of [this.changed, this.definitionChanged, this.contentChanged]) e.dispose();
  }
}
