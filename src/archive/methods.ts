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
import { filterConversations, looseNameKey, resolveConversation } from './queries/conversations';
import { links } from './queries/links';
import {
  attachmentsForMessages,
  messageByHash,
  messageById,
  messagesByHashPrefix,
  messagesByIds,
  reactionsForHashes,
} from './queries/messages';
import { hiddenCoverage, modelCoverage, scopeCounts } from './queries/scope-counts';
import { searchKeyword } from './queries/search';
import { conversationSenders, distinctSenders, resolveSender } from './queries/senders';
import { messageIdsWithPrefix, senderNames } from './queries/completion';
import { dayMessages, firstMessageYear, journalDay, onThisDay } from './queries/journal';
import { contactFacts, contactsNamed, loadPeople, searchContacts } from './queries/people';
import { jsonList, num, str } from './queries/rows';
import type { SummaryCounts } from './queries/summary';
import { transcript } from './queries/transcript';
import type { SchemaInfo } from './schema';
import type {
  ArchiveSummary,
  AttachmentOptions,
  AttachmentRow,
  ConversationPage,
  ContactFactRow,
  ContactRow,
  ConversationPageOptions,
  ConversationRow,
  DayMessagesOptions,
  JournalDay,
  OnThisDayOptions,
  EmbeddingModelInfo,
  Exclusion,
  HitExtrasRows,
  KeywordHit,
  HitMessagesBundle,
  KeywordSearchBundle,
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
  /**
   * The conversations this call must not see (the caller's `excluding(…)`; empty for the person's own surfaces).
   * Every query answers as if they were not in the archive — see ARCHIVE_PRIVACY.
   */
  readonly exclude: Exclusion;
}

/**
 * Whether a conversation is one `exclude` names, in any source or in the given one: by its exact name, or as
 * conversation names are matched everywhere else, ignoring case, accents, emoji and extra spaces (a name typed from
 * memory hides what it means; hiding more is the safe side).
 */
export function isExcludedConversation(c: { name: string; source: string }, exclude: Exclusion | undefined): boolean {
  if (!exclude || exclude.length === 0) return false;
  const key = looseNameKey(c.name);
  return exclude.some(
    (x) =>
      (x.source === undefined || x.source === c.source) &&
      (x.name === c.name || (key !== '' && looseNameKey(x.name) === key)),
  );
}

/**
 * The conversations of this snapshot that `exclude` hides (memoised per open and exclusion). Every query below
 * that takes an exclusion answers as if these conversations were not in the archive: listings and lookups skip
 * them, searches, galleries and counts leave them out in SQL (so limits and counts cover only what may be shown).
 */
function hiddenOf(s: Snapshot): ConversationRow[] {
  const exclude = s.exclude;
  if (!exclude || exclude.length === 0) return [];
  return s.memo(`hidden:${JSON.stringify(exclude.map((x) => [x.name, x.source ?? null]))}`, () =>
    s.conversations().filter((c) => isExcludedConversation(c, exclude)),
  );
}
const hiddenIdsOf = (s: Snapshot): number[] => hiddenOf(s).map((c) => c.id);
const keptConversations = (s: Snapshot): ConversationRow[] => {
  const hidden = new Set(hiddenIdsOf(s));
  return hidden.size ? s.conversations().filter((c) => !hidden.has(c.id)) : s.conversations();
};

/** Embedding models and their counts without the vectors of hidden conversations (models left with none are gone). */
function modelsOf(s: Snapshot): EmbeddingModelInfo[] {
  const ids = hiddenIdsOf(s);
  const models = s.models().map((m) => ({ ...m }));
  if (!ids.length) return models;
  return models
    .map((m) => ({ ...m, count: m.count - hiddenCoverage(s.sql, s.schema, m.model, ids) }))
    .filter((m) => m.count > 0);
}

/** Where a snapshot memoises the vector coverage of `model` (Archive.primeModelCoverage fills the same entry). */
export function coverageMemoKey(model: string): string {
  return `coverage:${model}`;
}

