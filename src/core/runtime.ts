/** What feeds MCP servers: the archive (opened lazily, reopened when replaced), semantic backend, settings, events. */
import { inThread, openArchive } from '../archive/index';
import type { AsyncArchive, Exclusion } from '../archive/types';
import { normalizeEmbedConfig } from '../embed/config';
import { OpenAIEmbedder } from '../embed/openai-client';
import { startEngineWorker } from '../engine/index';
import type { ServerContext } from './context';
import { ArchiveHolder, archiveFingerprint } from './archive-holder';
import { isBesideArchive } from './cache-dir';
import { schemaNotice } from './compatibility';
import { type ExclusionMatch, matchExclusions, modelFacing, parseExclusions } from './privacy';
import { defaultVectorIndexBuilder, SemanticManager } from './semantic-backend';
import type {
  ArchiveOpener,
  Runtime,
  RuntimeEvent,
  RuntimeLog,
  RuntimeOptions,
  RuntimeSettings,
  RuntimeSettingsInit,
  RuntimeStatus,
} from './types';

/** Opens the archive in this thread. */
export const inThreadOpener: ArchiveOpener = async (p) => {
  const sync = await openArchive(p);
  return { archive: inThread(sync), sync, path: sync.path, schemaVersion: sync.schemaVersion };
};

/** Opens the archive in the engine worker thread: queries, vector builds and scans run off this thread. */
export function workerOpener(
  opts: { workerScript?: string; log?: RuntimeLog; helpScans?: boolean } = {},
): ArchiveOpener {
  return async (p) => {
    const client = await startEngineWorker({
      archivePath: p,
      workerScript: opts.workerScript,
      helpScans: opts.helpScans,
      log: opts.log ? (level, message) => opts.log!(level, `engine worker: ${message}`) : undefined,
    });
    return { archive: client, path: client.path, schemaVersion: client.schemaVersion, vectorIndex: client.vectorIndex };
  };
}

export function createRuntime(options: RuntimeOptions): Runtime {
  return new LiveRuntime(options);
}

/** VS Code's inline threshold, the smallest of the common clients'. */
export const DEFAULT_ANSWER_BUDGET = 8192;
// Below the minimum a page cannot hold one message with its citation; above the maximum a stdio line passes the SDK
// client's read limit.
export const MIN_ANSWER_BUDGET = 2048;
export const MAX_ANSWER_BUDGET = 10_000_000;

