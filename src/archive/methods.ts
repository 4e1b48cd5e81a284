/**
 * The archive's query methods, declared once; each runs inside one read snapshot. The archive types, WasmArchive, the
 * in-thread adapter and the engine worker's protocol all derive from this table: a new query is one entry here.
 */
import type { Sql } from './connection';
import { fingerprint, type ArchiveIdentity } from './file-identity';
import { attachments } from './queries/media';
import { context } from './queries/message-context';
import { citationView, citedMessage } from './queries/citation-view';
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
import { hiddenCoverage, scopeCounts } from './queries/scope-counts';
import { searchKeyword } from './queries/search';
import { conversationSenders, distinctSenders, resolveSender } from './queries/senders';
import { messageIdsWithPrefix, senderNames } from './queries/completion';
import { dayMessages, firstMessageYear, journalDay, onThisDay } from './queries/journal';
import { contactFacts, contactsNamed, loadPeople, searchContacts } from './queries/people';
import { jsonList, num } from './queries/rows';
import { type SummaryCounts, summaryCounts } from './queries/summary';
import { transcript } from './queries/transcript';
import type { SchemaInfo } from './schema';
import type {
  ArchiveSummary,
  AttachmentOptions,
  CitationViewRequest,
  ContextView,
  ContextViewRequest,
  ConversationPageOptions,
  ConversationRow,
  DayMessagesOptions,
  OnThisDayOptions,
  EmbeddingModelInfo,
  Exclusion,
  HitExtrasRows,
  HitMessagesBundle,
  KeywordSearchBundle,
  KeywordSearchOptions,
  LinkOptions,
  MessageRow,
  ScopeCounts,
  ScopeFilter,
  TranscriptOptions,
  TranscriptPage,
} from './types';

/** What a query sees inside one snapshot; the aggregates are memoised per connection (re)open. */
export interface Snapshot {
  readonly sql: Sql;
  readonly schema: SchemaInfo;
  readonly path: string;
  conversations(): ConversationRow[];
  models(): EmbeddingModelInfo[];
  counts(): SummaryCounts;
  identity(): ArchiveIdentity;
  /** `compute()` once per connection (re)open: for what changes only with the files. */
  memo<T>(key: string, compute: () => T): T;
  /** The conversations this call must not see (see ARCHIVE_PRIVACY); empty for the person's own surfaces. */
  readonly exclude: Exclusion;
}

/**
 * Whether `exclude` names a conversation: exactly, or as names are matched everywhere else, ignoring case, accents,
 * emoji and spaces (a name typed from memory hides what it means; hiding more is the safe side).
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

/** The conversations `exclude` hides, memoised per open and exclusion. */
function hiddenOf(s: Snapshot): ConversationRow[] {
  const exclude = s.exclude;
  if (!exclude || exclude.length === 0) return [];
  return s.memo(`hidden:${JSON.stringify(exclude.map((x) => [x.name, x.source ?? null]))}`, () =>
    s.conversations().filter((c) => isExcludedConversation(c, exclude)),
  );
}
const hiddenIdsOf = (s: Snapshot): number[] => hiddenOf(s).map((c) => c.id);
/** A memo key for what depends on the exclusion. */
const keyOf = (s: Snapshot, name: string): string => `${name}:${hiddenIdsOf(s).join(',')}`;
const keptConversations = (s: Snapshot): ConversationRow[] => {
  const hidden = new Set(hiddenIdsOf(s));
  return hidden.size ? s.conversations().filter((c) => !hidden.has(c.id)) : s.conversations();
};
const keptById = (s: Snapshot, id: number): ConversationRow | undefined => {
  const c = keptConversations(s).find((x) => x.id === id);
  return c ? { ...c } : undefined;
};

/** Without the vectors of hidden conversations; a model left with none is gone. */
function modelsOf(s: Snapshot): EmbeddingModelInfo[] {
  const ids = hiddenIdsOf(s);
  const models = s.models().map((m) => ({ ...m }));
  if (!ids.length) return models;
  return models
    .map((m) => ({ ...m, count: m.count - hiddenCoverage(s.sql, s.schema, m.model, ids) }))
    .filter((m) => m.count > 0);
}

