/**
 * Row shapes and the query contract of the read-only archive layer.
 *
 * Everything here mirrors msgbrowse's store semantics (see README "Archive format"):
 * timestamps are the archive's own `ts` strings, `tsUnix` is wall-clock-as-UTC seconds,
 * ordering is always by (ts_unix, id).
 */

import type { ArchiveMethod, ArchiveQueryMethods } from './methods';

export type Source = 'signal' | 'imessage' | 'whatsapp' | (string & {});

export type AttachmentKind = 'image' | 'file' | 'video';
export const ATTACHMENT_KINDS: readonly AttachmentKind[] = ['image', 'file', 'video'];

export interface ConversationRow {
  id: number;
  name: string;
  source: string;
  messageCount: number;
  /** `ts` of the earliest message by (ts_unix, id); '' when empty. */
  firstTs: string;
  /** `ts` of the latest message by (ts_unix, id); '' when empty. */
  lastTs: string;
  lastUnix: number;
  images: number;
  /** Attachments of kind `file` (videos are counted separately). */
  files: number;
  videos: number;
  /** Distinct URLs linked in the conversation. */
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
  /** bm25 rank as returned by FTS5 (lower is better). */
  rank: number;
  hasAttachment: boolean;
  hasLink: boolean;
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
  /** The hash of the message carrying the attachment (stable across re-imports; citations carry it). */
  messageHash: string;
}

export interface LinkRow {
  url: string;
  domain: string;
  /** Occurrences of this URL within the filtered scope. */
  count: number;
  /** Earliest occurrence (ties: lowest message id). */
  messageId: number;
  /** The hash of that earliest message (stable across re-imports; citations carry it). */
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

/**
 * A conversation a caller must not see: `name` is an exact conversation name (msgbrowse's journal exclusion), in
 * any source, or only in `source` when given.
 */
export interface ConversationExclusion {
  name: string;
  source?: string;
}

/** The conversations a query leaves out; it then answers exactly as if they were not in the archive. */
export type Exclusion = readonly ConversationExclusion[];

/** Common message filters (all optional; absent means "no filter"). */
export interface MessageFilter {
  conversationId?: number;
  source?: string;
  sender?: string;
  /** Inclusive lower bound on ts_unix. */
  startUnix?: number;
  /** Inclusive upper bound on ts_unix. */
  endUnix?: number;
  /** true: only messages with an attachment; false: only messages without one. */
  hasAttachment?: boolean;
  /** true: only messages with a link; false: only messages without one. */
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
  /** Keyset: return messages strictly after this (ts_unix, id). */
  after?: TranscriptCursor;
  /** Keyset: return messages strictly before this (ts_unix, id); result still chronological. */
  before?: TranscriptCursor;
  /** Newest first: the page starts at the newest message (or just before `before`) and `next` continues older. */
  newestFirst?: boolean;
}

/** A day's counted messages: UTC day of ts_unix, non-system, non-blank (msgbrowse's journal rules). */
export interface JournalDayStats {
  messageCount: number;
  conversationCount: number;
  /** source → messages, keys in ascending order. */
  sourceCounts: Record<string, number>;
  /** Up to 5, the owner "Me" excluded, count descending then name ascending. */
  topSenders: { name: string; count: number }[];
}

/** One journal_digests row as stored. */
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
  /** undefined: no digest for the day, or the archive has no journal tables (see `digestsSupported`). */
  digest?: JournalDigestRow;
  digestsSupported: boolean;
  /** Whether a conversation the caller must not see has counted messages that day (its digest may speak of them). */
  touchesHidden: boolean;
  /** The nearest earlier / later days with counted messages (set when the day itself has none). */
  earlier?: string;
  later?: string;
}

export interface DayMessagesOptions {
  /** Unix seconds of the day's 00:00 UTC. */
  dayStartUnix: number;
  limit: number;
  /** Keyset in DayTranscript order: messages strictly after (conversation_id, ts_unix, id). */
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
  /** Ids of the contact's conversations (those the caller may see). */
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
  /** The cited message, found by its hash; undefined when it no longer exists. */
  message?: MessageRow;
}

export interface TranscriptPage {
  messages: MessageRow[];
  /** Present when more messages follow the last one returned (in the paging direction). */
  next?: TranscriptCursor;
}

/** Where a conversation page is: its end, around a message (the message included), or strictly before/after one. */
export type ConversationPageAt =
  | { kind: 'end' }
  | { kind: 'around'; messageId: number }
  | { kind: 'before'; messageId: number }
  | { kind: 'after'; messageId: number };

