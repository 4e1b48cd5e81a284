/**
 * The archive's query methods, declared once. Each entry runs inside one read snapshot (ArchiveConnection.run) with
 * the current connection's schema features and per-open memo. Everything else derives from this table: the
 * `ArchiveQueries` / `AsyncArchive` types, WasmArchive's methods, the in-thread async adapter and the engine
 * worker's protocol and client.
 *
 * Adding a query: write it in `queries/`, add one entry here.
 */
import type { Sql } from './connection';
import { fingerprint, type ArchiveIdentity } from './file-identity';
import { attachments } from './queries/media';
import { context } from './queries/message-context';
import { conversationPage } from './queries/conversation-page';
import { filterConversations, resolveConversation } from './queries/conversations';
import { links } from './queries/links';
import { attachmentsForMessages, messageByHash, messageById, messagesByHashPrefix, messagesByIds, reactionsForHashes } from './queries/messages';
import { modelCoverage, scopeCounts } from './queries/scope-counts';
import { searchKeyword } from './queries/search';
import { conversationSenders, distinctSenders, resolveSender } from './queries/senders';
import type { SummaryCounts } from './queries/summary';
import { transcript } from './queries/transcript';
import type { SchemaInfo } from './schema';
import type {
  ArchiveSummary,
  AttachmentOptions,
  AttachmentRow,
  ConversationPage,
  ConversationPageOptions,
  ConversationRow,
  EmbeddingModelInfo,
  KeywordHit,
  KeywordSearchOptions,
  LinkOptions,
  LinkRow,
  MessageRow,
  ReactionRow,
  ResolveResult,
  ScopeCounts,
  ScopeFilter,
  SenderResolveResult,
  TranscriptOptions,
  TranscriptPage,
} from './types';

/** What a query sees inside one snapshot. The aggregates are computed once per connection (re)open. */
export interface Snapshot {
  readonly sql: Sql;
  readonly schema: SchemaInfo;
  /** The resolved database file. */
  readonly path: string;
  /** Every conversation (memoised per open). */
  conversations(): ConversationRow[];
  /** Embedding models and their counts (memoised per open). */
  models(): EmbeddingModelInfo[];
  /** Summary counts (memoised per open). */
  counts(): SummaryCounts;
  /** The on-disk identity of the files this snapshot reads. */
  identity(): ArchiveIdentity;
  /** `compute()` once per connection (re)open, under `key` (for aggregates that only change with the files). */
  memo<T>(key: string, compute: () => T): T;
}

