/**
 * The runtime that feeds MCP servers: the current archive (opened lazily, reopened when the file is
 * replaced or settings change), the semantic backend, the citation format, status and change events.
 * One runtime serves any number of servers/sessions.
 */
import { inThread, openArchive } from '../archive/index';
import type { AsyncArchive } from '../archive/types';
import { normalizeEmbedConfig } from '../embed/config';
import { OpenAIEmbedder } from '../embed/openai-client';
import { startEngineWorker } from '../engine/index';
import type { EmbedConfig } from '../embed/types';
import type { CitationFormat, SemanticOptions, SemanticState, ServerContext } from './context';
import { ArchiveHolder, archiveFingerprint } from './archive-holder';
import { isBesideArchive } from './cache-dir';
import { schemaNotice } from './compatibility';
import { defaultVectorIndexBuilder } from './vector-index-source';
import { matchExclusions, modelFacing, parseExclusions } from './privacy';
import type { Exclusion } from '../archive/types';
import { SemanticManager } from './semantic-backend';
import type {
  ArchiveOpener,
  Runtime,
  RuntimeEvent,
  RuntimeLog,
  RuntimeOptions,
  RuntimeSettings,
  RuntimeStatus,
} from './types';

/** Opens the archive in this thread (the CLI's choice). */
export const inThreadOpener: ArchiveOpener = async (p) => {
  const sync = await openArchive(p);
  return { archive: inThread(sync), sync, path: sync.path, schemaVersion: sync.schemaVersion };
};

/**
 * Opens the archive in the engine worker thread: queries, vector builds and scans run off this thread
 * (what the extension host needs). `workerScript` overrides the worker entry (tests).
 */
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
    return {
      archive: client,
      path: client.path,
      schemaVersion: client.schemaVersion,
      vectorIndex: (model, o) => client.vectorIndex(model, o),
    };
  };
}

const noticeOf = (version: number): { notice?: string } => {
  const notice = schemaNotice(version);
  return notice ? { notice } : {};
};