const countScope = (s: Snapshot, scope: ScopeFilter, model?: string): ScopeCounts =>
  scopeCounts(s, scope, model, hiddenOf(s));

function extrasOf(s: Snapshot, hashes: string[], ids: number[]): HitExtrasRows {
  return {
    reactions: reactionsForHashes(s.sql, s.schema, hashes, hiddenIdsOf(s)),
    attachments: keepRows(s, attachmentsForMessages(s.sql, s.schema, ids)),
  };
}

/** The window around `cited` with its extras, in the caller's snapshot. */
function windowOf(s: Snapshot, cited: MessageRow | undefined, window: number) {
  if (!cited) return {};
  const rows = context(s.sql, s.schema, cited.id, window, hiddenIdsOf(s)) ?? [cited];
  return {
    rows,
    extras: extrasOf(
      s,
      [...new Set(rows.map((r) => r.hash))],
      rows.map((r) => r.id),
    ),
  };
}

/** Rows with their extras and, given a scope, its counts: a search's answer in one snapshot (one round trip). */
function bundleOf<T extends { id: number; hash: string }>(s: Snapshot, rows: T[], scope?: ScopeFilter, model?: string) {
  const hashes = rows.map((r) => r.hash);
  const ids = [...new Set(rows.map((r) => r.id))];
  return { extras: extrasOf(s, hashes, ids), ...(scope ? { counts: countScope(s, scope, model) } : {}) };
}

