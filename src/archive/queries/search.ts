/**
 * Keyword search: msgbrowse's SearchMessages (FTS5 MATCH over buildFTSQuery, snippet with U+0002 /
 * U+0003 markers, bm25 rank) with every filter, ties broken by message id.
 */
import { type Columns, mapRows, type Param, type Sql, sqliteCode } from '../connection';
import { SQLITE } from '../sqlite-codes';
import { buildFtsQuery } from '../fts-query';
import { exprs, type SchemaInfo } from '../schema';
import type { KeywordHit, KeywordSearchOptions, MessageFilter } from '../types';
import { hasValue, notHidden, positiveLimit, statement } from './rows';

/** WHERE fragments (aliases m, c) for the common message filters. */
export function messageFilterSql(
  schema: SchemaInfo,
  f: MessageFilter,
  hiddenIds?: readonly number[],
): { where: string[]; params: Param[] } {
  const e = exprs(schema);
  const where: string[] = [];
  const params: Param[] = [];
  if (f.conversationId !== undefined) {
    where.push('m.conversation_id = ?');
    params.push(f.conversationId);
  }
  if (hasValue(f.source)) {
    where.push(`${e.msgSource} = ?`);
    params.push(f.source);
  }
  if (hasValue(f.sender)) {
    where.push('m.sender = ?');
    params.push(f.sender);
  }
  if (f.startUnix !== undefined) {
    where.push('m.ts_unix >= ?');
    params.push(f.startUnix);
  }
  if (f.endUnix !== undefined) {
    where.push('m.ts_unix <= ?');
    params.push(f.endUnix);
  }
  if (f.hasAttachment !== undefined)
    where.push(`${f.hasAttachment ? '' : 'NOT '}EXISTS (SELECT 1 FROM attachments a WHERE a.message_id = m.id)`);
  if (f.hasLink !== undefined)
    where.push(`${f.hasLink ? '' : 'NOT '}EXISTS (SELECT 1 FROM links l WHERE l.message_id = m.id)`);
  const hidden = notHidden('m.conversation_id', hiddenIds);
  if (hidden) {
    where.push(hidden.where);
    params.push(hidden.param);
  }
  return { where, params };
}

/**
 * The general statement: every hit joined to its message and conversation, filtered, then ranked. searchKeyword
 * runs it when a filter applies, and when the ranked-first statement below cannot be sure of its answer
 * (exported for the native-parity test).
 */
export function keywordSearchSql(
  schema: SchemaInfo,
  opts: KeywordSearchOptions,
  hiddenIds?: readonly number[],
): { sql: string; params: Param[] } | undefined {
  const match = buildFtsQuery(opts.query);
  if (match === '') return undefined;
  return generalStatement(schema, match, positiveLimit(opts.limit), messageFilterSql(schema, opts, hiddenIds));
}

function generalStatement(
  schema: SchemaInfo,
  match: string,
  limit: number,
  f: { where: string[]; params: Param[] },
): { sql: string; params: Param[] } {
  const sql = statement(schema, `keyword:${f.where.join(' AND ')}`, () => keywordSql(schema, f.where));
  return { sql, params: [match, ...f.params, limit] };
}

/** FTS5's snippet of a hit, with msgbrowse's U+0002 / U+0003 markers. */
const SNIPPET = "snippet(messages_fts, 0, char(2), char(3), '…', 12)";

/** A hit's SELECT list: columns 0–8 as in messageColumns, then 9–13 (read by position by readHit). */
function hitColumns(schema: SchemaInfo, snippet: string, rank: string): string {
  const e = exprs(schema);
  return `m.id AS id, m.hash AS hash, m.conversation_id AS conversation_id, c.name AS conversation,
    ${e.msgSource} AS source, m.sender AS sender, m.ts AS ts, m.ts_unix AS ts_unix, m.is_system AS is_system,
    ${snippet} AS snippet, ${rank} AS rank,
    EXISTS (SELECT 1 FROM attachments a WHERE a.message_id = m.id) AS has_att,
    EXISTS (SELECT 1 FROM links l WHERE l.message_id = m.id) AS has_link, m.body AS body`;
}

