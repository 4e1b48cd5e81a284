import type { ExclusionMatch } from './privacy';
import type { Archive, ArchiveSummary, AsyncArchive, Exclusion } from '../archive/types';
import type { EmbedConfig, Embedder } from '../embed/types';
import type { VectorIndex } from '../search/types';
import type { CitationFormat, LogLevel, ServerContext } from './context';
import type { Disclosure } from './ledger';

export type RuntimeLog = (level: LogLevel, message: string) => void;

/** An open archive as the runtime holds it. `sync` is present for in-thread archives (the vector builder may scan it). */
export interface OpenedArchive {
  archive: AsyncArchive;
  sync?: Archive;
  /** The resolved database file (the archive's own `path`). */
  path: string;
  /** `PRAGMA user_version` at the open: what it claims, for the "newer than tested" notice (parts decide the rest). */
  schemaVersion: number;
  /**
   * Present when the archive lives elsewhere (a worker): loads or builds the vector index where the archive is,
   * so neither the scan nor the build blocks this thread. The default builder prefers it over `sync`.
   */
  vectorIndex?: (
    model: string,
    opts: {
      cacheDir?: string;
      key?: string;
      /** The archive fingerprint `key` was made from (the build's vector coverage is kept for receipts under it). */
      fingerprint?: string;
      name?: string;
      dim?: number;
      total?: number;
      signal?: AbortSignal;
      onProgress?: (p: { done: number; total?: number }) => void;
    },
  ) => Promise<VectorIndex>;
}

export type ArchiveOpener = (path: string) => Promise<OpenedArchive>;

export interface VectorBuildRequest {
  archive: OpenedArchive;
  model: string;
  dim: number;
  /** Number of stored vectors of `model` (from `embeddingModels()`). */
  count: number;
  /** Where a persistent index cache may live (never beside the archive); undefined = no persistence. */
  cacheDir?: string;
  signal: AbortSignal;
  log: RuntimeLog;
  /** Build progress (records consumed so far); lets callers say "index building: 43%" and estimate the rest. */
  onProgress?: (p: { done: number; total?: number }) => void;
}

export type VectorIndexBuilder = (req: VectorBuildRequest) => Promise<VectorIndex>;

export interface RuntimeOptions {
  /** The archive file or its data dir; '' = none selected (calls reject with `missingArchiveMessage()`). */
  archivePath: string;
  /** What calls answer while no archive is selected: where we looked and how to choose one. */
  missingArchiveMessage?: () => string;
  /**
   * Awaited before every archive or semantic call: lets the embedder hold calls while it is (re)configuring the
   * runtime (the extension resolves the archive path and reads secrets asynchronously). Must not reject.
   */
  beforeCall?: () => Promise<void>;
  embed: EmbedConfig;
  citation: CitationFormat;
  /** Redact secrets in what the MCP tools and resources send to the model (default true; see core/redact.ts). */
  redact?: boolean;
  /** Conversations hidden from the model (default: none). */
  privacy?: PrivacySettings;
  /** Bytes of compact `structuredContent` JSON a tool answer may take (see ServerContext.answerBudget; default 8192). */
  answerBudget?: number;
  /** Directory for the persistent vector-index cache (CLI: XDG cache dir, see `defaultCacheDir`). */
  cacheDir?: string;
  version: string;
  log?: RuntimeLog;
  /** How an archive is opened (default: the archive layer in this thread). The extension may pass a worker-backed one. */
  openArchive?: ArchiveOpener;
  /** How the vector index is built (default: the search layer's builder, else an in-memory exact index). */
  buildVectorIndex?: VectorIndexBuilder;
  /** How the query embedder is created (default: the OpenAI-compatible client). */
  createEmbedder?: (config: EmbedConfig) => Embedder;
  /**
   * Poll the archive files every this many ms and emit `archive-changed` events (for clients that need to
   * know without a tool call, e.g. the extension). Default: off; calls still detect changes themselves.
   */
  watchIntervalMs?: number;
  /** Load or build the vector index in the background as soon as the archive opens (default false). */
  prewarmSemantic?: boolean;
  /**
   * Count the archive's messages in the background as soon as it opens (default false): the per-conversation
   * counts (one scan of `messages`, kept while the file stays the same) are what nearly every first tool call reads
   * (search receipts, listings, get_conversation). With `prewarmSemantic`, only once the index load or build has
   * started, so the build thread never waits for the scan (it runs on the engine worker, where a cached index's
   * load may queue behind it).
   */
  prewarmCounts?: boolean;
  /**
   * After the archive changes, semantic calls keep using the current index while a new one builds in the
   * background, at most once per this many ms (default 2000).
   */
  indexRefreshMs?: number;
  /** Grace period before a replaced archive handle is closed, so in-flight calls finish (default 10 s). */
  closeGraceMs?: number;
  /** Receives what every tool call and resource read disclosed (becomes `ServerContext.disclose`). */
  disclose?: (entry: Disclosure) => void;
}

