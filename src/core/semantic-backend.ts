/**
 * Whether semantic search is available (and why not); builds the vector index once per archive state and model,
 * shared by concurrent callers, and serves the previous index while a fresher one builds after the archive changed.
 */
import { modelAvailabilityProblem, NO_EMBED_MODEL_REASON } from '../embed/config';
import type { EmbedConfig, Embedder } from '../embed/types';
import type { EmbeddingModelInfo } from '../archive/types';
import type { VectorIndex } from '../search/types';
import {
  archiveRows,
  consumeRecords,
  Int8VectorIndex,
  keepBuildCoverage,
  loadOrBuildVectorIndex,
  vectorCacheKey,
} from '../search/vector/index';
import type { BuildProgressInfo, SemanticOptions, SemanticState, SemanticUnavailable } from './context';
import { archiveFingerprint, type ArchiveHolder, type HeldArchive } from './archive-holder';
import { SharedQueryEmbedder } from './query-embeddings';
import { isAbortError, SharedTask } from './shared-task';
import type { RuntimeLog, SemanticStatus, VectorIndexBuilder } from './types';

/** What an index is built from: the archive (open generation, files' fingerprint) and the model's stored vectors. */
type IndexBasis = { generation: number; model: string; dim: number; count: number; stamp: string };

type BuiltIndex = IndexBasis & { index: VectorIndex; builtAt: number };

interface Build extends IndexBasis {
  task: SharedTask<VectorIndex>;
  done: number;
  started: number;
  /** Settles when the build ends, either way. */
  ended: Promise<void>;
}

type Target = IndexBasis & { held: HeldArchive; embedder: Embedder };

const basis = ({ generation, model, dim, count, stamp }: IndexBasis): IndexBasis => ({
  generation,
  model,
  dim,
  count,
  stamp,
});
const sameBase = (a: IndexBasis, b: IndexBasis): boolean =>
  a.generation === b.generation && a.model === b.model && a.dim === b.dim;
const text = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const ignore = () => {};

/** Default minimum time between background rebuilds while the archive keeps changing (live imports). */
const DEFAULT_INDEX_REFRESH_MS = 2000;
/** How long callers that do not wait get a failed build of an unchanged archive back instead of a retry. */
const FAILED_BUILD_RETRY_MS = 30_000;