/** Messages in a search scope and, for `model`, how many of them have a vector for it (index counts only). */
function countScope(s: Snapshot, scope: ScopeFilter, model?: string): ScopeCounts {
  return scopeCounts(
    s.sql,
    s.schema,
    scope,
    model,
    () => s.counts().messages,
    (m) => s.memo(coverageMemoKey(m), () => modelCoverage(s.sql, s.schema, m)),
    hiddenOf(s),
  );
}

/** Reactions (by hash) and attachments (by message id) of hits, hidden conversations left out. */
function extrasOf(s: Snapshot, hashes: string[], ids: number[]): HitExtrasRows {
  return {
    reactions: reactionsForHashes(s.sql, s.schema, hashes, hiddenIdsOf(s)),
    attachments: keepRows(s, attachmentsForMessages(s.sql, s.schema, ids)),
  };
}

/** name → query. Results are fresh objects the caller may keep or mutate (memoised rows are copied). */
export const ARCHIVE_QUERIES = {
  summary: (s: Snapshot): ArchiveSummary => {
    const hidden = hiddenIdsOf(s);
    const counts = hidden.length ? keptCounts(s, hidden) : s.counts();
    return {
      path: s.path,
      schemaVersion: s.schema.version,
      parts: {
        people: s.schema.contacts,
        facts: s.schema.facts,
        reactions: s.schema.reactions,
        embeddings: s.schema.embeddings,
        digests: s.schema.journalDigests,
      },
      ...counts,
      sources: { ...counts.sources },
      embeddingModels: modelsOf(s),
      fingerprint: fingerprint(s.identity()),
    };
  },
  listConversations: (s: Snapshot, filter?: { source?: string; nameContains?: string }): ConversationRow[] =>
    filterConversations(keptConversations(s), filter).map((c) => ({ ...c })),
  conversationById: (s: Snapshot, id: number): ConversationRow | undefined => {
    const c = keptConversations(s).find((x) => x.id === id);
    return c ? { ...c } : undefined;
  },
  resolveConversation: (s: Snapshot, name: string, source?: string): ResolveResult =>
    structuredClone(resolveConversation(keptConversations(s), name, source)),
  /**
   * A sender name resolved within a scope (conversation id / source): stored spelling, then case- and
   * diacritic-insensitive, "me" for the owner; otherwise what is there instead (see SenderResolveResult).
   */
  resolveSender: (s: Snapshot, name: string, scope: ScopeFilter = {}): SenderResolveResult => {
    // Every count (in scope, elsewhere, suggestions, who is there) leaves the hidden conversations out, so a sender
    // who wrote only there is no sender at all.
    const hidden = hiddenOf(s);
    const hiddenIds = new Set(hidden.map((c) => c.id));
    return resolveSender(
      s.memo('senders', () => distinctSenders(s.sql)),
      name,
      { conversationId: scope.conversationId, source: scope.source },
      (sender, sc) =>
        scopeCounts(
          s.sql,
          s.schema,
          { ...sc, sender },
          undefined,
          () => s.counts().messages,
          () => 0,
          hidden,
        ).messages,
      (id) => (hiddenIds.has(id) ? [] : conversationSenders(s.sql, id, 8)),
    );
  },
  /** Messages in a search scope and, for `model`, how many of them have a vector for it (index counts only). */
  scopeCounts: (s: Snapshot, scope: ScopeFilter, model?: string): ScopeCounts => countScope(s, scope, model),
  /** A hidden conversation has no messages (as an unknown id). */
  transcript: (s: Snapshot, opts: TranscriptOptions): TranscriptPage =>
    hiddenIdsOf(s).includes(opts.conversationId) ? { messages: [] } : transcript(s.sql, s.schema, opts),
  /** Everything one viewer page shows: the conversation, a page of its messages, their attachments and reactions. */
  conversationPage: (s: Snapshot, opts: ConversationPageOptions): ConversationPage => {
    const c = keptConversations(s).find((x) => x.id === opts.conversationId);
    return conversationPage(s.sql, s.schema, c ? { ...c } : undefined, opts, hiddenIdsOf(s));
  },
  searchKeyword: (s: Snapshot, opts: KeywordSearchOptions): KeywordHit[] =>
    searchKeyword(s.sql, s.schema, opts, hiddenIdsOf(s)),
  /**
   * The keyword half of search_messages in one snapshot, so one worker round trip: the hits, their reactions and
   * attachments (as hitExtras), and, given a `scope`, the receipt's counts of it (as scopeCounts). Three round trips
   * made the call over stdio 11–18% slower at 100k messages.
   */
  searchKeywordBundle: (
    s: Snapshot,
    opts: KeywordSearchOptions,
    scope?: ScopeFilter,
    model?: string,
  ): KeywordSearchBundle => {
    const hits = searchKeyword(s.sql, s.schema, opts, hiddenIdsOf(s));
    return {
      hits,
      extras: extrasOf(
        s,
        hits.map((h) => h.hash),
        [...new Set(hits.map((h) => h.id))],
      ),
      ...(scope ? { counts: countScope(s, scope, model) } : {}),
    };
  },
  /** Up to window messages before, the target, up to window after; undefined when the id is unknown. */
  context: (s: Snapshot, messageId: number, window: number): MessageRow[] | undefined =>
    context(s.sql, s.schema, messageId, window, hiddenIdsOf(s)),
  attachments: (s: Snapshot, opts: AttachmentOptions): { items: AttachmentRow[]; hasMore: boolean } =>
    attachments(s.sql, s.schema, opts, hiddenIdsOf(s)),
  links: (s: Snapshot, opts: LinkOptions): { items: LinkRow[]; hasMore: boolean } =>
    links(s.sql, s.schema, opts, hiddenIdsOf(s)),
  messageById: (s: Snapshot, id: number): MessageRow | undefined => keepRows(s, [messageById(s.sql, s.schema, id)])[0],
  messageByHash: (s: Snapshot, hash: string): MessageRow | undefined =>
    keepRows(s, [messageByHash(s.sql, s.schema, hash)])[0],
  /** Up to `limit` (≤ 10) messages whose hash starts with the hex `prefix`, ordered by hash. */
  messagesByHashPrefix: (s: Snapshot, prefix: string, limit: number): MessageRow[] =>
    messagesByHashPrefix(s.sql, s.schema, prefix, limit, hiddenIdsOf(s)),
  messagesByIds: (s: Snapshot, ids: number[]): MessageRow[] => keepRows(s, messagesByIds(s.sql, s.schema, ids)),
  /**
   * What semantic_search shows of its vector hits, in one snapshot, so one worker round trip: the messages (as
   * messagesByIds), their reactions and attachments (as hitExtras) and, given a `scope`, the receipt's counts of it
   * (as scopeCounts). Separately these were three round trips after the vector search.
   */
  hitMessagesBundle: (s: Snapshot, ids: number[], scope?: ScopeFilter, model?: string): HitMessagesBundle => {
    const messages = keepRows(s, messagesByIds(s.sql, s.schema, ids));
    return {
      messages,
      extras: extrasOf(
        s,
        messages.map((m) => m.hash),
        [...new Set(messages.map((m) => m.id))],
      ),
      ...(scope ? { counts: countScope(s, scope, model) } : {}),
    };
  },
  attachmentsForMessages: (s: Snapshot, ids: number[]): AttachmentRow[] =>
    keepRows(s, attachmentsForMessages(s.sql, s.schema, ids)),
  reactionsForHashes: (s: Snapshot, hashes: string[]): ReactionRow[] =>
    reactionsForHashes(s.sql, s.schema, hashes, hiddenIdsOf(s)),
  embeddingModels: (s: Snapshot): EmbeddingModelInfo[] => modelsOf(s),
  /** What every cited hit carries beside its text, in one snapshot (one worker round trip per result). */
  hitExtras: (s: Snapshot, hashes: string[], ids: number[]): HitExtrasRows => extrasOf(s, hashes, ids),
  /** A day's counts (from `messages`), its digest, and the nearest days with messages when it has none. */
  journalDay: (s: Snapshot, day: string, dayStartUnix: number): JournalDay =>
    journalDay(s.sql, s.schema, day, dayStartUnix, hiddenIdsOf(s)),
  /** A page of a day's counted messages in DayTranscript order. */
  dayMessages: (s: Snapshot, opts: DayMessagesOptions): { messages: MessageRow[]; hasMore: boolean } =>
    dayMessages(s.sql, s.schema, opts, hiddenIdsOf(s)),
  /** The year of the earliest message, undefined when there is none. */
  firstMessageYear: (s: Snapshot): number | undefined => firstMessageYear(s.sql, hiddenIdsOf(s)),
  onThisDay: (s: Snapshot, opts: OnThisDayOptions): { day: string; messages: MessageRow[] }[] =>
    onThisDay(s.sql, s.schema, opts, hiddenIdsOf(s)),
  /** Contacts matching a name or identifier (case and accents ignored), ranked; `total` counts every match. */
  searchContacts: (s: Snapshot, query: string, limit: number): { items: ContactRow[]; total: number } =>
    searchContacts(peopleOf(s), query, limit),
  contactById: (s: Snapshot, id: number): ContactRow | undefined => {
    const c = peopleOf(s).contacts.find((x) => x.id === id);
    return c ? structuredClone(c) : undefined;
  },
  /** Contacts whose display name equals `name`, case and accents ignored. */
  contactsNamed: (s: Snapshot, name: string): ContactRow[] => contactsNamed(peopleOf(s), name),
  contactFacts: (s: Snapshot, contactId: number): ContactFactRow[] =>
    contactFacts(s.sql, s.schema, contactId, hiddenOf(s)),
  /** Every sender with a message the caller may see ("No-Sender" system rows aside), for completions. */
  senderNames: (s: Snapshot): string[] =>
    s.memo(`sender-names:${hiddenIdsOf(s).join(',')}`, () => senderNames(s.sql, hiddenIdsOf(s))).slice(),
  /** Message ids starting with the typed digits (completions of msgbrowse://message/{id}). */
  messageIdsWithPrefix: (s: Snapshot, prefix: string, limit: number): { ids: number[]; total: number } =>
    messageIdsWithPrefix(s.sql, prefix, limit, hiddenIdsOf(s)),
  /**
   * Per conversation (those the caller may see): its message count and lowest and highest message id — what changes
   * when msgbrowse imports into it, re-imports it (new ids) or deletes it. One walk of idx_messages_conv_ts.
   */
  conversationSignatures: (s: Snapshot): { id: number; messages: number; minId: number; maxId: number }[] =>
    // Memoised per open (a change reopens): every session watching the archive shares one walk per change.
    s
      .memo(`signatures:${hiddenIdsOf(s).join(',')}`, () => {
        const hidden = hiddenIdsOf(s);
        return s.sql
          .all(
            `SELECT c.id AS id, COUNT(m.id) AS n, MIN(m.id) AS lo, MAX(m.id) AS hi FROM conversations c LEFT JOIN messages m ON m.conversation_id = c.id${
              hidden.length ? ' WHERE c.id NOT IN (SELECT value FROM json_each(?))' : ''
            } GROUP BY c.id ORDER BY c.id`,
            hidden.length ? [jsonList(hidden)] : [],
          )
          .map((r) => ({ id: num(r.id), messages: num(r.n), minId: num(r.lo), maxId: num(r.hi) }));
      })
      .map((r) => ({ ...r })),
  /** Ids of the messages that have an attachment / a link (for the semantic half's has_attachment / has_link). */
  messageIdsWith: (s: Snapshot, kind: 'attachment' | 'link'): number[] =>
    s
      .memo(`ids-with:${kind}:${hiddenIdsOf(s).join(',')}`, () => {
        const hidden = hiddenIdsOf(s);
        return s.sql
          .all(
            `SELECT DISTINCT x.message_id AS id FROM ${kind === 'attachment' ? 'attachments' : 'links'} x${
              hidden.length
                ? ' WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = x.message_id AND m.conversation_id IN (SELECT value FROM json_each(?)))'
                : ''
            } ORDER BY x.message_id`,
            hidden.length ? [jsonList(hidden)] : [],
          )
          .map((r) => num(r.id));
      })
      .slice(),
} satisfies Record<string, (s: Snapshot, ...args: never[]) => unknown>;

