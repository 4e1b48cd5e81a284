/** Messages between the engine client and its worker: structured-clone safe; errors cross as plain WireErrors. */
import type { ArchiveErrorCode } from '../archive/errors';
import type { ArchiveMethod } from '../archive/methods';
import type { Exclusion } from '../archive/types';
import type { VectorFilter } from '../search/types';
import type { VectorErrorCode } from '../search/vector/errors';
import type { BuildProgress, PackedParts } from '../search/vector';
import type { HelperScan, ScanShare } from '../search/vector/scan-share';

export { ARCHIVE_METHODS, type ArchiveMethod } from '../archive/methods';

export type EngineLog = (level: 'info' | 'warn' | 'error', message: string) => void;

export interface WorkerInit {
  archivePath: string;
  /** Int32 flags, one per slot: the client sets a request's to 1 to cancel it. */
  cancelFlags: SharedArrayBuffer;
  /** The host's compiled sqlite3.wasm: instantiated instead of compiled again. */
  wasmModule?: object;
  buildScript?: string;
}

/** Requests beyond this many still work, cancelled by message only (NO_SLOT). */
export const CANCEL_SLOTS = 1024;
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

/** How the worker loads or builds a vector index; what is absent comes from the archive. */
export interface VectorOpenOptions {
  /** Absent: build in memory, no cache file. */
  cacheDir?: string;
  /** The embeddings' identity; default: archive path, model, dim, count and file fingerprint. */
  key?: string;
  /** The archive's name in the cache file name; default: its path. */
  name?: string;
  dim?: number;
  /** Expected records, for progress. */
  total?: number;
  /** The fingerprint `key` was made from: the build's vector coverage is kept while it holds. */
  fingerprint?: string;
}

export interface WireError {
  kind: 'archive' | 'vector' | 'abort' | 'error';
  message: string;
  code?: ArchiveErrorCode | VectorErrorCode;
  path?: string;
}

export interface VectorIndexInfo {
  handle: number;
  model: string;
  dim: number;
  size: number;
  share?: ScanShare;
}

export type WorkerResponse =
  | { type: 'ready'; path: string; schemaVersion: number }
  | { type: 'open-failed'; error: WireError }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; error: WireError }
  | { type: 'progress'; id: number; progress: unknown }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string };

/** An index-build worker's `workerData`: the one build it makes. */
export interface BuildWorkerInit {
  archivePath: string;
  /** One Int32, set to 1 to cancel. */
  cancelFlag: SharedArrayBuffer;
  wasmModule?: object;
  model: string;
  dim?: number;
  total?: number;
}

export type BuildWorkerMessage =
  | { type: 'progress'; progress: BuildProgress }
  | { type: 'log'; message: string }
  | { type: 'built'; parts: PackedParts }
  | { type: 'failed'; error: WireError };
