import type { AsyncArchive } from '../archive/types';
import type { Embedder } from '../embed/types';
import type { VectorIndex } from '../search/types';
import type { Disclosure } from './ledger';

/** How citation links are written: `<scheme>://<authority>/c/<conversation_id>/at/<message_id>`. */
export interface CitationFormat {
  /** The editor's URI scheme (`vscode`, `cursor`, …). */
  scheme: string;
  /** `<publisher>.<name>` of the extension. */
  authority: string;
}

/** Why the semantic half is not available (surfaced to callers, never hidden). */
export interface SemanticUnavailable {
  available: false;
  reason: string;
  model?: string;
  /** Set while the vector index is building (only when the caller asked not to wait for it). */
  building?: BuildProgressInfo;
  /** With `building`: so a caller that waits for the build can embed its query meanwhile. */
  embedder?: Embedder;
}

export interface BuildProgressInfo {
  /** Of the stored vectors read. */
  percent: number;
  /** Estimated from the pace so far; undefined until the build has reported progress. */
  etaMs?: number;
  /** Settles when this build ends, either way. */
  done: Promise<void>;
}

/** `wait` for an index still building (default true); with false it answers at once as unavailable, `building` set. */
export type SemanticOptions = { wait?: boolean };

export interface SemanticReady {
  available: true;
  embedder: Embedder;
  index: VectorIndex;
}

export type SemanticState = SemanticReady | SemanticUnavailable;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Everything a server instance needs; read per tool call, so new settings apply without rebuilding servers. */
export interface ServerContext {
  /** Rejects with an ArchiveError (clear message) when the archive cannot be opened. */
  archive(): Promise<AsyncArchive>;
  /** Built lazily; `signal` cancels index builds. */
  semantic(signal?: AbortSignal, opts?: SemanticOptions): Promise<SemanticState>;
  citation: CitationFormat;
  /** Whether secrets are redacted in what the model receives (core/redact.ts). Absent = on. */
  readonly redact?: boolean;
  /** Bytes of compact `structuredContent` JSON the client passes inline to its model (mcp/answer-budget.ts). */
  readonly answerBudget?: number;
  version: string;
  log?(level: LogLevel, message: string): void;
  /** What every tool call and resources/read sent to the model, for the disclosure ledger (core/ledger.ts). */
  disclose?(entry: Disclosure): void;
  /** What a listing or read shows may have changed (archive files, exclusions); absent when nothing watches. */
  onDidChange?(listener: () => void): () => void;
}
