/** What an archive can do, from its own tables and columns (msgbrowse only ever adds them), never `user_version`. */
import type { Sql } from './connection';
import { ArchiveError } from './errors';
import { SENTIMENT_TABLES } from './sentiment';

/** A newer archive is a notice, not an error. */
export const TESTED_SCHEMA_VERSION = 20;

export interface SchemaInfo {
  version: number;
  conversationSource: boolean;
  messageSource: boolean;
  attachmentConversationId: boolean;
  attachmentTsUnix: boolean;
  linkConversationId: boolean;
  linkTsUnix: boolean;
  /** v8+: the gallery indexes and columns queries/links.ts groups and steps through (see linkGallery below). */
  linkGallery: boolean;
  embeddings: boolean;
  reactions: boolean;
  /** v2+: `contacts` and `contact_identifiers`, and `conversations.contact_id` and `.source` linking them. */
  contacts: boolean;
  /** v4+: `contact_facts`. */
  facts: boolean;
  /** v11+: `journal_digests`. */
  journalDigests: boolean;
  /** `.structured` and `.mood`: v11 was amended in place to add them. */
  digestStructured: boolean;
  /** v15+: `journal_digests.message_count`. */
  digestMessageCount: boolean;
  /** v17+: the scores with their opt-out table; read only through `sentiment.ts`. */
  sentiment: boolean;
}

export type Affinity = 'INTEGER' | 'TEXT' | 'REAL' | 'BLOB';
export type Columns = Readonly<Record<string, Affinity>>;

/** What every tool reads (in msgbrowse since v1). */
const REQUIRED: Readonly<Record<string, Columns>> = {
  conversations: { id: 'INTEGER', name: 'TEXT' },
  messages: {
    id: 'INTEGER',
    hash: 'TEXT',
    conversation_id: 'INTEGER',
    ts: 'TEXT',
    ts_unix: 'INTEGER',
    sender: 'TEXT',
    body: 'TEXT',
    is_system: 'INTEGER',
    seq: 'INTEGER',
  },
  attachments: { id: 'INTEGER', message_id: 'INTEGER', kind: 'TEXT', rel_path: 'TEXT', original_name: 'TEXT' },
  links: { id: 'INTEGER', message_id: 'INTEGER', url: 'TEXT', domain: 'TEXT' },
};

/** A part whose tables or columns are missing (or of another type) is absent, never an error. */
const OPTIONAL = {
  contacts: {
    contacts: { id: 'INTEGER', display_name: 'TEXT' },
    contact_identifiers: { contact_id: 'INTEGER', source: 'TEXT', identifier: 'TEXT' },
  },
  facts: {
    contact_facts: {
      id: 'INTEGER',
      contact_id: 'INTEGER',
      fact: 'TEXT',
      category: 'TEXT',
      source: 'TEXT',
      source_message_hash: 'TEXT',
      source_ts: 'TEXT',
      source_ts_unix: 'INTEGER',
    },
  },
  reactions: {
    reactions: { id: 'INTEGER', conversation_id: 'INTEGER', message_hash: 'TEXT', emoji: 'TEXT', actor: 'TEXT' },
  },
  embeddings: { embeddings: { message_hash: 'TEXT', model: 'TEXT', dim: 'INTEGER', vec: 'BLOB' } },
  journalDigests: { journal_digests: { day: 'TEXT', body: 'TEXT', model: 'TEXT' } },
  sentiment: SENTIMENT_TABLES,
} satisfies Record<string, Record<string, Columns>>;

interface ColumnInfo {
  type: string;
  notNull: boolean;
  /** 1-based position in the primary key, 0 outside it. */
  pk: number;
}

/** pragma_table_info as a table-valued function: one cached statement for every table. */
function columns(sql: Sql, table: string): Map<string, ColumnInfo> {
  const rows = sql.all('SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(?)', [table]);
  return new Map(
    rows.map((r) => [String(r.name), { type: String(r.type), notNull: Number(r.nn) === 1, pk: Number(r.pk) }]),
  );
}

/** SQLite's column affinity of a declared type (https://sqlite.org/datatype3.html §3.1). */
function affinity(declared: string): Affinity | 'NUMERIC' {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'INTEGER';
  if (/CHAR|CLOB|TEXT/.test(t)) return 'TEXT';
  if (t === '' || t.includes('BLOB')) return 'BLOB';
  if (/REAL|FLOA|DOUB/.test(t)) return 'REAL';
  return 'NUMERIC';
}

/** Whether values written as `want` read back unchanged from a column declared `declared`. */
function holds(want: Affinity, declared: string): boolean {
  const a = affinity(declared);
  if (a === 'BLOB' || want === 'BLOB') return true; // no affinity keeps every value; no affinity converts a BLOB
  if (want === 'TEXT') return a === 'TEXT'; // a numeric column would turn "007" into 7
  return a !== 'TEXT'; // a TEXT column would store numbers as text, which then compare as text
}

/** What is wrong with `table` for reading `want` from it; `since` says who writes it, for whoever reads a refusal. */
function columnProblems(sql: Sql, table: string, want: Columns, since = ''): string[] {
  const have = columns(sql, table);
  const note = (verb: string) => (since ? ` (${since} ${verb})` : '');
  if (have.size === 0) return [`the table ${table} is missing${note('have it')}`];
  return Object.entries(want).flatMap(([name, type]) => {
    const c = have.get(name);
    if (!c) return [`${table}.${name} is missing${note('have it')}`];
    return holds(type, c.type) ? [] : [`${table}.${name} is declared ${c.type}${note(`declare it ${type}`)}`];
  });
}

