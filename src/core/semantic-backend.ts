/**
 * The semantic backend: decides whether semantic search is available (and says why not), builds the
 * vector index once per archive state and model (shared between concurrent callers, cancellable), and
 * serves a slightly stale index while a newer one builds after the archive changed.
 */
import { modelAvailabilityProblem, NO_EMBED_MODEL_REASON } from '../embed/config';
import type { EmbedConfig, Embedder } from '../embed/types';
import type { EmbeddingModelInfo } from '../archive/types';
import type { VectorIndex } from '../search/types';
import type { BuildProgressInfo, SemanticOptions, SemanticState } from './context';
import { archiveFingerprint, type ArchiveHolder, type HeldArchive } from './archive-holder';
import { SharedQueryEmbedder } from './query-embeddings';
import { isAbortError, SharedTask } from './shared-task';
import type { RuntimeLog, SemanticStatus, VectorIndexBuilder } from './types';

interface BuiltIndex {
  generation: number;
  model: string;
  dim: number;
  count: number;
  stamp: string;
  index: VectorIndex;
  builtAt: number;
}

interface Build {
  generation: number;
  model: string;
  dim: number;
  count: number;
  stamp: string;
  task: SharedTask<VectorIndex>;
  /** Records consumed so far (from the builder's progress reports). */
  done: number;
  started: number;
  /** Settles when the build ends, either way. */
  ended: Promise<void>;
}

/** Default minimum time between background rebuilds while the archive keeps changing (live imports). */
export const DEFAULT_INDEX_REFRESH_MS = 2000;

/**
 * How long a failed build of an unchanged archive is reported as is to callers that do not wait (search_messages,
 * semantic_search's poll) instead of being started again; a changed archive, new settings or a waiting caller retry.
 */
export const FAILED_BUILD_RETRY_MS = 30_000;

export class SemanticManager {
  private built?: BuiltIndex;
  private building?: Build;
  /** The last build that failed, for the same archive state and model (see FAILED_BUILD_RETRY_MS). */
  private failed?: { generation: number; model: string; dim: number; stamp: string; reason: string; at: number };
  private models?: { generation: number; stamp: string; models: EmbeddingModelInfo[] };
  private embedderCache?: { key: string; embedder: Embedder };
  private disposed = false;
  status: SemanticStatus = { state: 'unknown' };

  constructor(
    private readonly holder: ArchiveHolder,
    private readonly getConfig: () => EmbedConfig,
    private readonly getCacheDir: (archiveFile: string) => string | undefined,
    private readonly builder: VectorIndexBuilder,
    private readonly createEmbedder: (c: EmbedConfig) => Embedder,
    private readonly log: RuntimeLog,
    private readonly onStatus: (s: SemanticStatus) => void,
    private readonly refreshMs: number = DEFAULT_INDEX_REFRESH_MS,
  ) {
    if (getConfig().model.trim() === '') this.status = { state: 'disabled', reason: NO_EMBED_MODEL_REASON };
  }

  private setStatus(s: SemanticStatus): void {
    const same = JSON.stringify(s) === JSON.stringify(this.status);
    this.status = s;
    if (!same) this.onStatus(s);
  }

  /** Forgets everything derived from the archive or settings (index, model list, embedder). */
  reset(): void {
    this.building?.task.abort();
    this.building = undefined;
    this.failed = undefined;
    this.built?.index.dispose();
    this.built = undefined;
    this.models = undefined;
    this.embedderCache = undefined;
    const model = this.getConfig().model.trim();
    this.setStatus(model === '' ? { state: 'disabled', reason: NO_EMBED_MODEL_REASON } : { state: 'unknown' });
  }

  private embedder(cfg: EmbedConfig): Embedder {
    const key = JSON.stringify([cfg.baseUrl, cfg.model, cfg.apiKey ?? '', cfg.timeoutMs ?? 0]);
    if (this.embedderCache?.key !== key)
      this.embedderCache = { key, embedder: new SharedQueryEmbedder(this.createEmbedder(cfg)) };
    return this.embedderCache.embedder;
  }

  private async storedModels(held: HeldArchive, stamp: string, signal?: AbortSignal): Promise<EmbeddingModelInfo[]> {
    const m = this.models;
    if (m && m.generation === held.generation && m.stamp === stamp) return m.models;
    const models = await held.opened.archive.embeddingModels(signal);
    this.models = { generation: held.generation, stamp, models };
    return models;
  }

  /** How far `build` is and how long the rest should take, at its pace so far. */
  private progressOf(build: Build): BuildProgressInfo {
    const percent = buildPercent(build.done, build.count);
    const elapsed = Date.now() - build.started;
    const etaMs =
      build.done > 0 ? Math.max(0, Math.round((elapsed * (build.count - build.done)) / build.done)) : undefined;
    return { percent, ...(etaMs !== undefined ? { etaMs } : {}), done: build.ended };
  }