export type ArchiveOpenState =
  | { state: 'closed' }
  | { state: 'opening' }
  /** `notice`: what a person should know about the archive's schema (see compatibility.ts), when anything. */
  | { state: 'open'; path: string; schemaVersion: number; notice?: string }
  | { state: 'error'; error: string; code?: string };

export type SemanticStatus =
  | { state: 'disabled'; reason: string }
  | { state: 'unknown' }
  | { state: 'unavailable'; reason: string }
  /** `percent`: of the stored vectors read so far (0 until the builder reports progress). */
  | { state: 'building'; model: string; dim: number; count: number; percent?: number }
  | { state: 'ready'; model: string; dim: number; size: number }
  | { state: 'error'; reason: string };

export interface RuntimeStatus {
  archivePath: string;
  archive: ArchiveOpenState;
  /** Filled by `describe()` (or after it ran once for the current archive state). */
  summary?: ArchiveSummary;
  semantic: SemanticStatus;
  embedModel: string;
  version: string;
  /** Bumps whenever the archive is (re)opened or settings change; good for a server-definition version. */
  generation: number;
}

export type RuntimeEvent =
  | { kind: 'archive-opened'; path: string }
  | { kind: 'archive-error'; error: string }
  /** The archive files changed on disk (new rows, a checkpoint, or a replaced file). */
  | { kind: 'archive-changed'; replaced: boolean }
  | { kind: 'semantic'; status: SemanticStatus }
  | { kind: 'config' };

/** What the model may not see (applied to every model-facing surface, see core/privacy.ts). */
export interface PrivacySettings {
  /** Exact conversation names (any source) or `source:name` entries (see parseExclusions). */
  excludeConversations: string[];
}

export interface RuntimeSettings {
  archivePath: string;
  embed: EmbedConfig;
  citation: CitationFormat;
  /** Redact secrets in model-facing results (`msgbrowse.privacy.redact`, CLI `--no-redact`). */
  redact: boolean;
  privacy: PrivacySettings;
  /** ServerContext.answerBudget: what the client passes inline to its model. */
  answerBudget: number;
}

export interface Runtime {
  /**
   * What `createMcpServer` needs — the model-facing context: the archive and vector index without the conversations
   * excluded by the privacy settings. Getters read the current settings on every call.
   */
  readonly context: ServerContext;
  /** The person's own surfaces (palette, viewer, tree view, hovers): everything, excluded conversations included. */
  readonly personal: ServerContext;
  /** The current exclusion (parsed privacy settings), for the person's surfaces to mark hidden conversations. */
  exclusion(): Exclusion;
  /** Each exclusion entry with the conversations it hides (or the closest names when none): a typo is said. */
  exclusions(signal?: AbortSignal): Promise<ExclusionMatch[]>;
  /** Snapshot without I/O. */
  status(): RuntimeStatus;
  /** Opens the archive if needed and returns the status with a fresh summary (throws nothing). */
  describe(signal?: AbortSignal): Promise<RuntimeStatus>;
  /** Applies new settings (any subset) and reopens lazily; with no argument, forces a reopen. */
  reload(patch?: Partial<RuntimeSettings>): Promise<void>;
  onDidChange(listener: (e: RuntimeEvent) => void): () => void;
  /** Closes the archive and the index; later calls reject. */
  dispose(): Promise<void>;
}
