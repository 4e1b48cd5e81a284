/**
 * Decides which archive to serve (setting, else discovery, else the demo the user opened) and serves it through the
 * one core runtime: settings changes go to `runtime.reload(patch)`, content changes come back as runtime events (the
 * core's change detector), and every state change is published for the tree view, status bar and MCP provider.
 */
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
  type LogLevel,
  missingParts,
  type Runtime,
  type SemanticStatus,
  type ServerContext,
  unmatchedExclusionLines,
} from '../core';
import { EXTENSION_ID } from './constants';
import { defaultDiscoveryEnv, discoverArchive, type Candidate } from './discovery';
import { usableBudget } from '../mcp/answer-budget';
import { embedConfig, HOST_RESULT_SETTINGS, hostAnswerBudget, readSettings, type Settings } from './settings';

/** What the served archive holds, as the extension shows it. */
export interface ArchiveStatus {
  conversations: number;
  messages: number;
  fingerprint: string;
  schemaVersion: number;
  /** What a person should know about the archive's schema (a newer msgbrowse wrote it), when anything. */
  notice?: string;
  /** The optional parts the archive lacks (core/compatibility.ts missingParts). */
  missing: string[];
  /** `percent`: how far the vector index build is, while it builds. */
  semantic: { ready: boolean; state: SemanticStatus['state']; reason?: string; percent?: number };
}

export type ArchiveState =
  | { kind: 'none'; searched: Candidate[] }
  | { kind: 'opening'; path: string }
  | { kind: 'ready'; path: string; status: ArchiveStatus; origin: string }
  | { kind: 'error'; path: string; message: string };

function describeSemantic(s: SemanticStatus): ArchiveStatus['semantic'] {
  switch (s.state) {
    case 'ready':
      return { ready: true, state: s.state };
    case 'building':
      return {
        ready: false,
        state: s.state,
        reason: `building the vector index for ${s.model} (${s.count} vectors): ${s.percent ?? 0}%`,
        percent: s.percent ?? 0,
      };
    case 'unknown':
      return { ready: false, state: s.state, reason: 'not loaded yet (loads on the first semantic query)' };
    default:
      return { ready: false, state: s.state, reason: s.reason };
  }
}

export class ArchiveService implements vscode.Disposable {
  /** The one runtime: archive lifecycle, change detection, semantic backend; reconfigured through reload(patch). */
  readonly runtime: Runtime;
  private archivePath: string | undefined;
  private origin = '';
  private searched: Candidate[] = [];
  private settings: Settings = readSettings();
  private generation = 0;
  /** Bumps on every apply(): a status read that started under older settings is dropped. */
  private applied = 0;
  private _state: ArchiveState = { kind: 'none', searched: [] };
  private readonly changed = new vscode.EventEmitter<ArchiveState>();
  /** Fires on every state change (opened, failed, reloaded). */
  readonly onDidChange = this.changed.event;
  private readonly definitionChanged = new vscode.EventEmitter<void>();
  /** Fires when what the MCP server serves changed (another archive or a replaced file, settings). */
  readonly onDidChangeDefinition = this.definitionChanged.event;
  private readonly contentChanged = new vscode.EventEmitter<void>();
  /**
   * What the person's surfaces (viewer, citation diagnostics) refresh on: a new definition, or msgbrowse writing into
   * the served file (which keeps the MCP definition: live resources tell MCP clients).
   */
  readonly onDidChangeContent = this.contentChanged.event;
  private readonly unsubscribe: () => void;
  private lastFingerprint = '';
  private lastStatusLine = '';
  private applying: Promise<void> = Promise.resolve();
  /** The unmatched exclusion entries last warned about (checkExclusions). */
  private warnedExclusions = '';
  private disposed = false;