  async get(signal?: AbortSignal, opts: SemanticOptions = {}): Promise<SemanticState> {
    if (this.disposed) return { available: false, reason: 'the msgbrowse server is shutting down' };
    const cfg = this.getConfig();
    const model = cfg.model.trim();
    if (model === '') {
      this.setStatus({ state: 'disabled', reason: NO_EMBED_MODEL_REASON });
      return { available: false, reason: NO_EMBED_MODEL_REASON };
    }
    let held: HeldArchive;
    try {
      held = await this.holder.get();
    } catch (e) {
      const reason = `the archive cannot be opened: ${e instanceof Error ? e.message : String(e)}`;
      return { available: false, reason, model };
    }
    const stamp = archiveFingerprint(held.opened.path);
    let models: EmbeddingModelInfo[];
    try {
      models = await this.storedModels(held, stamp, signal);
    } catch (e) {
      if (isAbortError(e)) throw e;
      const reason = `cannot read the archive's embeddings: ${e instanceof Error ? e.message : String(e)}`;
      this.setStatus({ state: 'error', reason });
      return { available: false, reason, model };
    }
    const problem = modelAvailabilityProblem(model, models);
    if (problem) {
      this.setStatus({ state: 'unavailable', reason: problem });
      return { available: false, reason: problem, model };
    }
    const info = models.find((m) => m.model === model)!;
    let embedder: Embedder;
    try {
      embedder = this.embedder(cfg);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      this.setStatus({ state: 'unavailable', reason });
      return { available: false, reason, model };
    }

    const b = this.built;
    const sameBase = b && b.generation === held.generation && b.model === model && b.dim === info.dim;
    if (sameBase && b.stamp === stamp && b.count === info.count) {
      return { available: true, embedder, index: b.index };
    }
    if (sameBase) {
      // The archive changed since the build: serve the index we have and refresh it in the background.
      if (Date.now() - b.builtAt >= this.refreshMs) {
        const build = this.startBuild(held, model, info, stamp);
        build.task.detach().catch(() => {});
      }
      return { available: true, embedder, index: b.index };
    }
    const f = this.failed;
    if (
      opts.wait === false &&
      f &&
      f.generation === held.generation &&
      f.model === model &&
      f.dim === info.dim &&
      f.stamp === stamp &&
      Date.now() - f.at < FAILED_BUILD_RETRY_MS
    ) {
      return { available: false, reason: f.reason, model };
    }
    const build = this.startBuild(held, model, info, stamp);
    if (opts.wait === false && !build.task.done) {
      // The caller answers without the index (keyword results now); the build goes on without it.
      build.task.detach().catch(() => {});
      const building = this.progressOf(build);
      return { available: false, reason: `index building: ${building.percent}%`, model, building, embedder };
    }
    try {
      const index = await build.task.wait(signal);
      return { available: true, embedder, index };
    } catch (e) {
      if (isAbortError(e)) throw e;
      const reason = `the vector index could not be built: ${e instanceof Error ? e.message : String(e)}`;
      this.setStatus({ state: 'error', reason });
      return { available: false, reason, model };
    }
  }

  private startBuild(held: HeldArchive, model: string, info: EmbeddingModelInfo, stamp: string): Build {
    const cur = this.building;
    if (cur && cur.generation === held.generation && cur.model === model && cur.dim === info.dim && !cur.task.aborted) {
      return cur; // a build for this archive and model is running: share it
    }
    cur?.task.abort();
    let build!: Build;
    const onProgress = (p: { done: number }) => {
      // (build is unset while the builder's first synchronous steps run)
      if (!build || this.building !== build || this.disposed) return;
      build.done = Math.min(p.done, build.count);
      // setStatus drops repeats, so listeners (the status bar) hear about each whole percent once.
      if (!this.built)
        this.setStatus({
          state: 'building',
          model,
          dim: info.dim,
          count: info.count,
          percent: buildPercent(build.done, build.count),
        });
    };
    const task = new SharedTask<VectorIndex>((signal) =>
      this.builder({
        archive: held.opened,
        model,
        dim: info.dim,
        count: info.count,
        cacheDir: this.getCacheDir(held.opened.path),
        signal,
        log: this.log,
        onProgress,
      }),
    );
    const started = Date.now();
    const ended = task.observe().then(
      () => undefined,
      () => undefined,
    );
    build = {
      generation: held.generation,
      model,
      dim: info.dim,
      count: info.count,
      stamp,
      task,
      done: 0,
      started,
      ended,
    };
    this.building = build;
    if (!this.built) this.setStatus({ state: 'building', model, dim: info.dim, count: info.count, percent: 0 });
    task.observe().then(
      (index) => {
        if (this.building !== build || this.disposed) {
          index.dispose();
          return;
        }
        this.building = undefined;
        this.failed = undefined;
        const old = this.built;
        this.built = {
          generation: build.generation,
          model,
          dim: info.dim,
          count: info.count,
          stamp,
          index,
          builtAt: Date.now(),
        };
        if (old && old.index !== index) old.index.dispose();
        this.log(
          'info',
          `vector index ready: ${index.size} vectors of "${model}" (dim ${info.dim}) in ${Date.now() - started} ms`,
        );
        this.setStatus({ state: 'ready', model, dim: info.dim, size: index.size });
      },
      (e: unknown) => {
        if (this.building === build) this.building = undefined;
        if (!isAbortError(e)) {
          const message = e instanceof Error ? e.message : String(e);
          this.log('error', `vector index build failed: ${message}`);
          if (!this.disposed) {
            const reason = `the vector index could not be built: ${message}`;
            this.failed = { generation: build.generation, model, dim: info.dim, stamp, reason, at: Date.now() };
            if (!this.built) this.setStatus({ state: 'error', reason });
          }
        }
      },
    );
    return build;
  }

  dispose(): void {
    this.disposed = true;
    this.building?.task.abort();
    this.building = undefined;
    this.built?.index.dispose();
    this.built = undefined;
  }
}

/** Whole percent of `count` records read; 99 at most while a build runs (the last step writes the index). */
function buildPercent(done: number, count: number): number {
  if (count <= 0) return 0;
  return Math.min(99, Math.floor((done / count) * 100));
}
