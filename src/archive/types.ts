/**
 * Row shapes and the query contract of the archive, in msgbrowse's store semantics (README "Archive format"): `ts` is
 * the archive's own string, `tsUnix` wall-clock-as-UTC seconds, ordering always by (ts_unix, id).
 */

import type { ArchiveMethod, ArchiveQueryMethods } from './methods';
import type { SummaryCounts } from './queries/summary';

export type AttachmentKind = 'image' | 'file' | 'video';
export const ATTACHMENT_KINDS: readonly AttachmentKind[] = ['image', 'file', 'video'];

export interface ConversationRow {
  id: number;
  name: string;
  source: string;
  messageCount: number;
  /** '' when the conversation is empty (as `lastTs`). */
  firstTs: string;
  lastTs: string;
  lastUnix: number;
  images: number;
  /** Attachments of kind `file` (videos are counted apart). */
  files: number;
  videos: number;
  /** Distinct URLs. */
  links: number;
}

export interface MessageRow {
  id: number;
  hash: string;
  conversationId: number;
  conversation: string;
  source: string;
  sender: string;
  ts: string;
  tsUnix: number;
  body: string;
  isSystem: boolean;
  seq: number;
}

export interface KeywordHit extends Omit<MessageRow, 'body' | 'seq'> {
  /** FTS5 snippet with U+0002 / U+0003 around matches (msgbrowse's markers). */
  snippet: string;
  /** FTS5's bm25: lower is better. */
  rank: number;
  /** The whole body: redaction finds secrets in it that the snippet's cut shows only in part (core/redact.ts). */
  body: string;
}

export interface AttachmentRow {
  id: number;
  messageId: number;
  conversationId: number;
  conversation: string;
  source: string;
  kind: AttachmentKind | string;
  relPath: string;
  originalName: string;
  ts: string;
  tsUnix: number;
  messageHash: string;
}

export interface LinkRow {
  url: string;
  domain: string;
  /** Occurrences in the filtered scope. */
  count: number;
  /** The earliest occurrence (ties: lowest id). */
  messageId: number;
  messageHash: string;
  conversationId: number;
  conversation: string;
  source: string;
  ts: string;
  tsUnix: number;
}

export interface ReactionRow {
  messageHash: string;
  emoji: string;
  actor: string;
}

/** A conversation a caller must not see, by name (msgbrowse's journal exclusion), in any source or only in `source`. */
export interface ConversationExclusion {
  name: string;
  source?: string;
}

/** The conversations a query leaves out; it then answers exactly as if they were not in the archive. */
export type Exclusion = readonly ConversationExclusion[];

/** Message filters; an absent one does not filter. Bounds are inclusive; `false` keeps only messages without one. */
export interface MessageFilter {
  conversationId?: number;
  source?: string;
  sender?: string;
  startUnix?: number;
  endUnix?: number;
  hasAttachment?: boolean;
  hasLink?: boolean;
}

export interface KeywordSearchOptions extends MessageFilter {
  query: string;
  limit: number;
}

export interface TranscriptCursor {
  tsUnix: number;
  id: number;
}

export interface TranscriptOptions {
  conversationId: number;
  startUnix?: number;
  endUnix?: number;
  limit: number;
  /** Keysets, exclusive; a page is chronological either way. */
  after?: TranscriptCursor;
  before?: TranscriptCursor;
  /** The page starts at the newest message (or just before `before`) and `next` continues older. */
  newestFirst?: boolean;
}

/** A day's counted messages: UTC day of ts_unix, non-system, non-blank (msgbrowse's journal rules). */
export interface JournalDayStats {
  messageCount: number;
  conversationCount: number;
  /** Keys in ascending order. */
  sourceCounts: Record<string, number>;
  /** Up to 5, the owner "Me" excluded, count descending then name ascending. */
  topSenders: { name: string; count: number }[];
}

export interface JournalDigestRow {
  body: string;
  structured: string;
  mood: string;
  model: string;
  /** The day's count when the digest was written; 0 = unknown (and always 0 before schema v15). */
  messageCount: number;
}

export interface JournalDay extends JournalDayStats {
  day: string;
  /** Absent also when the archive has no journal tables (`digestsSupported`). */
  digest?: JournalDigestRow;
  digestsSupported: boolean;
  /** A hidden conversation has counted messages that day: its digest may speak of them. */
  touchesHidden: boolean;
  /** The nearest days with counted messages, set when the day itself has none. */
  earlier?: string;
  later?: string;
}