function keywordSql(schema: SchemaInfo, where: readonly string[]): string {
  // CROSS JOIN pins the join order: the full-text index drives and each hit is looked up by rowid. Left to the
  // planner, a conversation/date filter makes SQLite walk messages by index and re-run the MATCH for every row
  // (seconds for a frequent word on 100k messages, minutes at 1M).
  return `SELECT ${hitColumns(schema, SNIPPET, 'rank')}
  FROM messages_fts
  CROSS JOIN messages m ON m.id = messages_fts.rowid
  JOIN conversations c ON c.id = m.conversation_id
  WHERE messages_fts MATCH ?${where.map((w) => ` AND ${w}`).join('')}
  ORDER BY rank, m.id
  LIMIT ?`;
}

/**
 * The unfiltered statement: the full-text index ranks its rows (rank, then rowid — the message id) and only the
 * best `limit` are joined to their messages. The general statement joins every hit before ranking: for a word in
 * 8% of 1M messages that is 80k message lookups for 20 results (66 -> 30 ms warm, 365 -> 197 ms with a cold page
 * cache, natively).
 */
function rankedFirstSql(schema: SchemaInfo): string {
  return `SELECT ${hitColumns(schema, 't.snippet', 't.rank')}
  FROM (SELECT rowid AS rid, rank AS rank, ${SNIPPET} AS snippet
    FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank, rowid LIMIT ?) t
  CROSS JOIN messages m ON m.id = t.rid
  JOIN conversations c ON c.id = m.conversation_id
  ORDER BY t.rank, m.id`;
}

/** The ranked-first statement's hits; undefined when an index row's message is missing (see searchKeyword). */
function rankedFirst(sql: Sql, schema: SchemaInfo, match: string, limit: number): KeywordHit[] | undefined {
  try {
    return mapRows(
      sql,
      statement(schema, 'keyword:ranked-first', () => rankedFirstSql(schema)),
      [match, limit],
      readHit,
    );
  } catch (e) {
    if (sqliteCode(e) === SQLITE.CORRUPT_VTAB) return undefined;
    throw e;
  }
}

/** `hiddenIds`: conversations left out in the statement itself (so the limit counts only what may be shown). */
export function searchKeyword(
  sql: Sql,
  schema: SchemaInfo,
  opts: KeywordSearchOptions,
  hiddenIds?: readonly number[],
): KeywordHit[] {
  const match = buildFtsQuery(opts.query);
  if (match === '') return [];
  const limit = positiveLimit(opts.limit);
  const f = messageFilterSql(schema, opts, hiddenIds);
  if (f.where.length === 0) {
    // No filter: rank first. Its answer is the general statement's when all `limit` best index rows have a message
    // (nothing ranked below them can enter), or when there are no more than `limit` matches (all were joined).
    // Otherwise some of the best rows are index entries without a message or conversation (a stale index) and
    // others may stand in for them: rank after the join instead. So too when a snippet finds no message to quote
    // (SQLITE_CORRUPT_VTAB: the ranking's bounded sort makes one for every row that enters its best `limit` on
    // the way; the general statement joins first and never asks for one without its message).
    const hits = rankedFirst(sql, schema, match, limit);
    if (
      hits &&
      (hits.length === limit ||
        Number(sql.value('SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?', [match])) <= limit)
    )
      return hits;
  }
  const q = generalStatement(schema, match, limit, f);
  return mapRows(sql, q.sql, q.params, readHit);
}

function readHit(c: Columns): KeywordHit {
  return {
    id: c.num(0),
    hash: c.text(1),
    conversationId: c.num(2),
    conversation: c.text(3),
    source: c.text(4),
    sender: c.text(5),
    ts: c.text(6),
    tsUnix: c.num(7),
    isSystem: c.num(8) !== 0,
    snippet: c.text(9),
    rank: c.num(10),
    hasAttachment: c.num(11) !== 0,
    hasLink: c.num(12) !== 0,
    body: c.text(13),
  };
}