export class SemanticManager {
  private built?: BuiltIndex;
  private building?: Build;
  private failed?: IndexBasis & { reason: string; at: number };
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
    const { done, count, started } = build;
    const eta = done > 0 ? { etaMs: Math.max(0, Math.round(((Date.now() - started) * (count - done)) / done)) } : {};
    return { percent: buildPercent(done, count), ...eta, done: build.ended };
  }

  async get(signal?: AbortSignal, opts: SemanticOptions = {}): Promise<SemanticState> {
    if (this.disposed) return { available: false, reason: 'the msgbrowse server is shutting down' };
    const t = await this.target(signal);
    return 'available' in t ? t : this.indexFor(t, opts, signal);
  }

  /** The archive, model and embedder a search would use, or why semantic search is unavailable. */
  private async target(signal?: AbortSignal): Promise<Target | SemanticUnavailable> {
    const cfg = this.getConfig();
    const model = cfg.model.trim();
    if (model === '') {
      this.setStatus({ state: 'disabled', reason: NO_EMBED_MODEL_REASON });
      return { available: false, reason: NO_EMBED_MODEL_REASON };
    }
    const unavailable = (state: 'error' | 'unavailable' | undefined, reason: string): SemanticUnavailable => {
      if (state) this.setStatus({ state, reason });
      return { available: false, reason, model };
    };
    let held: HeldArchive;
    try {
      held = await this.holder.get();
    } catch (e) {
      return unavailable(undefined, `the archive cannot be opened: ${text(e)}`);
    }
    const stamp = archiveFingerprint(held.opened.path);
    let models: EmbeddingModelInfo[];
    try {
      models = await this.storedModels(held, stamp, signal);
    } catch (e) {
      if (isAbortError(e)) throw e;
      return unavailable('error', `cannot read the archive's embeddings: ${text(e)}`);
    }
    const problem = modelAvailabilityProblem(model, models);
    if (problem) return unavailable('unavailable', problem);
    const { dim, count } = models.find((m) => m.model === model)!;
    try {
      return { generation: held.generation, model, dim, count, stamp, held, embedder: this.embedder(cfg) };
    } catch (e) {
      return unavailable('unavailable', text(e));
    }
  }

  /** The index for `t`: the one built (also while a fresher one builds), else a build, awaited unless `wait: false`. */
  private async indexFor(t: Target, opts: SemanticOptions, signal?: AbortSignal): Promise<SemanticState> {
    const { embedder, model } = t;
    const b = this.built;
    if (b && sameBase(b, t)) {
      // The archive changed since the build: serve the index we have and refresh it in the background.
      if ((b.stamp !== t.stamp || b.count !== t.count) && Date.now() - b.builtAt >= this.refreshMs)
        this.startBuild(t).task.detach().catch(ignore);
      return { available: true, embedder, index: b.index };
    }
    const f = this.failed;
    if (opts.wait === false && f && sameBase(f, t) && f.stamp === t.stamp && Date.now() - f.at < FAILED_BUILD_RETRY_MS)
      return { available: false, reason: f.reason, model };
    const build = this.startBuild(t);
    if (opts.wait === false && !build.task.done) {
      // The caller answers without the index (keyword results now); the build goes on without it.
      build.task.detach().catch(ignore);
      const building = this.progressOf(build);
      return { available: false, reason: `index building: ${building.percent}%`, model, building, embedder };
    }
    try {
      return { available: true, embedder, index: await build.task.wait(signal) };
    } catch (e) {
      if (isAbortError(e)) throw e;
      const reason = `the vector index could not be built: ${text(e)}`;
      this.setStatus({ state: 'error', reason });
      return { available: false, reason, model };
    }
  }

  private startBuild(t: Target): Build {
    const cur = this.building;
    if (cur && sameBase(cur, t) && !cur.task.aborted) return cur; // a build for this archive and model is running
    cur?.task.abort();
    const { held, model, dim, count } = t;
    let build: Build | undefined; // unset while the builder's first synchronous steps run
    const task = new SharedTask<VectorIndex>((signal) =>
      this.builder({
        archive: held.opened,
        model,
        dim,
        count,
        cacheDir: this.getCacheDir(held.opened.path),
        signal,
        log: this.log,
        onProgress: (p) => build && this.progressed(build, p.done),
      }),
    );
    build = { ...basis(t), task, done: 0, started: Date.now(), ended: task.observe().then(ignore, ignore) };
    this.building = build;
    if (!this.built) this.setStatus({ state: 'building', model, dim, count, percent: 0 });
    task.observe().then(
      (index) => this.finished(build, index),
      (e: unknown) => this.failedBuild(build, e),
    );
    return build;
  }

  private progressed(build: Build, done: number): void {
    if (this.building !== build || this.disposed) return;
    build.done = Math.min(done, build.count);
    // setStatus drops repeats, so listeners (the status bar) hear about each whole percent once.
    const { model, dim, count } = build;
    if (!this.built) this.setStatus({ state: 'building', model, dim, count, percent: buildPercent(build.done, count) });
  }

  private finished(build: Build, index: VectorIndex): void {
    if (this.building !== build || this.disposed) {
      index.dispose();
      return;
    }
    this.building = undefined;
    this.failed = undefined;
    const old = this.built;
    this.built = { ...basis(build), index, builtAt: Date.now() };
    if (old && old.index !== index) old.index.dispose();
    const { model, dim } = build;
    const ms = Date.now() - build.started;
    this.log('info', `vector index ready: ${index.size} vectors of "${model}" (dim ${dim}) in ${ms} ms`);
    this.setStatus({ state: 'ready', model, dim, size: index.size });
  }

  private failedBuild(build: Build, e: unknown): void {
    if (this.building === build) this.building = undefined;
    if (isAbortError(e)) return;
    this.log('error', `vector index build failed: ${text(e)}`);
    if (this.disposed) return;
    const reason = `the vector index could not be built: ${text(e)}`;
    this.failed = { ...basis(build), reason, at: Date.now() };
    if (!this.built) this.setStatus({ state: 'error', reason });
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
  return count <= 0 ? 0 : Math.min(99, Math.floor((done / count) * 100));
}

/** Builds in the worker when the archive has one, else here; cached when a dir is given. */
export const defaultVectorIndexBuilder: VectorIndexBuilder = async (req) => {
  const { model, dim, cacheDir } = req;
  const name = req.archive.path;
  // The key changes with the archive's on-disk state, so re-imported conversations (new message ids) rebuild.
  const fingerprint = archiveFingerprint(name);
  const key = vectorCacheKey({ path: name, model, dim, count: req.count, fingerprint });
  const build = { dim, total: req.count, signal: req.signal, onProgress: req.onProgress };
  const remote = req.archive.vectorIndex;
  if (remote) return remote(model, { cacheDir, key, fingerprint, name, ...build });
  const sync = req.archive.sync;
  if (!sync)
    throw new Error('this archive is not open in this thread; pass a buildVectorIndex that can read its embeddings');
  const records = () => sync.embeddings(model, { shareVectors: true });
  const rows = archiveRows(sync, model);
  const log = (m: string) => req.log('debug', m);
  const index = cacheDir
    ? await loadOrBuildVectorIndex({ ...build, model, records, cacheDir, key, name, rows, log })
    : await consumeRecords(records(), { ...build, model }).then((parts) =>
        Int8VectorIndex.create(parts, rows(parts), 'memory'),
      );
  // The build counted the model's vector coverage: the first search receipt need not count it again.
  keepBuildCoverage(sync, model, index.stats, fingerprint, log);
  return index;
};
