/**
 * Messages between the engine client (extension host / CLI main thread) and the engine worker.
 *
 * Everything here is structured-clone safe. Errors cross the boundary as plain `WireError`
 * objects (never a stack trace); the client turns them back into ArchiveError / AbortError / Error.
 */
import type { ArchiveErrorCode } from '../archive/errors';
import type { ArchiveMethod } from '../archive/methods';
import type { Exclusion } from '../archive/types';
import type { VectorFilter } from '../search/types';
import type { VectorErrorCode } from '../search/vector/errors';
import type { BuildProgress, PackedParts } from '../search/vector';
import type { HelperScan, ScanShare } from '../search/vector/scan-share';

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
  /** The index-build worker's script (tests wrap it); default: the one beside the engine worker's. */
  buildScript?: string;
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
  /** `job`: the client scans beside the worker (scan-share.ts); its findings follow as `vector.helped`. */
  | {
      type: 'vector.search';
      id: number;
      slot: number;
      handle: number;
      query: Float32Array;
      k: number;
      filter?: VectorFilter;
      job?: SharedArrayBuffer;
    }
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

/** Data an index-build worker is started with: the archive and the one build it makes. */
export interface BuildWorkerInit {
  archivePath: string;
  /** One Int32: the engine worker sets it to 1 to cancel the build. */
  cancelFlag: SharedArrayBuffer;
  wasmModule?: object;
  model: string;
  dim?: number;
  total?: number;
}

/** What an index-build worker sends its engine worker. */
export type BuildWorkerMessage =
  | { type: 'progress'; progress: BuildProgress }
  | { type: 'log'; message: string }
  | { type: 'built'; parts: PackedParts }
  | { type: 'failed'; error: WireError };