  constructor(
    private readonly ext: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    citationScheme: string,
    openArchive?: ArchiveOpener,
    /** Where what every tool call / resource read served goes (the disclosure ledger in global storage). */
    disclose?: (entry: Disclosure) => void,
  ) {
    const cacheDir = path.join(ext.globalStorageUri.fsPath, 'cache');
    fs.mkdirSync(cacheDir, { recursive: true });
    this.runtime = createRuntime({
      archivePath: '',
      missingArchiveMessage: () =>
        'No msgbrowse archive is selected. Run "msgbrowse: Select Archive…" or set msgbrowse.archivePath to your ' +
        `msgbrowse.sqlite (or its data directory). Searched: ${this.searched.map((c) => c.file).join(', ') || 'nothing'}`,
      embed: { baseUrl: this.settings.embedBaseUrl, model: '' },
      citation: { scheme: citationScheme, authority: EXTENSION_ID },
      redact: this.settings.redact,
      answerBudget: this.settings.answerBudget,
      cacheDir,
      version: ext.extension.packageJSON.version as string,
      log: (level, message) => this.serverLog(level, message),
      openArchive,
      // Calls wait while apply() resolves the archive and reads secrets (e.g. a citation link that activated us).
      beforeCall: () => this.applying,
      // The core's change detector on a timer: new rows, checkpoints, replaced or repaired files reach us as events.
      watchIntervalMs: 500,
      disclose,
    });
    this.unsubscribe = this.runtime.onDidChange((e) => {
      // msgbrowse writing into the served file (an import, a re-import, a WAL commit) keeps the MCP definition: VS Code's
      // session lives on and hears of it as resources/updated and list_changed (src/mcp/subscriptions.ts). A replaced
      // file or a new archive is a new definition version.
      if (e.kind === 'archive-changed') void this.refreshStatus(false, e.replaced);
      else if (e.kind !== 'config') void this.refreshStatus();
    });
    this.logAnswerBudget();
  }

  /** What MCP servers serve: the runtime's model-facing context (excluded conversations do not exist there). */
  get context(): ServerContext {
    return this.runtime.context;
  }

  /** The person's own surfaces (palette, viewer, tree, hovers): everything, excluded conversations included. */
  get personalContext(): ServerContext {
    return this.runtime.personal;
  }

  /** Whether a conversation is hidden from Copilot by `msgbrowse.privacy.excludeConversations`. */
  isHiddenFromModel(c: { name: string; source: string }): boolean {
    return isHiddenConversation(c, this.runtime.exclusion());
  }

  /**
   * Says loudly when an entry of msgbrowse.privacy.excludeConversations hides nothing (a typo must not pass for
   * privacy): in the log and, once per change, as a warning that opens the setting.
   */
  private async checkExclusions(): Promise<void> {
    const lines = unmatchedExclusionLines(await this.runtime.exclusions().catch(() => []));
    const key = lines.join('\n');
    if (key === this.warnedExclusions) return;
    this.warnedExclusions = key;
    if (!lines.length || this.disposed) return;
    for (const line of lines) this.log.warn(`msgbrowse.privacy.excludeConversations: ${line}`);
    const more = lines.length > 1 ? ` (and ${lines.length - 1} more entr${lines.length === 2 ? 'y' : 'ies'})` : '';
    const pick = await vscode.window.showWarningMessage(
      `msgbrowse: the exclusion ${lines[0]}${more}.`,
      'Open Settings',
    );
    if (pick)
      void vscode.commands.executeCommand('workbench.action.openSettings', 'msgbrowse.privacy.excludeConversations');
  }

  /** Follows VS Code's inline limit for tool results (chat.agent.largeToolResultsToDisk): the next answer keeps to it. */
  async applyAnswerBudget(): Promise<void> {
    this.settings = { ...this.settings, answerBudget: hostAnswerBudget() };
    this.logAnswerBudget();
    await this.runtime.reload({ answerBudget: this.settings.answerBudget });
  }

  /** Says what answers keep to, and when VS Code's threshold is one a page cannot be made to. */
  private logAnswerBudget(): void {
    const asked = this.settings.answerBudget;
    const used = usableBudget(asked);
    if (used === asked) this.log.info(`tool answers keep to ${used} bytes (${HOST_RESULT_SETTINGS[0]})`);
    else
      this.log.warn(
        `${HOST_RESULT_SETTINGS[0]}.thresholdBytes is ${asked}: tool answers keep to ${used} bytes instead (one page must hold a message with its citation, and a stdio line at most 10 MiB); VS Code hands the model a larger one as a file`,
      );
  }

  /** Applies `msgbrowse.privacy.*` (exclusions and redaction) to the running runtime: the next model call sees it. */
  async applyPrivacy(): Promise<void> {
    await this.applying;
    const settings = readSettings();
    this.settings = settings;
    await this.runtime.reload({
      privacy: { excludeConversations: settings.excludeConversations },
      redact: settings.redact,
    });
    this.log.info(`redaction of secrets for Copilot: ${settings.redact ? 'on' : 'off'}`);
    void this.checkExclusions();
    this.log.info(
      `hidden from Copilot: ${settings.excludeConversations.length} conversation entr${settings.excludeConversations.length === 1 ? 'y' : 'ies'}`,
    );
    this.bump();
  }