const hasAll = (sql: Sql, part: Record<string, Columns>): boolean =>
  Object.entries(part).every(([table, want]) => columnProblems(sql, table, want).length === 0);

/** Each required table or column that is missing or of another type, named with what msgbrowse writes. */
function schemaProblems(sql: Sql): string[] {
  const since = `msgbrowse v1–v${TESTED_SCHEMA_VERSION}`;
  const problems = Object.entries(REQUIRED).flatMap(([table, want]) => columnProblems(sql, table, want, since));
  const fts = sql.value("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'messages_fts'");
  if (fts === undefined || fts === null)
    problems.push(`the full-text index messages_fts is missing (${since} have it)`);
  else if (!/\busing\s+fts5\b/i.test(String(fts)) || !columns(sql, 'messages_fts').has('body')) {
    problems.push(`messages_fts is not an FTS5 index of body (${since} create it as fts5(body, content='messages'))`);
  }
  return problems;
}

/** Checked at every (re)open: msgbrowse (or a person) may change the file under a running server. */
export function readableSchema(sql: Sql, file: string): SchemaInfo {
  const rows = sql.all("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
  const tables = new Set(rows.map((r) => String(r.name)));
  if (!tables.has('conversations') || !tables.has('messages')) {
    const missing = ['conversations', 'messages', 'messages_fts'].filter((t) => !tables.has(t));
    throw new ArchiveError(
      'not_msgbrowse',
      `${file} is a SQLite database but not a msgbrowse archive (missing table${missing.length > 1 ? 's' : ''} ${missing.join(', ')}). Point to the msgbrowse.sqlite that msgbrowse created.`,
      file,
    );
  }
  const problems = schemaProblems(sql);
  if (problems.length) {
    throw new ArchiveError(
      'incompatible_schema',
      `${file} cannot be served: ${problems.join('; ')}. Every tool reads these; point to a msgbrowse.sqlite that msgbrowse wrote itself (or a copy from its backups folder).`,
      file,
    );
  }
  return detectSchema(sql);
}

/** As msgbrowse v8+ declares links: own conversation and time, NOT NULL columns, gallery indexes, no collation. */
function linkGallery(sql: Sql, link: Map<string, ColumnInfo>): boolean {
  if (!link.has('conversation_id') || !link.has('ts_unix')) return false;
  if (!['url', 'domain', 'ts_unix'].every((c) => link.get(c)?.notNull)) return false;
  // `id` is the rowid (INTEGER PRIMARY KEY, the only key column): first occurrences are joined back by it.
  const keys = [...link].filter(([, c]) => c.pk > 0);
  if (keys.length !== 1 || keys[0][0] !== 'id' || keys[0][1].type.toUpperCase() !== 'INTEGER') return false;
  const leads = (index: string, column: string) =>
    sql.value('SELECT name FROM pragma_index_info(?) WHERE seqno = 0', [index]) === column;
  if (!leads('idx_links_gallery', 'url') || !leads('idx_links_domain', 'domain')) return false;
  return !/\bcollate\b/i.test(
    String(sql.value("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'links'") ?? ''),
  );
}

export function detectSchema(sql: Sql): SchemaInfo {
  const conv = columns(sql, 'conversations');
  const msg = columns(sql, 'messages');
  const att = columns(sql, 'attachments');
  const link = columns(sql, 'links');
  const digest = columns(sql, 'journal_digests');
  const journalDigests = hasAll(sql, OPTIONAL.journalDigests);
  return {
    version: Number(sql.value('PRAGMA user_version') ?? 0),
    conversationSource: conv.has('source'),
    messageSource: msg.has('source'),
    attachmentConversationId: att.has('conversation_id'),
    attachmentTsUnix: att.has('ts_unix'),
    linkConversationId: link.has('conversation_id'),
    linkTsUnix: link.has('ts_unix'),
    linkGallery: linkGallery(sql, link),
    embeddings: hasAll(sql, OPTIONAL.embeddings),
    reactions: hasAll(sql, OPTIONAL.reactions),
    contacts: hasAll(sql, OPTIONAL.contacts) && conv.has('contact_id') && conv.has('source'),
    facts: hasAll(sql, OPTIONAL.facts),
    journalDigests,
    digestStructured: journalDigests && digest.has('structured') && digest.has('mood'),
    digestMessageCount: journalDigests && digest.has('message_count'),
    sentiment: hasAll(sql, OPTIONAL.sentiment),
  };
}

/** SQL expressions that paper over the schema differences. Aliases: c conversations, m messages, a attachments, l links. */
export function exprs(s: SchemaInfo) {
  return {
    convSource: s.conversationSource ? 'c.source' : "'signal'",
    msgSource: s.messageSource ? 'm.source' : "'signal'",
    attConv: s.attachmentConversationId ? 'a.conversation_id' : 'm.conversation_id',
    attTs: s.attachmentTsUnix ? 'a.ts_unix' : 'm.ts_unix',
    linkConv: s.linkConversationId ? 'l.conversation_id' : 'm.conversation_id',
    linkTs: s.linkTsUnix ? 'l.ts_unix' : 'm.ts_unix',
  };
}