function settingsOf(s: RuntimeSettingsInit): RuntimeSettings {
  const { archivePath, citation, redact = true, privacy = { excludeConversations: [] } } = s;
  const { answerBudget = DEFAULT_ANSWER_BUDGET } = s;
  return { archivePath, embed: normalizeEmbedConfig(s.embed), citation, redact, privacy, answerBudget };
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Another archive, embeddings model or link format is served only by reopening; the rest reaches the next call. */
const reopens = (a: RuntimeSettings, b: RuntimeSettings): boolean =>
  a.archivePath !== b.archivePath || !same(a.embed, b.embed) || !same(a.citation, b.citation);

class LiveRuntime implements Runtime {
  readonly personal: ServerContext;
  readonly context: ServerContext;
  settings: RuntimeSettings;
  private excluded: Exclusion;
  private generation = 0;
  private disposed = false;
  private summaryCache?: { generation: number; stamp: string; summary: NonNullable<RuntimeStatus['summary']> };
  private readonly listeners = new Set<(e: RuntimeEvent) => void>();
  private readonly log: RuntimeLog;
  private readonly holder: ArchiveHolder;
  private readonly semantic: SemanticManager;
  private readonly watchTimer?: NodeJS.Timeout;
  private warnedCache = false;

  constructor(private readonly options: RuntimeOptions) {
    const log = (this.log = options.log ?? (() => {}));
    this.settings = settingsOf(options);
    this.excluded = parseExclusions(this.settings.privacy.excludeConversations);
    this.holder = new ArchiveHolder(
      this.settings.archivePath,
      options.openArchive ?? inThreadOpener,
      log,
      options.closeGraceMs ?? 10_000,
      (e) => this.onHolderEvent(e),
      options.missingArchiveMessage,
    );
    this.semantic = new SemanticManager(
      this.holder,
      () => this.settings.embed,
      (file) => this.cacheDirFor(file),
      options.buildVectorIndex ?? defaultVectorIndexBuilder,
      options.createEmbedder ?? ((c) => new OpenAIEmbedder(c)),
      log,
      (status) => this.emit({ kind: 'semantic', status }),
      options.indexRefreshMs,
    );
    if (options.watchIntervalMs && options.watchIntervalMs > 0)
      this.watchTimer = watchArchive(this.holder, options.watchIntervalMs, (e) => this.emit(e));
    this.personal = this.personalContext();
    this.context = modelFacing(this.personal, () => this.excluded);
  }

  private emit(e: RuntimeEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch (err) {
        this.log('warn', `runtime listener failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private onHolderEvent(e: { kind: 'opened'; path: string } | { kind: 'error'; error: string } | { kind: 'replaced' }) {
    if (e.kind === 'opened') {
      this.generation++;
      this.semantic.reset();
      this.emit({ kind: 'archive-opened', path: e.path });
      if (this.options.prewarmSemantic || this.options.prewarmCounts) setImmediate(() => void this.prewarm());
    } else if (e.kind === 'error') this.emit({ kind: 'archive-error', error: e.error });
    else this.emit({ kind: 'archive-changed', replaced: true });
  }

  private async prewarm(): Promise<void> {
    if (this.disposed) return;
    // Not waiting for the index: once its build has started, the count below runs beside it instead of before it.
    if (this.options.prewarmSemantic) await this.semantic.get(undefined, { wait: false }).catch(() => {});
    if (this.options.prewarmCounts && !this.disposed) {
      const held = await this.holder.get().catch(() => undefined);
      // As a model-facing call reads it: with exclusions, also the listing they are resolved against.
      const archive = this.excluded.length ? held?.opened.archive.excluding(this.excluded) : held?.opened.archive;
      await archive?.scopeCounts({}).catch(() => {});
    }
  }

  private cacheDirFor(archiveFile: string): string | undefined {
    const dir = this.options.cacheDir;
    if (!dir) return undefined;
    if (!isBesideArchive(dir, archiveFile)) return dir;
    if (!this.warnedCache)
      this.log('warn', `not caching the vector index in ${dir}: it is beside the archive (we never write there)`);
    this.warnedCache = true;
    return undefined;
  }

  /** Everything, for the person's own surfaces; getters read the settings in force on every call. */
  private personalContext(): ServerContext {
    const gate = this.options.beforeCall ?? (async () => {});
    const settings = () => this.settings;
    return {
      onDidChange: (listener: () => void) =>
        this.onDidChange((e) => {
          if (e.kind === 'archive-changed' || e.kind === 'archive-opened' || e.kind === 'config') listener();
        }),
      archive: async (): Promise<AsyncArchive> => {
        await gate();
        if (this.disposed) throw new Error('the msgbrowse server is shutting down');
        return (await this.holder.get()).opened.archive;
      },
      semantic: async (signal, opts) => {
        await gate();
        return this.semantic.get(signal, opts);
      },
      get citation() {
        return settings().citation;
      },
      get redact() {
        return settings().redact;
      },
      get answerBudget() {
        return settings().answerBudget;
      },
      version: this.options.version,
      log: (level, message) => this.log(level, message),
      ...(this.options.disclose ? { disclose: this.options.disclose } : {}),
    };
  }

  exclusion(): Exclusion {
    return this.excluded;
  }

  async exclusions(signal?: AbortSignal): Promise<ExclusionMatch[]> {
    const entries = this.settings.privacy.excludeConversations;
    if (!entries.length) return [];
    return matchExclusions(await (await this.personal.archive()).listConversations(undefined, signal), entries);
  }

  status(): RuntimeStatus {
    const { holder, summaryCache } = this;
    const held = holder.peek();
    const summary = held && summaryCache?.generation === held.generation ? summaryCache.summary : undefined;
    // The summary's version when it has one: msgbrowse may migrate the file in place under a running server.
    const version = summary?.schemaVersion ?? held?.opened.schemaVersion ?? 0;
    const notice = schemaNotice(version);
    const archive: RuntimeStatus['archive'] = held
      ? { state: 'open', path: held.opened.path, schemaVersion: version, ...(notice ? { notice } : {}) }
      : holder.isOpening
        ? { state: 'opening' }
        : holder.lastError
          ? { state: 'error', error: holder.lastError.message, code: holder.lastError.code }
          : { state: 'closed' };
    return {
      archivePath: holder.configuredPath,
      archive,
      summary,
      semantic: this.semantic.status,
      embedModel: this.settings.embed.model,
      version: this.options.version,
      generation: this.generation,
    };
  }

  async describe(signal?: AbortSignal): Promise<RuntimeStatus> {
    try {
      const held = await this.holder.get();
      const stamp = archiveFingerprint(held.opened.path);
      const c = this.summaryCache;
      if (!c || c.generation !== held.generation || c.stamp !== stamp)
        this.summaryCache = { generation: held.generation, stamp, summary: await held.opened.archive.summary(signal) };
    } catch {
      /* status() reports the error */
    }
    return this.status();
  }

  async reload(settings: RuntimeSettings): Promise<boolean> {
    if (this.disposed) return false;
    const before = this.settings;
    const next = settingsOf(settings);
    if (same(before, next)) {
      if (!this.holder.lastError) return false;
      this.holder.invalidate();
      this.emit({ kind: 'config' });
      return true;
    }
    this.settings = next;
    if (!same(before.privacy, next.privacy)) {
      this.excluded = parseExclusions(next.privacy.excludeConversations);
      this.generation++;
    }
    const reopen = reopens(before, next);
    if (reopen) {
      this.generation++;
      this.holder.setPath(next.archivePath);
      this.semantic.reset();
      this.summaryCache = undefined;
    }
    this.emit({ kind: 'config' });
    return reopen;
  }

  onDidChange(listener: (e: RuntimeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.watchTimer) clearInterval(this.watchTimer);
    this.semantic.dispose();
    await this.holder.dispose();
    this.listeners.clear();
  }
}

/**
 * Polls the holder's change detector so listeners hear of changes without a tool call. A change is reported once the
 * files have settled for one interval (a live import commits in bursts). While the last open failed, the configured
 * path is watched the same way and a change reported as a replacement, so listeners retry.
 */
function watchArchive(holder: ArchiveHolder, intervalMs: number, emit: (e: RuntimeEvent) => void): NodeJS.Timeout {
  // The baseline is the fingerprint at the (re)open, so a write right after opening is not missed.
  let watched: (Watched & { generation: number }) | undefined;
  let closed: (Watched & { path: string }) | undefined;
  const timer = setInterval(() => {
    const c = holder.check();
    if (c) {
      closed = undefined;
      if (!watched || watched.generation !== c.held.generation)
        watched = { generation: c.held.generation, reported: c.held.openedAt };
      if (settled(watched, c.fingerprint)) emit({ kind: 'archive-changed', replaced: c.replaced });
      return;
    }
    const p = holder.configuredPath;
    const failed = holder.lastError;
    if (!p || !failed) return;
    if (!closed || closed.path !== p) closed = { path: p, reported: failed.fingerprint };
    if (settled(closed, archiveFingerprint(p))) emit({ kind: 'archive-changed', replaced: true });
  }, intervalMs);
  timer.unref();
  return timer;
}

interface Watched {
  reported: string;
  pending?: string;
}

/** Whether `fp` differs from what was reported and held for one interval; it is then what was reported. */
function settled(w: Watched, fp: string): boolean {
  if (fp === w.reported || w.pending !== fp) {
    w.pending = fp === w.reported ? undefined : fp;
    return false;
  }
  w.reported = fp;
  w.pending = undefined;
  return true;
}