export function createRuntime(options: RuntimeOptions): Runtime {
  const log: RuntimeLog = options.log ?? (() => {});
  const listeners = new Set<(e: RuntimeEvent) => void>();
  const emit = (e: RuntimeEvent) => {
    for (const l of [...listeners]) {
      try {
        l(e);
      } catch (err) {
        log('warn', `runtime listener failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };

  let embed: EmbedConfig = normalizeEmbedConfig(options.embed);
  let citation: CitationFormat = { ...options.citation };
  let redact = options.redact ?? true;
  let answerBudget = options.answerBudget;
  /** Bumps when the archive is (re)opened or settings change. */
  let generation = 0;
  let disposed = false;
  let summaryCache: { generation: number; stamp: string; summary: NonNullable<RuntimeStatus['summary']> } | undefined;

  const opener = options.openArchive ?? inThreadOpener;
  const holder = new ArchiveHolder(
    options.archivePath,
    opener,
    log,
    options.closeGraceMs ?? 10_000,
    (e) => {
      if (e.kind === 'opened') {
        generation++;
        semantic.reset();
        emit({ kind: 'archive-opened', path: e.path });
        if (options.prewarmSemantic || options.prewarmCounts) setImmediate(() => void prewarm());
      } else if (e.kind === 'error') emit({ kind: 'archive-error', error: e.error });
      else emit({ kind: 'archive-changed', replaced: true });
    },
    options.missingArchiveMessage,
  );

  /** What the archive's (re)open starts in the background (RuntimeOptions.prewarmSemantic / prewarmCounts). */
  async function prewarm(): Promise<void> {
    if (disposed) return;
    if (options.prewarmSemantic) {
      // Not waiting for the index: this returns once its load or build has started (the engine worker has the
      // request), so the count below runs beside the build instead of before it. The build goes on detached; its
      // end (ready, or the error) reaches the status as for any build.
      await semantic.get(undefined, { wait: false }).catch(() => {});
    }
    if (options.prewarmCounts && !disposed) {
      // The whole archive's message count: made from the per-conversation counts (one scan of `messages`), which
      // the archive keeps while its file stays the same, and nothing else (no summary: it also counts embeddings).
      await holder
        .get()
        .then((held) => held.opened.archive.scopeCounts({}))
        .catch(() => {});
    }
  }

  let warnedCache = false;
  const cacheDirFor = (archiveFile: string): string | undefined => {
    const dir = options.cacheDir;
    if (!dir) return undefined;
    if (isBesideArchive(dir, archiveFile)) {
      if (!warnedCache)
        log('warn', `not caching the vector index in ${dir}: it is beside the archive (we never write there)`);
      warnedCache = true;
      return undefined;
    }
    return dir;
  };

  const semantic = new SemanticManager(
    holder,
    () => embed,
    cacheDirFor,
    options.buildVectorIndex ?? defaultVectorIndexBuilder,
    options.createEmbedder ?? ((c) => new OpenAIEmbedder(c)),
    log,
    (status) => emit({ kind: 'semantic', status }),
    options.indexRefreshMs,
  );

  // Optional polling so listeners hear about changes without a tool call: the holder's change detector, run on a
  // timer. The baseline is the fingerprint seen when the archive (re)opened, so a write right after opening is not
  // missed; a change is reported once the files have settled for one interval (a live import commits in bursts).
  // While the last open failed, the configured path itself is watched the same way (a file that appears, or is
  // repaired, is reported as a replacement so listeners retry).
  let watchTimer: NodeJS.Timeout | undefined;
  let watched: { generation: number; reported: string; pending?: string } | undefined;
  /** While nothing is open (the last open failed): the configured path's fingerprint, to retry when it changes. */
  let closed: { path: string; reported: string; pending?: string } | undefined;
  if (options.watchIntervalMs && options.watchIntervalMs > 0) {
    watchTimer = setInterval(() => {
      const c = holder.check();
      if (!c) {
        const p = holder.configuredPath;
        const failed = holder.lastError;
        if (!p || !failed) return;
        const fp = archiveFingerprint(p);
        if (!closed || closed.path !== p) closed = { path: p, reported: failed.fingerprint };
        if (fp === closed.reported) closed.pending = undefined;
        else if (closed.pending !== fp) closed.pending = fp;
        else {
          closed = { path: p, reported: fp };
          emit({ kind: 'archive-changed', replaced: true });
        }
        return;
      }
      closed = undefined;
      if (!watched || watched.generation !== c.held.generation)
        watched = { generation: c.held.generation, reported: c.held.openedAt };
      if (c.fingerprint === watched.reported) {
        watched.pending = undefined;
        return;
      }
      if (watched.pending !== c.fingerprint) {
        watched.pending = c.fingerprint;
        return;
      }
      watched.reported = c.fingerprint;
      watched.pending = undefined;
      emit({ kind: 'archive-changed', replaced: c.replaced });
    }, options.watchIntervalMs);
    watchTimer.unref();
  }

  const gate = options.beforeCall ?? (async () => {});
  let exclusion: Exclusion = parseExclusions(options.privacy?.excludeConversations);
  let exclusionEntries: readonly string[] = options.privacy?.excludeConversations ?? [];
  const personal: ServerContext = {
    onDidChange(listener: () => void): () => void {
      const l = (e: RuntimeEvent) => {
        if (e.kind === 'archive-changed' || e.kind === 'archive-opened' || e.kind === 'config') listener();
      };
      listeners.add(l);
      return () => listeners.delete(l);
    },
    async archive(): Promise<AsyncArchive> {
      await gate();
      if (disposed) throw new Error('the msgbrowse server is shutting down');
      return (await holder.get()).opened.archive;
    },
    async semantic(signal?: AbortSignal, opts?: SemanticOptions): Promise<SemanticState> {
      await gate();
      return semantic.get(signal, opts);
    },
    get citation() {
      return citation;
    },
    get redact() {
      return redact;
    },
    get answerBudget() {
      return answerBudget;
    },
    version: options.version,
    log(level, message) {
      log(level, message);
    },
    ...(options.disclose ? { disclose: options.disclose } : {}),
  };

  function status(): RuntimeStatus {
    const held = holder.peek();
    const summary = held && summaryCache?.generation === held.generation ? summaryCache.summary : undefined;
    // The summary's version when it has one: msgbrowse may migrate the file in place under a running server.
    const version = summary?.schemaVersion ?? held?.opened.schemaVersion ?? 0;
    const archive: RuntimeStatus['archive'] = held
      ? { state: 'open', path: held.opened.path, schemaVersion: version, ...noticeOf(version) }
      : holder.isOpening
        ? { state: 'opening' }
        : holder.lastError
          ? { state: 'error', error: holder.lastError.message, code: holder.lastError.code }
          : { state: 'closed' };
    return {
      archivePath: holder.configuredPath,
      archive,
      summary,
      semantic: semantic.status,
      embedModel: embed.model,
      version: options.version,
      generation,
    };
  }

  const context = modelFacing(personal, () => exclusion);

  return {
    context,
    personal,
    exclusion: () => exclusion,
    async exclusions(signal?: AbortSignal) {
      if (!exclusionEntries.length) return [];
      return matchExclusions(await (await personal.archive()).listConversations(undefined, signal), exclusionEntries);
    },
    status,
    async describe(signal?: AbortSignal): Promise<RuntimeStatus> {
      try {
        const held = await holder.get();
        const stamp = archiveFingerprint(held.opened.path);
        if (!summaryCache || summaryCache.generation !== held.generation || summaryCache.stamp !== stamp) {
          summaryCache = { generation: held.generation, stamp, summary: await held.opened.archive.summary(signal) };
        }
      } catch {
        // status() reports the error
      }
      return status();
    },
    async reload(patch?: Partial<RuntimeSettings>): Promise<void> {
      if (disposed) return;
      if (patch?.redact !== undefined) redact = patch.redact;
      if (patch?.answerBudget !== undefined) answerBudget = patch.answerBudget;
      if (patch?.privacy) {
        exclusion = parseExclusions(patch.privacy.excludeConversations);
        exclusionEntries = patch.privacy.excludeConversations;
        generation++;
      }
      // Redaction, exclusions and the answer budget only change what the next call answers: nothing to reopen.
      if (patch && Object.keys(patch).every((k) => k === 'redact' || k === 'answerBudget' || k === 'privacy')) {
        emit({ kind: 'config' });
        return;
      }
      generation++;
      if (patch?.embed) embed = normalizeEmbedConfig(patch.embed);
      if (patch?.citation) citation = { ...patch.citation };
      if (patch?.archivePath !== undefined) holder.setPath(patch.archivePath);
      else holder.invalidate();
      semantic.reset();
      summaryCache = undefined;
      emit({ kind: 'config' });
    },
    onDidChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async dispose(): Promise<void> {
      if (disposed) return;
      disposed = true;
      if (watchTimer) clearInterval(watchTimer);
      semantic.dispose();
      await holder.dispose();
      listeners.clear();
    },
  };
}
