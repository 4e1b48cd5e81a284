/**
 * Messages between the engine client (extension host / CLI main thread) and the engine worker.
 *
 * Everything here is structured-clone safe. Errors cross the boundary as plain `WireError`
 * objects (never a stack trace); the client turns them back into ArchiveError / AbortError / Error.
 */
import type { ArchiveErrorCode } from '../archive/errors';
import type { ArchiveMethod } from '../archive/methods';
import type { Exclusion, SharedEmbeddingJoin } from '../archive/types';
import type { VectorFilter } from '../search/types';
import type { VectorErrorCode } from '../search/vector/errors';
import type { BuildProgress, PackedParts, RowPlacement, SplitPart } from '../search/vector';
import type { HelperScan, ScanShare } from '../search/vector/scan-share';
import type { WasmMemory } from '../search/kernel/wasm-api';

/** The archive methods the worker answers: the archive's own table (archive/methods.ts). */
export { ARCHIVE_METHODS, isArchiveMethod, type ArchiveMethod } from '../archive/methods';

export type EngineLog = (level: 'info' | 'warn' | 'error', message: string) => void;

/** Data the worker is started with (`workerData`). */
export interface WorkerInit {
  archivePath: string;
  /** Int32 cancel flags, one per slot; the client sets `flags[slot] = 1` to cancel the request using it. */
  cancelFlags: SharedArrayBuffer;
  /** The host's compiled sqlite3.wasm when it had one ready: the worker instantiates it instead of compiling. */
  wasmModule?: object;
  /**
   * An index build of `model` is expected right after the open (the client prewarms it): unless `cacheDir` holds
   * that index's cache file, the worker starts an index-build thread beside its own start (prepareBuildThread).
   */
  standbyBuild?: StandbyBuildHint;
  /**
   * V8 flags the process keeps (v8-flags.ts): the worker re-applies them as it starts (worker-flags.ts) and after
   * each index-build worker it starts.
   */
  keepV8Flags?: string[];
}

export interface StandbyBuildHint {
  model: string;
  /** Where the client keeps its index cache files (VectorOpenOptions.cacheDir); absent: nothing is cached. */
  cacheDir?: string;
}

/** Number of cancel slots (requests in flight beyond this still work, but are cancelled only between steps). */
export const CANCEL_SLOTS = 1024;

/** A request slot of -1 means "no shared flag": cancellation is delivered by a `cancel` message only. */
export const NO_SLOT = -1;

export type WorkerRequest =
  /** `exclude`: conversations the call must not see (the archive's `excluding`); absent: none. */
  | { type: 'call'; id: number; slot: number; method: ArchiveMethod; args: unknown[]; exclude?: Exclusion }
  /** `share`: answer with what a helper thread needs to share the index's scans (VectorIndexInfo.share). */
  | ({ type: 'vector.open'; id: number; slot: number; model: string; share?: boolean } & VectorOpenOptions)
  | {
      type: 'vector.search';
      id: number;
      slot: number;
      handle: number;
      query: Float32Array;
      k: number;
      filter?: VectorFilter;
      /** The job the client made to scan beside the worker (scan-share.ts); its findings follow as `vector.helped`. */
      job?: SharedArrayBuffer;
    }
  /** The client's share of search `id`'s scan. */
  | { type: 'vector.helped'; id: number; scan: HelperScan }
  | { type: 'vector.dispose'; id: number; handle: number }
  | { type: 'cancel'; id: number }
  | { type: 'close'; id: number };

/** How the worker loads or builds a vector index (mirrors the vector layer's LoadOrBuildOptions). */
export interface VectorOpenOptions {
  /** Cache directory of ours; absent: build in memory, no persistence. */
  cacheDir?: string;
  /** Identity of the archive's embeddings; default: archive path, model, dim, count and file fingerprint. */
  key?: string;
  /** Stable identity of the archive for the cache file name; default: the archive path. */
  name?: string;
  /** Expected dimension; default: the archive's dimension for the model. */
  dim?: number;
  /** Expected record count (progress); default: the archive's count for the model. */
  total?: number;
  /**
   * The archive fingerprint `key` was made from. With it, the vector coverage the build counted (or the cache file
   * recorded) is kept for search receipts while the archive still has this fingerprint.
   */
  fingerprint?: string;
}

