/**
 * Owns the current runtime: decides which archive to serve (setting, else discovery), rebuilds the runtime when
 * settings change, reloads it when the archive file (or its -wal) changes on disk, and exposes a stable
 * ServerContext that always forwards to the current runtime — so running MCP sessions pick up changes at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { AsyncArchive } from '../archive/types';
import type { LogLevel, SemanticState, ServerContext } from '../core/context';
import { DB_FILE_NAME, EXTENSION_ID } from './constants';
import { defaultDiscoveryEnv, discoverArchive, type Candidate } from './discovery';
import { embedConfig, readSettings, type Settings } from './settings';
import type { ExtensionRuntime, RuntimeFactory, RuntimeStatus } from './runtime';

export type ArchiveState =
  | { kind: 'none'; searched: Candidate[] }
  | { kind: 'opening'; path: string }
  | { kind: 'ready'; path: string; status: RuntimeStatus; origin: string }
  | { kind: 'error'; path: string; message: string };

export class ArchiveService implements vscode.Disposable {
  private runtime: ExtensionRuntime | undefined;
  private archivePath: string | undefined;
  private origin = '';
  private settings: Settings = readSettings();
  private generation = 0;
  private _state: ArchiveState = { kind: 'none', searched: [] };
  private readonly changed = new vscode.EventEmitter<ArchiveState>();
  /** Fires on every state change (opened, failed, reloaded). */
  readonly onDidChange = this.changed.event;
  private readonly definitionChanged = new vscode.EventEmitter<void>();
  /** Fires when what the MCP server serves changed (archive, settings, archive content). */
  readonly onDidChangeDefinition = this.definitionChanged.event;
  private watcher: vscode.Disposable | undefined;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private lastFingerprint = '';
  private lastStatusLine = '';
  private applying: Promise<void> = Promise.resolve();
  readonly context: ServerContext;

  constructor(
    private readonly ext: vscode.ExtensionContext,
    private readonly factory: RuntimeFactory,
    private readonly log: vscode.LogOutputChannel,
    readonly citationScheme: string,
  ) {
    const self = this;
    this.context = {
      archive: () => self.requireRuntime().then((r) => r.context.archive()),
      semantic: (signal?: AbortSignal): Promise<SemanticState> =>
        self.requireRuntime().then((r) => r.context.semantic(signal)),
      citation: { scheme: citationScheme, authority: EXTENSION_ID },
      get version() {
        return self.version;
      },
      log: (level, message) => self.serverLog(level, message),
    };
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

  archive(): Promise<AsyncArchive> {
    return this.context.archive();
  }

  private serverLog(level: LogLevel, message: string): void {
    this.log[level === 'warn' ? 'warn' : level](message);
  }

  private async requireRuntime(): Promise<ExtensionRuntime> {
    await this.applying;
    if (this.runtime) return this.runtime;
    const s = this._state;
    if (s.kind === 'error') throw new Error(s.message);
    throw new Error(
      'No msgbrowse archive is selected. Run "msgbrowse: Select Archive…" or set msgbrowse.archivePath to your ' +
        `msgbrowse.sqlite (or its data directory). Searched: ${s.kind === 'none' ? s.searched.map((c) => c.file).join(', ') || 'nothing' : ''}`,
    );
  }

  private setState(s: ArchiveState): void {
    this._state = s;
    this.changed.fire(s);
  }

  /** Publishes a new definition version (VS Code re-reads tools). */
  bump(): void {
    this.generation++;
    this.definitionChanged.fire();
  }

  /** Re-reads settings and (re)builds the runtime. Serialised: concurrent calls run one after another. */
  apply(): Promise<void> {
    const run = this.applying.then(() => this.doApply());
    this.applying = run.catch(() => {});
    return run;
  }

  private resolvePath(s: Settings): { file?: string; origin: string; searched: Candidate[] } {
    if (s.archivePath) {
      let file = s.archivePath;
      try {
        if (fs.statSync(file).isDirectory()) file = path.join(file, DB_FILE_NAME);
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
    this.settings = readSettings();
    const target = this.resolvePath(this.settings);
    const old = this.runtime;
    this.runtime = undefined;
    this.watcher?.dispose();
    this.watcher = undefined;
    if (old) await old.dispose().catch((e) => this.log.warn(`closing previous archive: ${String(e)}`));
    this.archivePath = target.file;
    this.origin = target.origin;
    if (!target.file) {
      this.log.info(`no archive found (searched ${target.searched.map((c) => c.file).join(', ') || 'nothing'})`);
      this.setState({ kind: 'none', searched: target.searched });
      this.bump();
      return;
    }
    this.log.info(`opening archive ${target.file} (${target.origin})`);
    this.setState({ kind: 'opening', path: target.file });
    const cacheDir = path.join(this.ext.globalStorageUri.fsPath, 'cache');
    fs.mkdirSync(cacheDir, { recursive: true });
    this.runtime = this.factory({
      archivePath: target.file,
      embed: await embedConfig(this.settings, this.ext.secrets),
      citation: this.context.citation,
      cacheDir,
      version: this.ext.extension.packageJSON.version as string,
      log: (level, message) => this.serverLog(level, message),
    });
    this.watch(target.file, this.runtime);
    await this.refreshStatus(true);
  }

  /** Reads the runtime's status and publishes it; bumps the definition version when the content changed. */
  async refreshStatus(forceBump = false): Promise<void> {
    const rt = this.runtime;
    const file = this.archivePath;
    if (!rt || !file) return;
    try {
      const status = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `msgbrowse: opening ${path.basename(file)}` },
        () => rt.status(),
      );
      if (rt !== this.runtime) return;
      const line = `archive ready: ${status.conversations} conversations, ${status.messages} messages; semantic ${
        status.semantic.ready ? 'ready' : `unavailable (${status.semantic.reason ?? 'unknown'})`
      }`;
      if (line !== this.lastStatusLine) this.log.info(line);
      this.lastStatusLine = line;
      const changed = status.fingerprint !== this.lastFingerprint;
      this.lastFingerprint = status.fingerprint;
      this.setState({ kind: 'ready', path: file, status, origin: this.origin });
      this.trackBuild(status.semantic.state === 'building', status.semantic.reason);
      if (forceBump || changed) this.bump();
      if (status.semantic.state === 'unknown') void this.warmSemantic(rt);
    } catch (e) {
      if (rt !== this.runtime) return;
      const message = e instanceof Error ? e.message : String(e);
      this.log.error(`cannot open ${file}: ${message}`);
      this.lastFingerprint = '';
      this.setState({ kind: 'error', path: file, message });
      this.bump();
    }
  }

  private watch(file: string, rt: ExtensionRuntime): void {
    const dir = path.dirname(file);
    const base = path.basename(file);
    const w = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.file(dir), `${base}{,-wal}`),
    );
    const schedule = (replaced: boolean) => (uri: vscode.Uri) => {
      this.log.debug(`archive file ${replaced ? 'replaced' : 'changed'}: ${uri.fsPath}`);
      this.pendingReplace ||= replaced;
      clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(() => void this.reloadFromDisk(), 400);
    };
    const off = rt.onDidChange((kind) => {
      if (kind === 'semantic') void this.refreshStatus();
      else if (kind === 'changed' || kind === 'opened') schedule(false)(vscode.Uri.file(file));
    });
    this.watcher = vscode.Disposable.from(
      w,
      w.onDidChange(schedule(false)),
      w.onDidCreate(schedule(true)),
      w.onDidDelete(schedule(true)),
      { dispose: off },
    );
  }

  private pendingReplace = false;

  /** The archive changed on disk (rewritten, replaced, WAL grew): re-read it and bump if its content differs. */
  async reloadFromDisk(): Promise<void> {
    await this.applying;
    const rt = this.runtime;
    if (!rt) return;
    if (this.pendingReplace) {
      this.pendingReplace = false;
      try {
        await rt.reload();
      } catch (e) {
        this.log.warn(`reload failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    await this.refreshStatus();
  }

  /**
   * Loads (or builds) the vector index right after opening, in the engine worker, so the first semantic query is
   * fast and the status bar can say whether semantic search is ready. No network call happens here.
   */
  private async warmSemantic(rt: ExtensionRuntime): Promise<void> {
    if (this.warming === rt) return;
    this.warming = rt;
    const ac = new AbortController();
    const slow = setTimeout(() => {
      void vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'msgbrowse: preparing semantic search (vector index)', cancellable: true },
        (_p, token) => {
          token.onCancellationRequested(() => ac.abort());
          return done;
        },
      );
    }, 1000);
    const done = rt.context
      .semantic(ac.signal)
      .then((s) => this.log.info(s.available ? `semantic search ready (${s.index.size} vectors)` : `semantic search unavailable: ${s.reason}`))
      .catch((e: unknown) => this.log.warn(`semantic warm-up stopped: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => clearTimeout(slow));
    await done;
    if (rt === this.runtime) await this.refreshStatus();
  }

  private warming: ExtensionRuntime | undefined;
  private buildProgress: (() => void) | undefined;

  /** Shows a progress notification while the vector index builds. */
  private trackBuild(building: boolean, reason?: string): void {
    if (building && !this.buildProgress) {
      void vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `msgbrowse: ${reason ?? 'building the vector index'}` },
        () => new Promise<void>((resolve) => (this.buildProgress = resolve)),
      );
    } else if (!building && this.buildProgress) {
      this.buildProgress();
      this.buildProgress = undefined;
    }
  }

  dispose(): void {
    clearTimeout(this.reloadTimer);
    this.trackBuild(false);
    this.watcher?.dispose();
    void this.runtime?.dispose();
    this.runtime = undefined;
    this.changed.dispose();
    this.definitionChanged.dispose();
  }
}