export interface ConversationPageOptions {
  conversationId: number;
  at: ConversationPageAt;
  /**
   * Page size. `end`, `before`, `after`: up to `limit` messages. `around`: up to h = max(1, floor(limit/2)) messages
   * before the anchor, then the anchor and up to limit - h messages after it.
   */
  limit: number;
}

/** One viewer page, read in one snapshot: the conversation, a chronological run of its messages and their extras. */
export interface ConversationPage {
  /** Undefined when the conversation is not in the archive (then nothing else was read). */
  conversation?: ConversationRow;
  /**
   * The message `at` names, wherever it is (undefined when unknown or `at` is `end`). When it belongs to another
   * conversation the page is empty. `around` an unknown message gives the conversation's end instead.
   */
  anchor?: MessageRow;
  /** Chronological, by (ts_unix, id). */
  messages: MessageRow[];
  /** Whether the conversation has messages before the first / after the last of `messages` (false on an empty page). */
  hasBefore: boolean;
  hasAfter: boolean;
  /** Attachments of `messages`, by message id then attachment id. */
  attachments: AttachmentRow[];
  /** Reactions on `messages` (by their hashes; none before schema v6), by hash then insertion. */
  reactions: ReactionRow[];
}

export interface AttachmentOptions {
  kinds: AttachmentKind[];
  conversationId?: number;
  source?: string;
  startUnix?: number;
  endUnix?: number;
  limit: number;
}

export interface LinkOptions {
  /** Already-normalised domain (lowercase, no `www.`); matches the domain and its subdomains. */
  domain?: string;
  conversationId?: number;
  source?: string;
  startUnix?: number;
  endUnix?: number;
  limit: number;
}

export interface EmbeddingModelInfo {
  model: string;
  count: number;
  dim: number;
}

/** The columns an embedding record takes from its message. */
export interface MessageColumns {
  messageId: number;
  conversationId: number;
  tsUnix: number;
  sender: string;
  source: string;
}

export interface EmbeddingRecord {
  /** `embeddings.rowid`: where the vector is read back from for exact rescoring (see Archive.embeddingVectors). */
  rowid: number;
  messageId: number;
  /**
   * `messages.hash`. The archive's iterator makes this string only when it is read (a build never reads it), so a
   * record is not a plain object: read the fields it needs, never spread or post it.
   */
  readonly hash: string;
  conversationId: number;
  tsUnix: number;
  /** `messages.sender` (lets the vector index filter by sender during its scan). */
  sender?: string;
  /** `messages.source` (lets the vector index filter by source during its scan). */
  source?: string;
  vec: Float32Array;
}

export type ResolveResult =
  | { kind: 'found'; conversation: ConversationRow }
  | { kind: 'ambiguous'; candidates: ConversationRow[] }
  | { kind: 'not_found'; suggestions: ConversationRow[] };

/** A search scope for counting and sender resolution (all optional; absent means "no bound"). */
export interface ScopeFilter {
  conversationId?: number;
  /** A source; counted as the set of its conversations. Ignored when conversationId is given. */
  source?: string;
  sender?: string;
  startUnix?: number;
  endUnix?: number;
  /** Only messages with (true) / without (false) an attachment. */
  hasAttachment?: boolean;
  /** Only messages with (true) / without (false) a link. */
  hasLink?: boolean;
}

export interface ScopeCounts {
  /** Messages in the scope. */
  messages: number;
  /** Of those, messages with a vector for `model` (present when a model was asked about). */
  withVectors?: number;
  model?: string;
}

/** Reactions (by message hash) and attachments (by message id) of a set of hits. */
export interface HitExtrasRows {
  reactions: ReactionRow[];
  attachments: AttachmentRow[];
}

/** The keyword half of a search in one snapshot: the hits, their extras and (when asked) the counts of the searched scope. */
export interface KeywordSearchBundle {
  hits: KeywordHit[];
  extras: HitExtrasRows;
  counts?: ScopeCounts;
}

/**
 * The messages of vector hits in one snapshot: the rows (input order, unknown and hidden ids left out), their extras
 * and (when asked) the counts of the searched scope.
 */
export interface HitMessagesBundle {
  messages: MessageRow[];
  extras: HitExtrasRows;
  counts?: ScopeCounts;
}

/** A sender name and its messages (in the scope asked about, or in the whole archive for `elsewhere`). */
export interface SenderMatch {
  name: string;
  messages: number;
}