export interface DayMessagesOptions {
  /** The day's 00:00 UTC. */
  dayStartUnix: number;
  limit: number;
  /** Keyset in DayTranscript order, exclusive. */
  after?: { conversationId: number; tsUnix: number; id: number };
}

export interface OnThisDayOptions {
  /** The days searched, newest first: `YYYY-MM-DD` and its 00:00 UTC in Unix seconds. */
  days: { day: string; startUnix: number }[];
  perDay: number;
  limit: number;
}

export interface ContactRow {
  id: number;
  name: string;
  identifiers: { source: string; identifier: string }[];
  /** Those the caller may see. */
  conversationIds: number[];
  factCount: number;
}

export interface ContactFactRow {
  id: number;
  fact: string;
  category: string;
  sourceTs: string;
  sourceTsUnix: number;
  sourceMessageHash: string;
  /** Found by its hash; absent when it no longer exists. */
  message?: MessageRow;
}

export interface TranscriptPage {
  messages: MessageRow[];
  /** Present when more messages follow in the paging direction. */
  next?: TranscriptCursor;
}

/** A conversation's end, around a message (included), or strictly before/after one. */
export type ConversationPageAt =
  | { kind: 'end' }
  | { kind: 'around'; messageId: number }
  | { kind: 'before'; messageId: number }
  | { kind: 'after'; messageId: number };

export interface ConversationPageOptions {
  conversationId: number;
  at: ConversationPageAt;
  /** Page size; `around`: up to h = max(1, floor(limit/2)) before the anchor, then it and up to limit - h after. */
  limit: number;
}

/** One viewer page, read in one snapshot. */
export interface ConversationPage {
  /** Absent when the conversation is not in the archive (then nothing else was read). */
  conversation?: ConversationRow;
  /**
   * The message `at` names, wherever it is; in another conversation the page is empty. `around` an unknown message
   * gives the conversation's end instead.
   */
  anchor?: MessageRow;
  messages: MessageRow[];
  /** Whether the conversation goes on past the page (false on an empty page). */
  hasBefore: boolean;
  hasAfter: boolean;
  /** By message id then attachment id. */
  attachments: AttachmentRow[];
  /** By hash then insertion. */
  reactions: ReactionRow[];
}

export interface CitationViewRequest {
  messageId: number;
  /** A prefix of the cited hash; absent: the id alone, unchecked. */
  hash?: string;
  /** A viewer's own conversation; default: the cited message's. */
  conversationId?: number;
  limit: number;
}

/**
 * What opening a citation shows, read in one snapshot. The cited message is the row at the id when it holds the hash
 * (or no hash is given), else the one row the hash names.
 */
export interface CitationView {
  atId?: MessageRow;
  /** Up to 2 messages whose hash starts with the cited one; read only when `atId` does not hold it. */
  byHash: MessageRow[];
  /** Around the cited message when it is in the paged conversation, else its end. */
  page?: ConversationPage;
  /** The journal day of the page's anchor. */
  day?: JournalDay;
}

/** get_context's target: a message id (anchored by a hash or a prefix of it), or a full hash alone. */
export interface ContextViewRequest {
  messageId?: number;
  hash?: string;
  window: number;
}

/** get_context's read in one snapshot: how the target resolved, the window around it and that window's extras. */
export interface ContextView {
  atId?: MessageRow;
  /**
   * By id: up to 2 messages whose hash starts with the given one, read only when `atId` does not hold it. By hash
   * alone: the message with that full hash, if any.
   */
  byHash: MessageRow[];
  /** The window (target included), chronological; absent when no message is cited. */
  rows?: MessageRow[];
  extras?: HitExtrasRows;
}

type GalleryOptions = Pick<MessageFilter, 'conversationId' | 'source' | 'startUnix' | 'endUnix'> & { limit: number };

export interface AttachmentOptions extends GalleryOptions {
  kinds: AttachmentKind[];
}

export interface LinkOptions extends GalleryOptions {
  /** Already-normalised domain (lowercase, no `www.`); matches the domain and its subdomains. */
  domain?: string;
}

export interface EmbeddingModelInfo {
  model: string;
  count: number;
  dim: number;
}

export interface EmbeddingRecord {
  /** Where exact rescoring reads the vector back (Archive.embeddingVectors). */
  rowid: number;
  messageId: number;
  /** Made only when read (a build never reads it): read the fields needed, never spread or post a record. */
  readonly hash: string;
  conversationId: number;
  tsUnix: number;
  /** Sender and source let the vector index filter during its scan. */
  sender?: string;
  source?: string;
  vec: Float32Array;
}

