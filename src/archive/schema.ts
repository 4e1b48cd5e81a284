/**
 * Which msgbrowse schema features an archive has. Detected from the file itself (user_version and
 * the real columns/tables), so v1..v16 archives all work:
 * - pre-v2: no `source` columns (everything is 'signal');
 * - pre-v3: no `embeddings`; pre-v6: no `reactions`; pre-v2: no `contacts`; pre-v4: no `contact_facts`;
 * - pre-v11: no `journal_digests`; pre-v15: digests without `message_count`;
 * - pre-v7/v8: attachments/links lack `conversation_id`/`ts_unix` (joined through `messages`).
 */
import type { Sql } from './connection';

export const MAX_SCHEMA_VERSION = 16;

export interface SchemaInfo {
  version: number;
  conversationSource: boolean;
  messageSource: boolean;
  attachmentConversationId: boolean;
  attachmentTsUnix: boolean;
  linkConversationId: boolean;
  linkTsUnix: boolean;
  /**
   * The link gallery can group links by URL in `idx_links_gallery(url, …)` and step through `idx_links_domain` (v8+):
   * links carry their own conversation and time, `url`, `domain` and `ts_unix` are NOT NULL, `id` is the INTEGER
   * PRIMARY KEY, and `links` declares no collation (queries/links.ts).
   */
  linkGallery: boolean;
  embeddings: boolean;
  reactions: boolean;
  /** v2+: `contacts` and `contact_identifiers`. */
  contacts: boolean;
  /** v4+: `contact_facts`. */
  facts: boolean;
  /** v11+: `journal_digests`. */
  journalDigests: boolean;
  /** v15+: `journal_digests.message_count` (the day's count when the digest was written). */
  digestMessageCount: boolean;
}

export const REQUIRED_TABLES = ['conversations', 'messages', 'messages_fts', 'attachments', 'links'] as const;

export function tableNames(sql: Sql): Set<string> {
  const rows = sql.all("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
  return new Set(rows.map((r) => String(r.name)));
}

interface ColumnInfo {
  type: string;
  notNull: boolean;
  /** Position in the primary key (1-based), 0 when not part of it. */
  pk: number;
}

/** A table's columns by name (pragma_table_info is a table-valued function: one cached statement for every table). */
function columns(sql: Sql, table: string): Map<string, ColumnInfo> {
  const rows = sql.all('SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(?)', [table]);
  return new Map(rows.map((r) => [String(r.name), { type: String(r.type), notNull: Number(r.nn) === 1, pk: Number(r.pk) }]));
}

/** See SchemaInfo.linkGallery: what msgbrowse's v8+ schema declares; a hand-made archive may differ. */
function linkGallery(sql: Sql, link: Map<string, ColumnInfo>): boolean {
  if (!link.has('conversation_id') || !link.has('ts_unix')) return false;
  if (!['url', 'domain', 'ts_unix'].every((c) => link.get(c)?.notNull)) return false;
  // `id` is the rowid (INTEGER PRIMARY KEY, the only key column): first occurrences are joined back by it.
  const keys = [...link].filter(([, c]) => c.pk > 0);
  if (keys.length !== 1 || keys[0][0] !== 'id' || keys[0][1].type.toUpperCase() !== 'INTEGER') return false;
  const leads = (index: string, column: string) => sql.value('SELECT name FROM pragma_index_info(?) WHERE seqno = 0', [index]) === column;
  if (!leads('idx_links_gallery', 'url') || !leads('idx_links_domain', 'domain')) return false;
  return !/\bcollate\b/i.test(String(sql.value("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'links'") ?? ''));
}

export function detectSchema(sql: Sql): SchemaInfo {
  const version = Number(sql.value('PRAGMA user_version') ?? 0);
  const tables = tableNames(sql);
  const conv = columns(sql, 'conversations');
  const msg = columns(sql, 'messages');
  const att = columns(sql, 'attachments');
  const link = columns(sql, 'links');
  return {
    version,
    conversationSource: conv.has('source'),
    messageSource: msg.has('source'),
    attachmentConversationId: att.has('conversation_id'),
    attachmentTsUnix: att.has('ts_unix'),
    linkConversationId: link.has('conversation_id'),
    linkTsUnix: link.has('ts_unix'),
    linkGallery: linkGallery(sql, link),
    embeddings: tables.has('embeddings'),
    reactions: tables.has('reactions'),
    contacts: tables.has('contacts') && tables.has('contact_identifiers'),
    facts: tables.has('contact_facts'),
    journalDigests: tables.has('journal_digests'),
    digestMessageCount: tables.has('journal_digests') && columns(sql, 'journal_digests').has('message_count'),
  };
}

/** SQL expressions that paper over the schema differences. Aliases: c conversations, m messages, a attachments, l links. */
export function exprs(s: SchemaInfo): {
  convSource: string;
  msgSource: string;
  attConv: string;
  attTs: string;
  linkConv: string;
  linkTs: string;
} {
  return {
    convSource: s.conversationSource ? 'c.source' : "'signal'",
    msgSource: s.messageSource ? 'm.source' : "'signal'",
    attConv: s.attachmentConversationId ? 'a.conversation_id' : 'm.conversation_id',
    attTs: s.attachmentTsUnix ? 'a.ts_unix' : 'm.ts_unix',
    linkConv: s.linkConversationId ? 'l.conversation_id' : 'm.conversation_id',
    linkTs: s.linkTsUnix ? 'l.ts_unix' : 'm.ts_unix',
  };
}