/** name → query. Results are fresh objects the caller may keep or mutate (memoised rows are copied). */
export const ARCHIVE_QUERIES = {
  summary: (s: Snapshot): ArchiveSummary => {
    const hidden = hiddenIdsOf(s);
    const counts = hidden.length ? summaryCounts(s.sql, keptConversations(s), hidden) : s.counts();
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
  conversationById: (s: Snapshot, id: number) => keptById(s, id),
  resolveConversation: (s: Snapshot, name: string, source?: string) =>
    structuredClone(resolveConversation(keptConversations(s), name, source)),
  resolveSender: (s: Snapshot, name: string, scope: ScopeFilter = {}) => {
    // Every count (in scope, elsewhere, suggestions, who is there) leaves the hidden conversations out, so a sender
    // who wrote only there is no sender at all.
    const hiddenIds = new Set(hiddenIdsOf(s));
    return resolveSender(
      s.memo('senders', () => distinctSenders(s.sql)),
      name,
      { conversationId: scope.conversationId, source: scope.source },
      (sender, sc) => countScope(s, { ...sc, sender }).messages,
      (id) => (hiddenIds.has(id) ? [] : conversationSenders(s.sql, id, 8)),
    );
  },
  scopeCounts: (s: Snapshot, scope: ScopeFilter, model?: string) => countScope(s, scope, model),
  transcript: (s: Snapshot, opts: TranscriptOptions): TranscriptPage =>
    hiddenIdsOf(s).includes(opts.conversationId) ? { messages: [] } : transcript(s.sql, s.schema, opts),
  conversationPage: (s: Snapshot, opts: ConversationPageOptions) =>
    conversationPage(s.sql, s.schema, keptById(s, opts.conversationId), opts, hiddenIdsOf(s)),
  citationView: (s: Snapshot, req: CitationViewRequest) =>
    citationView(s.sql, s.schema, (id) => keptById(s, id), req, hiddenIdsOf(s)),
  searchKeyword: (s: Snapshot, opts: KeywordSearchOptions) => searchKeyword(s.sql, s.schema, opts, hiddenIdsOf(s)),
  /** The keyword half of search_messages with the hits' extras and the receipt's counts. */
  searchKeywordBundle: (
    s: Snapshot,
    opts: KeywordSearchOptions,
    scope?: ScopeFilter,
    model?: string,
  ): KeywordSearchBundle => {
    const hits = searchKeyword(s.sql, s.schema, opts, hiddenIdsOf(s));
    return { hits, ...bundleOf(s, hits, scope, model) };
  },
  context: (s: Snapshot, messageId: number, window: number) =>
    context(s.sql, s.schema, messageId, window, hiddenIdsOf(s)),
  contextView: (s: Snapshot, req: ContextViewRequest): ContextView => {
    const hash = req.hash?.toLowerCase();
    if (req.messageId === undefined) {
      const cited = hash ? keepRows(s, [messageByHash(s.sql, s.schema, hash)])[0] : undefined;
      return { byHash: cited ? [cited] : [], ...windowOf(s, cited, req.window) };
    }
    const { atId, byHash, cited } = citedMessage(s.sql, s.schema, req.messageId, hash, hiddenIdsOf(s));
    return { ...(atId ? { atId } : {}), byHash, ...windowOf(s, cited, req.window) };
  },
  attachments: (s: Snapshot, opts: AttachmentOptions) => attachments(s.sql, s.schema, opts, hiddenIdsOf(s)),
  links: (s: Snapshot, opts: LinkOptions) => links(s.sql, s.schema, opts, hiddenIdsOf(s)),
  messageById: (s: Snapshot, id: number): MessageRow | undefined => keepRows(s, [messageById(s.sql, s.schema, id)])[0],
  messageByHash: (s: Snapshot, hash: string): MessageRow | undefined =>
    keepRows(s, [messageByHash(s.sql, s.schema, hash)])[0],
  messagesByHashPrefix: (s: Snapshot, prefix: string, limit: number) =>
    messagesByHashPrefix(s.sql, s.schema, prefix, limit, hiddenIdsOf(s)),
  /** What semantic_search shows of its vector hits: their messages, extras and the receipt's counts. */
  hitMessagesBundle: (s: Snapshot, ids: number[], scope?: ScopeFilter, model?: string): HitMessagesBundle => {
    const messages = keepRows(s, messagesByIds(s.sql, s.schema, ids));
    return { messages, ...bundleOf(s, messages, scope, model) };
  },
  embeddingModels: (s: Snapshot) => modelsOf(s),
  hitExtras: (s: Snapshot, hashes: string[], ids: number[]) => extrasOf(s, hashes, ids),
  journalDay: (s: Snapshot, day: string, dayStartUnix: number) =>
    journalDay(s.sql, s.schema, day, dayStartUnix, hiddenIdsOf(s)),
  dayMessages: (s: Snapshot, opts: DayMessagesOptions) => dayMessages(s.sql, s.schema, opts, hiddenIdsOf(s)),
  firstMessageYear: (s: Snapshot) => firstMessageYear(s.sql, hiddenIdsOf(s)),
  onThisDay: (s: Snapshot, opts: OnThisDayOptions) => onThisDay(s.sql, s.schema, opts, hiddenIdsOf(s)),
  searchContacts: (s: Snapshot, query: string, limit: number) => searchContacts(peopleOf(s), query, limit),
  contactById: (s: Snapshot, id: number) => {
    const c = peopleOf(s).contacts.find((x) => x.id === id);
    return c ? structuredClone(c) : undefined;
  },
  contactsNamed: (s: Snapshot, name: string) => contactsNamed(peopleOf(s), name),
  contactFacts: (s: Snapshot, contactId: number) => contactFacts(s.sql, s.schema, contactId, hiddenOf(s)),
  senderNames: (s: Snapshot) => s.memo(keyOf(s, 'sender-names'), () => senderNames(s.sql, hiddenIdsOf(s))).slice(),
  messageIdsWithPrefix: (s: Snapshot, prefix: string, limit: number) =>
    messageIdsWithPrefix(s.sql, prefix, limit, hiddenIdsOf(s)),
  /**
   * Per conversation: its message count and lowest and highest id, what changes when msgbrowse imports into it,
   * re-imports or deletes it. Memoised, so every session watching the archive shares one walk per change.
   */
  conversationSignatures: (s: Snapshot): { id: number; messages: number; minId: number; maxId: number }[] =>
    s
      .memo(keyOf(s, 'signatures'), () =>
        allKept(
          s,
          (where) =>
            `SELECT c.id AS id, COUNT(m.id) AS n, MIN(m.id) AS lo, MAX(m.id) AS hi FROM conversations c LEFT JOIN messages m ON m.conversation_id = c.id${where} GROUP BY c.id ORDER BY c.id`,
          ' WHERE c.id NOT IN (SELECT value FROM json_each(?))',
        ).map((r) => ({ id: num(r.id), messages: num(r.n), minId: num(r.lo), maxId: num(r.hi) })),
      )
      .map((r) => ({ ...r })),
  /** For the semantic half's has_attachment / has_link. */
  messageIdsWith: (s: Snapshot, kind: 'attachment' | 'link'): number[] =>
    s
      .memo(keyOf(s, `ids-with:${kind}`), () =>
        allKept(
          s,
          (where) =>
            `SELECT DISTINCT x.message_id AS id FROM ${kind === 'attachment' ? 'attachments' : 'links'} x${where} ORDER BY x.message_id`,
          ' WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = x.message_id AND m.conversation_id IN (SELECT value FROM json_each(?)))',
        ).map((r) => num(r.id)),
      )
      .slice(),
} satisfies Record<string, (s: Snapshot, ...args: never[]) => unknown>;

function peopleOf(s: Snapshot): ReturnType<typeof loadPeople> {
  return s.memo(keyOf(s, 'people'), () => loadPeople(s.sql, s.schema, keptConversations(s), hiddenOf(s)));
}

/** The rows of `query(where)`, `where` leaving the hidden conversations (a JSON list bound to its `?`) out, if any. */
function allKept(s: Snapshot, query: (where: string) => string, where: string) {
  const hidden = hiddenIdsOf(s);
  return hidden.length ? s.sql.all(query(where), [jsonList(hidden)]) : s.sql.all(query(''), []);
}

/** Point lookups (no limit involved) drop the rows of hidden conversations. */
function keepRows<T extends { conversationId: number }>(s: Snapshot, rows: readonly (T | undefined)[]): T[] {
  const hidden = new Set(hiddenIdsOf(s));
  return rows.filter((r): r is T => r !== undefined && !hidden.has(r.conversationId));
}

type QueryTable = typeof ARCHIVE_QUERIES;
type Tail<T extends unknown[]> = T extends [unknown, ...infer R] ? R : never;

export type ArchiveMethod = keyof QueryTable;

/** Each query's table entry without the snapshot. */
export type ArchiveQueryMethods = {
  [K in ArchiveMethod]: (...args: Tail<Parameters<QueryTable[K]>>) => ReturnType<QueryTable[K]>;
};

export const ARCHIVE_METHODS: readonly ArchiveMethod[] = Object.freeze(Object.keys(ARCHIVE_QUERIES) as ArchiveMethod[]);

/** A worker serves only a query whose privacy was decided. */
export function isArchiveMethod(name: unknown): name is ArchiveMethod {
  return typeof name === 'string' && Object.hasOwn(ARCHIVE_PRIVACY, name);
}

/**
 * How each query hides the conversations of `Snapshot.exclude`, a decision a new query cannot compile without; each
 * answers exactly as if they (and their messages, attachments, links, reactions and vectors) did not exist.
 * - `listing`: computed from the conversation listing without them;
 * - `sql`: left out in the statement, so limits, `hasMore` and counts cover only what may be shown;
 * - `lookup`: a point lookup drops their rows, answering as for an unknown id or hash.
 */
const ARCHIVE_PRIVACY: Record<ArchiveMethod, 'listing' | 'sql' | 'lookup'> = {
  summary: 'listing',
  listConversations: 'listing',
  conversationById: 'listing',
  resolveConversation: 'listing',
  resolveSender: 'sql',
  scopeCounts: 'sql',
  transcript: 'listing',
  conversationPage: 'listing',
  // Point lookups drop hidden rows; the hash prefix and the day leave them out in SQL; the page is conversationPage's.
  citationView: 'sql',
  searchKeyword: 'sql',
  searchKeywordBundle: 'sql',
  context: 'lookup',
  // Point lookups drop hidden rows; the hash prefix and the window leave them out in SQL.
  contextView: 'sql',
  attachments: 'sql',
  links: 'sql',
  messageById: 'lookup',
  messageByHash: 'lookup',
  messagesByHashPrefix: 'sql',
  // Its messages are point lookups (a hidden one answers as an unknown id); its counts are scopeCounts' (in SQL).
  hitMessagesBundle: 'lookup',
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