export type ResolveResult =
  | { kind: 'found'; conversation: ConversationRow }
  | { kind: 'ambiguous'; candidates: ConversationRow[] }
  | { kind: 'not_found'; suggestions: ConversationRow[] };

/** A search scope for counting and sender resolution; `source` is ignored when conversationId is given. */
export type ScopeFilter = MessageFilter;

export interface ScopeCounts {
  messages: number;
  /** Of those, messages with a vector for `model`, when one was asked about. */
  withVectors?: number;
  model?: string;
}

export interface HitExtrasRows {
  reactions: ReactionRow[];
  attachments: AttachmentRow[];
}

export interface KeywordSearchBundle {
  hits: KeywordHit[];
  extras: HitExtrasRows;
  counts?: ScopeCounts;
}

export interface HitMessagesBundle {
  /** Input order, unknown and hidden ids left out. */
  messages: MessageRow[];
  extras: HitExtrasRows;
  counts?: ScopeCounts;
}

export interface SenderMatch {
  name: string;
  messages: number;
}

export type SenderResolveResult =
  /** `via`: the stored spelling, a case/diacritic-folded match, or an owner synonym ("me", "myself", …) for `Me`. */
  | { kind: 'found'; sender: string; messages: number; via: 'exact' | 'folded' | 'owner' }
  | { kind: 'ambiguous'; candidates: SenderMatch[] }
  /**
   * No such sender in scope. `elsewhere`: the same name's messages outside the scope; `suggestions`: close names
   * with messages in scope; `inScope`: who wrote in the scoped conversation (most messages first, at most 8).
   */
  | { kind: 'not_found'; suggestions: SenderMatch[]; elsewhere: SenderMatch[]; inScope?: SenderMatch[] };

/**
 * msgbrowse's optional tables this archive has (a missing one answers only its own tools): `contacts` (v2+),
 * `contact_facts` (v4+), `reactions` (v6+), `embeddings` (v3+), `journal_digests` (v11+).
 */
export interface ArchiveParts {
  people: boolean;
  facts: boolean;
  reactions: boolean;
  embeddings: boolean;
  digests: boolean;
}

export interface ArchiveSummary extends SummaryCounts {
  path: string;
  /** `PRAGMA user_version`: what the archive claims; what it can do is `parts`. */
  schemaVersion: number;
  parts: ArchiveParts;
  embeddingModels: EmbeddingModelInfo[];
  /** Changes when the file or its -wal changes. */
  fingerprint: string;
}

/** The synchronous query surface (declared in `methods.ts`); it retries across a writer's checkpoints, never locks. */
export type ArchiveQueries = ArchiveQueryMethods & {
  /** Embeddings of `model` whose message exists; `shareVectors` (index builds): `vec` lives until the next batch. */
  embeddings(model: string, opts?: { shareVectors?: boolean }): IterableIterator<EmbeddingRecord>;
  /**
   * Reads the vectors at embedding `rowids` into `out` (row i at `i * dim`), in one snapshot, and returns how many
   * were found: fewer means the archive changed under whoever kept the rowids.
   */
  embeddingVectors(model: string, dim: number, rowids: ArrayLike<number>, out: Float32Array): number;
};

export interface Archive extends ArchiveQueries {
  readonly path: string;
  /** The query methods, answering as if the excluded conversations were not in the archive. */
  excluding(exclude: Exclusion): ArchiveQueryMethods;
  readonly schemaVersion: number;
  /**
   * Keeps the vector coverage of `model` an index build just counted, so the first search receipt need not count it
   * again; only when `fingerprint` is the files' now, and until they change. For whoever built the index, so not a
   * query (neither on AsyncArchive nor on `excluding` views).
   */
  primeModelCoverage(model: string, count: number, fingerprint: string): boolean;
  close(): void;
}

/** The same surface, async: a trailing AbortSignal interrupts a worker's statement (in-thread: checked before it). */
export type AsyncArchive = {
  [K in ArchiveMethod]: (
    ...args: [...Parameters<ArchiveQueryMethods[K]>, signal?: AbortSignal]
  ) => Promise<ReturnType<ArchiveQueryMethods[K]>>;
} & {
  readonly path: string;
  /** An empty exclusion is this archive itself (see ARCHIVE_PRIVACY in methods.ts). */
  excluding(exclude: Exclusion): AsyncArchive;
  close(): Promise<void>;
};