export interface WireError {
  kind: 'archive' | 'vector' | 'abort' | 'error';
  message: string;
  /** ArchiveErrorCode for `archive`, VectorErrorCode for `vector`. */
  code?: ArchiveErrorCode | VectorErrorCode;
  path?: string;
}

export interface VectorIndexInfo {
  handle: number;
  model: string;
  dim: number;
  size: number;
  /** When the open asked for it: the index's shared memory and layout, for a helper thread (scan-share.ts). */
  share?: ScanShare;
}

export type WorkerResponse =
  /** Sent once after the archive opened (or failed to open: then `error` is set and the worker exits). */
  | { type: 'ready'; path: string; schemaVersion: number }
  | { type: 'open-failed'; error: WireError }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; error: WireError }
  | { type: 'progress'; id: number; progress: unknown }
  /** Diagnostics from inside the worker (e.g. why a vector cache file was not used). */
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string };

/**
 * Data an index-build worker is started with: what it prepares before it knows its job (its engine, the archive,
 * the join of embeddings to messages), so a thread started ahead of a build (index-build.ts's standby) has done
 * that part when the build is asked for. The job follows as a `start` message.
 */
export interface BuildWorkerInit {
  archivePath: string;
  /**
   * Int32 control words (thread-priority.ts's CONTROL): the engine worker sets `cancel` to 1 to cancel the build;
   * the thread stores its kernel thread id in `tid` (0: unknown) as it starts.
   */
  cancelFlag: SharedArrayBuffer;
  wasmModule?: object;
  /** V8 flags the process keeps (v8-flags.ts), re-applied as the thread starts (worker-flags.ts). */
  keepV8Flags?: string[];
  /**
   * A thread started ahead of a split build's upper range (index-build.ts's `upper` standby): it prepares no join
   * of its own, since it is handed the lower range's.
   */
  receivesJoin?: boolean;
}

/** What an index-build thread builds (its `start` message). */
export interface BuildJob {
  model: string;
  dim?: number;
  total?: number;
  /**
   * One rowid range of a build split between threads: only rows in (after, upTo], written where `placement` says;
   * the thread answers `range` instead of `built`. `total` is then the range's expected count.
   */
  range?: {
    after?: number;
    upTo?: number;
    placement: RowPlacement;
    /**
     * The upper range: once its rows are in, it waits for the lower range's part (`merge`), merges both off the engine
     * worker's thread (moving up to half the index's rows) and answers `built` with the whole index.
     */
    merges?: boolean;
    /**
     * The join to messages, made once for both ranges: the lower range (`send`) hands its own to the upper range
     * (`receive`, relayed as `join` messages) before it scans, and the upper range, which scans its embeddings
     * meanwhile unjoined, joins them through it (through a join of its own only when the archive changed meanwhile or
     * the lower range had none to give).
     */
    join?: 'send' | 'receive';
  };
  /**
   * A build in one thread: the memory the engine worker made for its rows (wholeBuildMemory), whose pages it commits
   * meanwhile (search/vector/prefault.ts), so the build thread does not fault on each one.
   */
  memory?: WasmMemory;
}

/** What an index-build worker sends its engine worker. */
export type BuildWorkerMessage =
  | { type: 'progress'; progress: BuildProgress }
  | { type: 'log'; message: string }
  | { type: 'built'; parts: PackedParts }
  /** A split build's range: its per-row arrays (its rows are in the shared memory). */
  | { type: 'range'; part: SplitPart }
  /** A split build's lower range, before it scans: its join to messages for the upper range (null: none to give). */
  | { type: 'join'; join: SharedEmbeddingJoin | null }
  | { type: 'failed'; error: WireError };

/**
 * What the engine worker sends an index-build thread: its job, then (a split build's upper range only) the lower
 * range's join to messages and its part, to merge with its own.
 */
export type BuildThreadMessage = { type: 'start'; job: BuildJob } | { type: 'join'; join: SharedEmbeddingJoin | null } | { type: 'merge'; part: SplitPart };