  get state(): ArchiveState {
    return this._state;
  }

  get currentPath(): string | undefined {
    return this.archivePath;
  }

  /** Changes whenever the served archive, its content or the settings change (MCP definition version). */
  get version(): string {
    return `${this.ext.extension.packageJSON.version as string}+g${this.generation}`;
  }

  /** Where attachment paths are resolved from: the setting, else the archive's data directory. */
  attachmentRoot(): string | undefined {
    if (this.settings.attachmentsRoot) return this.settings.attachmentsRoot;
    return this.archivePath ? path.dirname(this.archivePath) : undefined;
  }

  /** The archive for the person's own surfaces (unfiltered; model-facing code uses `context`). */
  archive(): Promise<AsyncArchive> {
    return this.runtime.personal.archive();
  }

  private serverLog(level: LogLevel, message: string): void {
    this.log[level === 'warn' ? 'warn' : level](message);
  }

  private setState(s: ArchiveState): void {
    if (this.disposed) return;
    this._state = s;
    this.changed.fire(s);
  }

  /** Publishes a new definition version (VS Code re-reads tools). */
  bump(): void {
    if (this.disposed) return;
    this.generation++;
    this.definitionChanged.fire();
    this.contentChanged.fire();
  }

  /** Re-reads settings and reconfigures the runtime. Serialised: concurrent calls run one after another. */
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
      } catch {
        /* the runtime reports the missing path with a clear message */
      }
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
    this.settings = settings;
    this.applied++;
    this.archivePath = target.file;
    this.origin = target.origin;
    this.searched = target.searched;
    await this.runtime.reload({
      archivePath: target.file ?? '',
      embed,
      redact: settings.redact,
      privacy: { excludeConversations: settings.excludeConversations },
      answerBudget: settings.answerBudget,
    });
    if (!target.file) {
      this.log.info(`no archive found (searched ${target.searched.map((c) => c.file).join(', ') || 'nothing'})`);
      this.setState({ kind: 'none', searched: target.searched });
      this.bump();
      return;
    }
    this.log.info(`opening archive ${target.file} (${target.origin})`);
    this.setState({ kind: 'opening', path: target.file });
    await this.refreshStatus(true);
  }

  /**
   * Reads the runtime's status and publishes it; bumps the definition version when the archive's fingerprint changed
   * (unless `bumpOnContentChange` is false: msgbrowse wrote into the same file, which live resources announce).
   */
  async refreshStatus(forceBump = false, bumpOnContentChange = true): Promise<void> {
    const file = this.archivePath;
    const applied = this.applied;
    if (!file || this.disposed) return;
    /** A read that started under other settings (or after dispose) publishes nothing. */
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

  /**
   * Loads (or builds) the vector index right after opening, in the engine worker, so the first semantic query is
   * fast and the status bar can say whether semantic search is ready. No network call happens here.
   */
  private async warmSemantic(generation: number): Promise<void> {
    if (this.warming === generation) return;
    this.warming = generation;
    const ac = new AbortController();
    const slow = setTimeout(() => {
      void vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: 'msgbrowse: preparing semantic search (vector index)',
          cancellable: true,
        },
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

  private warming: number | undefined;
  private buildProgress: (() => void) | undefined;
  private buildReport: ((percent: number) => void) | undefined;

  /** Shows a progress notification while the vector index builds (the status bar shows the percentage too). */
  private trackBuild(building: boolean, percent = 0): void {
    if (building && !this.buildProgress) {
      let shown = 0;
      void vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: 'msgbrowse: building the vector index (search_messages answers with keyword results meanwhile)',
        },
        (progress) => {
          this.buildReport = (p) => {
            if (p > shown) progress.report({ increment: p - shown, message: `${p}%` });
            shown = Math.max(shown, p);
          };
          this.buildReport(percent);
          return new Promise<void>((resolve) => (this.buildProgress = resolve));
        },
      );
    } else if (building) {
      this.buildReport?.(percent);
    } else if (!building && this.buildProgress) {
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
    this.changed.dispose();
    this.definitionChanged.dispose();
    this.contentChanged.dispose();
  }
}