/** The people the caller may see (memoised per open and exclusion). */
function peopleOf(s: Snapshot): ReturnType<typeof loadPeople> {
  return s.memo(`people:${hiddenIdsOf(s).join(',')}`, () =>
    loadPeople(s.sql, s.schema, keptConversations(s), hiddenOf(s)),
  );
}

/** Rows of point lookups (no limit involved) without those of hidden conversations. */
function keepRows<T extends { conversationId: number }>(s: Snapshot, rows: readonly (T | undefined)[]): T[] {
  const hidden = new Set(hiddenIdsOf(s));
  return rows.filter((r): r is T => r !== undefined && !hidden.has(r.conversationId));
}

/** Summary counts of the conversations `exclude` leaves (first/last message found outside the hidden ones). */
function keptCounts(s: Snapshot, hidden: readonly number[]): SummaryCounts {
  const kept = keptConversations(s);
  const sources: Record<string, number> = {};
  let messages = 0;
  for (const c of [...kept].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0))) {
    sources[c.source] = (sources[c.source] ?? 0) + c.messageCount;
    messages += c.messageCount;
  }
  const edge = (dir: 'ASC' | 'DESC') =>
    str(
      s.sql.value(
        `SELECT ts FROM messages WHERE conversation_id NOT IN (SELECT value FROM json_each(?)) ORDER BY ts_unix ${dir}, id ${dir} LIMIT 1`,
        [jsonList(hidden)],
      ),
    );
  return { conversations: kept.length, messages, sources, firstTs: edge('ASC'), lastTs: edge('DESC') };
}

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
  return typeof name === 'string' && Object.hasOwn(ARCHIVE_QUERIES, name);
}

