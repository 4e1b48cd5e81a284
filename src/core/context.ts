import type { AsyncArchive } from '../archive/types';
import type { Embedder } from '../embed/types';
import type { VectorIndex } from '../search/types';
import type { Disclosure } from './ledger';

/** How citation links are written: `<scheme>://<authority>/c/<conversation_id>/at/<message_id>`. */
export interface CitationFormat {
  /** `vscode` by default; the extension injects `vscode.env.uriScheme`. */
  scheme: string;
  /** `<publisher>.<name>` of the extension, e.g. `msgbrowse.msgbrowse-vscode`. */
  authority: string;
}

/** Why the semantic half is not available (surfaced to callers, never hidden). */
export interface SemanticUnavailable {
  available: false;
  reason: string;
  /** The configured model, when there is one. */
  model?: string;
  /** Set while the vector index is building (only when the caller asked not to wait for it). */
  building?: BuildProgressInfo;
  /**
   * With `building`: the embedder the index will be searched with, so a caller that waits for the build can have
   * its query embedded meanwhile instead of after it.
   */
  embedder?: Embedder;
}

/** How far a vector index build is, and how long the rest should take (estimated from its pace so far). */
export interface BuildProgressInfo {
  /** 0–100, of the stored vectors read. */
  percent: number;
  /** Expected remaining time; undefined until the build has reported progress. */
  etaMs?: number;
  /** Settles when this build ends (either way). */
  done: Promise<void>;
}

export interface SemanticOptions {
  /**
   * Wait for a vector index that is still building (default true). With false, a build in progress answers at
   * once as unavailable, with `building` set and the reason "index building: N%".
   */
  wait?: boolean;
}

export interface SemanticReady {
  available: true;
  embedder: Embedder;
  index: VectorIndex;
}

export type SemanticState = SemanticReady | SemanticUnavailable;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Everything a server instance needs. Getters are called per tool call so a new archive or
 * new settings take effect without rebuilding servers.
 */
export interface ServerContext {
  /** The current archive; rejects with an ArchiveError (clear message) when it cannot be opened. */
  archive(): Promise<AsyncArchive>;
  /** The semantic backend for the configured model, built lazily; `signal` cancels index builds. */
  semantic(signal?: AbortSignal, opts?: SemanticOptions): Promise<SemanticState>;
  citation: CitationFormat;
  /**
   * Whether secrets (one-time codes, card numbers, IBANs, passwords) are redacted in what is sent to the model —
   * tool results and resources (`msgbrowse.privacy.redact`, CLI `--no-redact`). Absent = on. The person's own
   * surfaces (palette, viewer, hovers) never redact. See core/redact.ts.
   */
  readonly redact?: boolean;
  /**
   * How many bytes of compact `structuredContent` JSON a tool answer may take: what the client passes inline to its
   * model (VS Code: `github.copilot.chat.agent.largeToolResultsToDisk.thresholdBytes`; CLI `--max-result-bytes`). Absent = 8192.
   * Every tool fills its answer with whole items up to it and continues by cursor (mcp/answer-budget.ts).
   */
  readonly answerBudget?: number;
  version: string;
  log?(level: LogLevel, message: string): void;
  /**
   * Called by the MCP boundary after every tool call and resources/read (successful or failed) with what went to the
   * model: client, tool/resource, arguments and the messages returned (the disclosure ledger, `core/ledger.ts`).
   */
  disclose?(entry: Disclosure): void;
  /**
   * Subscribes to "what a listing or a read could show may have changed": the archive's files (an import, a
   * re-import, a WAL commit, a replaced file) or the settings (exclusions). Returns the unsubscribe function.
   * Absent when nothing watches (one-shot contexts).
   */
  onDidChange?(listener: () => void): () => void;
}