/** name → query. Results are fresh objects the caller may keep or mutate (memoised rows are copied). */
export const ARCHIVE_QUERIES = {
  summary: (s: Snapshot): ArchiveSummary => {
    const counts = s.counts();
    return {
      path: s.path,
      schemaVersion: s.schema.version,
      ...counts,
      sources: { ...counts.sources },
      embeddingModels: s.models().map((m) => ({ ...m })),
      fingerprint: fingerprint(s.identity()),
    };
  },
  listConversations: (s: Snapshot, filter?: { source?: string; nameContains?: string }): ConversationRow[] =>
    filterConversations(s.conversations(), filter).map((c) => ({ ...c })),
  conversationById: (s: Snapshot, id: number): ConversationRow | undefined => {
    const c = s.conversations().find((x) => x.id === id);
    return c ? { ...c } : undefined;
  },
  resolveConversation: (s: Snapshot, name: string, source?: string): ResolveResult =>
    structuredClone(resolveConversation(s.conversations(), name, source)),
  /**
   * A sender name resolved within a scope (conversation id / source): stored spelling, then case- and
   * diacritic-insensitive, "me" for the owner; otherwise what is there instead (see SenderResolveResult).
   */
  resolveSender: (s: Snapshot, name: string, scope: ScopeFilter = {}): SenderResolveResult =>
    resolveSender(
      s.memo('senders', () => distinctSenders(s.sql)),
      name,
      { conversationId: scope.conversationId, source: scope.source },
      (sender, sc) => scopeCounts(s.sql, s.schema, { ...sc, sender }, undefined, () => s.counts().messages, () => 0).messages,
      (id) => conversationSenders(s.sql, id, 8),
    ),
  /** Messages in a search scope and, for `model`, how many of them have a vector for it (index counts only). */
  scopeCounts: (s: Snapshot, scope: ScopeFilter, model?: string): ScopeCounts =>
    scopeCounts(s.sql, s.schema, scope, model, () => s.counts().messages, (m) => s.memo(`coverage:${m}`, () => modelCoverage(s.sql, s.schema, m))),
  transcript: (s: Snapshot, opts: TranscriptOptions): TranscriptPage => transcript(s.sql, s.schema, opts),
  /** Everything one viewer page shows: the conversation, a page of its messages, their attachments and reactions. */
  conversationPage: (s: Snapshot, opts: ConversationPageOptions): ConversationPage => {
    const c = s.conversations().find((x) => x.id === opts.conversationId);
    return conversationPage(s.sql, s.schema, c ? { ...c } : undefined, opts);
  },
  searchKeyword: (s: Snapshot, opts: KeywordSearchOptions): KeywordHit[] => searchKeyword(s.sql, s.schema, opts),
  /** Up to window messages before, the target, up to window after; undefined when the id is unknown. */
  context: (s: Snapshot, messageId: number, window: number): MessageRow[] | undefined =>
    context(s.sql, s.schema, messageId, window),
  attachments: (s: Snapshot, opts: AttachmentOptions): { items: AttachmentRow[]; hasMore: boolean } =>
    attachments(s.sql, s.schema, opts),
  links: (s: Snapshot, opts: LinkOptions): { items: LinkRow[]; hasMore: boolean } => links(s.sql, s.schema, opts),
  messageById: (s: Snapshot, id: number): MessageRow | undefined => messageById(s.sql, s.schema, id),
  messageByHash: (s: Snapshot, hash: string): MessageRow | undefined => messageByHash(s.sql, s.schema, hash),
  /** Up to `limit` (≤ 10) messages whose hash starts with the hex `prefix`, ordered by hash. */
  messagesByHashPrefix: (s: Snapshot, prefix: string, limit: number): MessageRow[] => messagesByHashPrefix(s.sql, s.schema, prefix, limit),
  messagesByIds: (s: Snapshot, ids: number[]): MessageRow[] => messagesByIds(s.sql, s.schema, ids),
  attachmentsForMessages: (s: Snapshot, ids: number[]): AttachmentRow[] => attachmentsForMessages(s.sql, s.schema, ids),
  reactionsForHashes: (s: Snapshot, hashes: string[]): ReactionRow[] => reactionsForHashes(s.sql, s.schema, hashes),
  embeddingModels: (s: Snapshot): EmbeddingModelInfo[] => s.models().map((m) => ({ ...m })),
} satisfies Record<string, (s: Snapshot, ...args: never[]) => unknown>;

type QueryTable = typeof ARCHIVE_QUERIES;
type Tail<T extends unknown[]> = T extends [unknown, ...infer R] ? R : never;

/** The name of an archive query method. */
export type ArchiveMethod = keyof QueryTable;

/** The synchronous signature of each query (its table entry without the snapshot). */
export type ArchiveQueryMethods = {
  [K in ArchiveMethod]: (...args: Tail<Parameters<QueryTable[K]>>) => ReturnType<QueryTable[K]>;
};

/** Every query method, in declaration order. */
export const ARCHIVE_METHODS: readonly ArchiveMethod[] = Object.freeze(Object.keys(ARCHIVE_QUERIES) as ArchiveMethod[]);

export function isArchiveMethod(name: unknown): name is ArchiveMethod {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(ARCHIVE_QUERIES, name);
}
