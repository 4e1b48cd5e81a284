import type { ExclusionMatch } from './privacy';
import type { Archive, ArchiveSummary, AsyncArchive, Exclusion } from '../archive/types';
import type { EmbedConfig, Embedder } from '../embed/types';
import type { EngineClient } from '../engine/index';
import type { VectorIndex } from '../search/types';
import type { CitationFormat, LogLevel, ServerContext } from './context';
import type { Disclosure } from './ledger';

export type RuntimeLog = (level: LogLevel, message: string) => void;

/** An open archive as the runtime holds it. `sync` is present for in-thread archives (the vector builder may scan it). */
export interface OpenedArchive {
  archive: AsyncArchive;
  sync?: Archive;
  path: string;
  /** `PRAGMA user_version` at the open, for the "newer than tested" notice (parts decide the rest). */
  schemaVersion: number;
  /** Present when the archive lives in a worker: builds the vector index there, so nothing blocks this thread. */
  vectorIndex?: EngineClient['vectorIndex'];
}

export type ArchiveOpener = (path: string) => Promise<OpenedArchive>;

export interface VectorBuildRequest {
  archive: OpenedArchive;
  model: string;
  dim: number;
  /** Stored vectors of `model`. */
  count: number;
  /** Never beside the archive; undefined = no persistence. */
  cacheDir?: string;
  signal: AbortSignal;
  log: RuntimeLog;
  onProgress?: (p: { done: number; total?: number }) => void;
}

export type VectorIndexBuilder = (req: VectorBuildRequest) => Promise<VectorIndex>;

/** The settings a runtime starts with: redaction (on), exclusions (none) and the answer budget may be left out. */
export type RuntimeSettingsInit = Omit<RuntimeSettings, 'redact' | 'privacy' | 'answerBudget'> &
  Partial<Pick<RuntimeSettings, 'redact' | 'privacy' | 'answerBudget'>>;

export interface RuntimeOptions extends RuntimeSettingsInit {
  /** What calls answer while no archive is selected: where we looked and how to choose one. */
  missingArchiveMessage?: () => string;
  /** Awaited before every archive or semantic call, to hold calls while the embedder reconfigures. Must not reject. */
  beforeCall?: () => Promise<void>;
  cacheDir?: string;
  version: string;
  log?: RuntimeLog;
  openArchive?: ArchiveOpener;
  buildVectorIndex?: VectorIndexBuilder;
  createEmbedder?: (config: EmbedConfig) => Embedder;
  /** Poll the archive files and emit `archive-changed` (default off; calls still detect changes themselves). */
  watchIntervalMs?: number;
  /** Load or build the vector index as soon as the archive opens. */
  prewarmSemantic?: boolean;
  /** Count the messages as soon as the archive opens: nearly every first tool call reads those counts. */
  prewarmCounts?: boolean;
  /** How often, at most, a changed archive rebuilds the index in the background (the current one serves meanwhile). */
  indexRefreshMs?: number;
  /** Before a replaced archive handle is closed, so in-flight calls finish. */
  closeGraceMs?: number;
  disclose?: (entry: Disclosure) => void;
}

export type SemanticStatus =
  | { state: 'disabled'; reason: string }
  | { state: 'unknown' }
  | { state: 'unavailable'; reason: string }
  | { state: 'building'; model: string; dim: number; count: number; percent?: number }
  | { state: 'ready'; model: string; dim: number; size: number }
  | { state: 'error'; reason: string };

export interface RuntimeStatus {
  archivePath: string;
  archive:
    | { state: 'closed' }
    | { state: 'opening' }
    /** `notice`: what a person should know about the archive's schema (see compatibility.ts). */
    | { state: 'open'; path: string; schemaVersion: number; notice?: string }
    | { state: 'error'; error: string; code?: string };
  /** Filled by `describe()`. */
  summary?: ArchiveSummary;
  semantic: SemanticStatus;
  embedModel: string;
  version: string;
  /** Bumps whenever the archive is (re)opened or settings change. */
  generation: number;
}

export type RuntimeEvent =
  | { kind: 'archive-opened'; path: string }
  | { kind: 'archive-error'; error: string }
  | { kind: 'archive-changed'; replaced: boolean }
  | { kind: 'semantic'; status: SemanticStatus }
  | { kind: 'config' };

/** What a person configures (the extension's settings, the CLI's flags), handed whole to `Runtime.reload`. */
export interface RuntimeSettings {
  /** The archive file or its data dir; '' = none selected (calls reject with `missingArchiveMessage()`). */
  archivePath: string;
  embed: EmbedConfig;
  citation: CitationFormat;
  /** Secrets in model-facing results (core/redact.ts). */
  redact: boolean;
  /** Conversations hidden from the model: exact names (any source) or `source:name` entries. */
  privacy: { excludeConversations: string[] };
  answerBudget: number;
}

export interface Runtime {
  /** The model-facing context `createMcpServer` takes: excluded conversations do not exist there. */
  readonly context: ServerContext;
  /** The person's own surfaces (palette, viewer, tree view, hovers): everything, excluded conversations included. */
  readonly personal: ServerContext;
  /** For the person's surfaces to mark hidden conversations. */
  exclusion(): Exclusion;
  /** Each exclusion entry with the conversations it hides (or the closest names when none): a typo is said. */
  exclusions(signal?: AbortSignal): Promise<ExclusionMatch[]>;
  /** Without I/O. */
  status(): RuntimeStatus;
  /** Opens the archive if needed; the status with a fresh summary (throws nothing). */
  describe(signal?: AbortSignal): Promise<RuntimeStatus>;
  readonly settings: RuntimeSettings;
  /** Another archive, model or link format reopens (lazily), the rest reaches the next call. Whether it reopens. */
  reload(settings: RuntimeSettings): Promise<boolean>;
  onDidChange(listener: (e: RuntimeEvent) => void): () => void;
  /** Later calls reject. */
  dispose(): Promise<void>;
}
