/** Messages between the engine client and its worker: structured-clone safe; errors cross as plain WireErrors. */
import type { ArchiveErrorCode } from '../archive/errors';
import type { ArchiveMethod } from '../archive/methods';
import type { Exclusion } from '../archive/types';
import type { VectorFilter } from '../search/types';
import type { VectorErrorCode } from '../search/vector/errors';
import type { BuildProgress, PackedParts } from '../search/vector';
import type { HelperScan, ScanShare } from '../search/vector/scan-share';

export { ARCHIVE_METHODS, isArchiveMethod, type ArchiveMethod } from '../archive/methods';

export type EngineLog = (level: 'info' | 'warn' | 'error', message: string) => void;

/** The worker's `workerData`. */
export interface WorkerInit {
  archivePath: string;
  /** Int32 cancel flags, one per slot; the client sets `flags[slot] = 1` to cancel the request using it. */
  cancelFlags: SharedArrayBuffer;
  /** The host's compiled sqlite3.wasm, when ready: instantiated instead of compiled again. */
  wasmModule?: object;
  /** The index-build worker's script (tests wrap it); default: the one beside the engine worker's. */
  buildScript?: string;
}

/** Cancel slots (requests beyond this still work, cancelled by message only). */
export const CANCEL_SLOTS = 1024;

/** A request without a shared flag: it is cancelled by a `cancel` message only. */
export const NO_SLOT = -1;

export type WorkerRequest =
  /** `exclude`: conversations the call must not see (the archive's `excluding`); absent: none. */
  | { type: 'call'; id: number; slot: number; method: ArchiveMethod; args: unknown[]; exclude?: Exclusion }
  /** `share`: answer with what a helper thread needs to share the index's scans (VectorIndexInfo.share). */
  | ({ type: 'vector.open'; id: number; slot: number; model: string; share?: boolean } & VectorOpenOptions)
  /** `job`: the client scans beside the worker (scan-share.ts) and posts its findings as `vector.helped`. */
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
  /** The archive fingerprint `key` was made from: the build's vector coverage is kept while it holds. */
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
  /** When asked for: what a helper thread needs to share the index's scans. */
  share?: ScanShare;
}

export type WorkerResponse =
  | { type: 'ready'; path: string; schemaVersion: number }
  | { type: 'open-failed'; error: WireError }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; error: WireError }
  | { type: 'progress'; id: number; progress: unknown }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string };

/** An index-build worker's `workerData`: the archive and the one build it makes. */
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