export type SenderResolveResult =
  /** `via`: the stored spelling, a case/diacritic-folded match, or an owner synonym ("me", "myself", …) for `Me`. */
  | { kind: 'found'; sender: string; messages: number; via: 'exact' | 'folded' | 'owner' }
  /** Several stored spellings fold to the name and have messages in scope. */
  | { kind: 'ambiguous'; candidates: SenderMatch[] }
  /**
   * No such sender in scope. `elsewhere`: the same name's messages outside the scope; `suggestions`: close names
   * with messages in scope; `inScope`: who wrote in the scoped conversation (most messages first, at most 8).
   */
  | { kind: 'not_found'; suggestions: SenderMatch[]; elsewhere: SenderMatch[]; inScope?: SenderMatch[] };

/** msgbrowse's optional parts this archive has, found from its tables (a missing one answers only its own tools). */
export interface ArchiveParts {
  /** `contacts` and their identifiers (msgbrowse v2+): search_contacts, get_contact. */
  people: boolean;
  /** `contact_facts` (v4+): the facts of get_contact. */
  facts: boolean;
  /** `reactions` (v6+): the reactions on message items. */
  reactions: boolean;
  /** `embeddings` (v3+): semantic search. */
  embeddings: boolean;
  /** `journal_digests` (v11+): the digest of get_journal_day. */
  digests: boolean;
}

export interface ArchiveSummary {
  path: string;
  /** `PRAGMA user_version`: what the archive claims; what it can do is `parts`. */
  schemaVersion: number;
  parts: ArchiveParts;
  conversations: number;
  messages: number;
  sources: Record<string, number>;
  firstTs: string;
  lastTs: string;
  embeddingModels: EmbeddingModelInfo[];
  /** Identity of the archive state: changes when the file (or its -wal) changes. */
  fingerprint: string;
}

/**
 * The synchronous query surface of an open archive (declared once, in `methods.ts`). Every method opens no file
 * for writing, never blocks on locks, and retries transparently across a concurrent writer's checkpoints.
 */
export type ArchiveQueries = ArchiveQueryMethods & {
  /**
   * Streams every embedding of `model` that belongs to an existing message (orphans skipped). With `shareVectors`,
   * a record's `vec` is valid only until the iterator reads its next batch (2048 rows): for index builds.
   */
  embeddings(model: string, opts?: { shareVectors?: boolean }): IterableIterator<EmbeddingRecord>;
  /**
   * Reads the vectors of `model` stored at embedding `rowids` into `out` (row i at `i * dim`), in one snapshot.
   * Returns how many were found with that model and dimension; a lower count means the archive changed under
   * whoever kept the rowids (their rows of `out` are left as they were).
   */
  embeddingVectors(model: string, dim: number, rowids: ArrayLike<number>, out: Float32Array): number;
};

/** The query methods, answering as if the excluded conversations were not in the archive. */
export type ExcludingQueries = ArchiveQueryMethods;

export interface Archive extends ArchiveQueries {
  readonly path: string;
  /** The same queries, each answering as if `exclude`'s conversations were not in the archive (one snapshot per call). */
  excluding(exclude: Exclusion): ExcludingQueries;
  readonly schemaVersion: number;
  /**
   * Keeps the vector coverage of `model` (its stored vectors whose message exists: what `scopeCounts` reports for
   * the whole archive) that a vector index build has just counted, so the first search receipt does not count it
   * again (a probe per vector: 87 ms at 100k vectors, 0.6 s at 1M). Kept only when `fingerprint` is the files'
   * fingerprint now, i.e. the build read exactly these files, and only until they change; answers whether it was
   * kept. Only for whoever built the index (the engine worker, the in-thread builder): not a query, so neither on
   * AsyncArchive nor on `excluding` views.
   */
  primeModelCoverage(model: string, count: number, fingerprint: string): boolean;
  close(): void;
}

/**
 * The same surface, asynchronous: what the MCP and extension layers consume (in-thread or worker-backed).
 * Every method takes an optional trailing AbortSignal; a worker-backed implementation interrupts the running
 * SQLite statement when it fires (the in-thread adapter only checks it before starting).
 */
export type AsyncArchive = {
  [K in ArchiveMethod]: (
    ...args: [...Parameters<ArchiveQueryMethods[K]>, signal?: AbortSignal]
  ) => Promise<ReturnType<ArchiveQueryMethods[K]>>;
} & {
  readonly path: string;
  /**
   * The same surface answering as if `exclude`'s conversations were not in the archive: every method, in the one
   * snapshot of its call (see ARCHIVE_PRIVACY in methods.ts). An empty exclusion is this archive itself.
   */
  excluding(exclude: Exclusion): AsyncArchive;
  close(): Promise<void>;
};