/**
 * How each query hides the conversations of `Snapshot.exclude` — a decision every query must make (a new entry in
 * ARCHIVE_QUERIES does not compile without one here). In every case the answer is exactly the one the archive would
 * give if those conversations (their messages, attachments, links, reactions and vectors) did not exist.
 *
 * - `listing`: computed from the conversation listing without the hidden conversations.
 * - `sql`: the hidden conversation ids are left out in the statement itself, so limits, `hasMore` and counts cover only
 *   what may be shown.
 * - `lookup`: a point lookup (no limit); a row of a hidden conversation is dropped, so it answers as an unknown id/hash.
 */
export const ARCHIVE_PRIVACY: Record<ArchiveMethod, 'listing' | 'sql' | 'lookup'> = {
  summary: 'listing',
  listConversations: 'listing',
  conversationById: 'listing',
  resolveConversation: 'listing',
  resolveSender: 'sql',
  scopeCounts: 'sql',
  transcript: 'listing',
  conversationPage: 'listing',
  searchKeyword: 'sql',
  searchKeywordBundle: 'sql',
  context: 'lookup',
  attachments: 'sql',
  links: 'sql',
  messageById: 'lookup',
  messageByHash: 'lookup',
  messagesByHashPrefix: 'sql',
  messagesByIds: 'lookup',
  // Its messages are point lookups (a hidden one answers as an unknown id); its counts are scopeCounts' (in SQL).
  hitMessagesBundle: 'lookup',
  attachmentsForMessages: 'lookup',
  reactionsForHashes: 'sql',
  embeddingModels: 'sql',
  hitExtras: 'sql',
  journalDay: 'sql',
  dayMessages: 'sql',
  firstMessageYear: 'sql',
  onThisDay: 'sql',
  searchContacts: 'listing',
  contactById: 'listing',
  contactsNamed: 'listing',
  contactFacts: 'sql',
  messageIdsWith: 'sql',
  senderNames: 'sql',
  conversationSignatures: 'sql',
  messageIdsWithPrefix: 'sql',
};
