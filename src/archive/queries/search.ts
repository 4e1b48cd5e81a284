/** Keyword search: msgbrowse's SearchMessages (FTS5 MATCH, snippet, bm25 rank) with every filter, ties by id. */
import { type Columns, mapRows, type Param, type Sql, sqliteCode } from '../connection';
import { SQLITE } from '../sqlite-codes';
import { buildFtsQuery } from '../fts-query';
import { exprs, type SchemaInfo } from '../schema';
import type { KeywordHit, KeywordSearchOptions, MessageFilter } from '../types';
import { positiveLimit, statement, Where } from './rows';

/** WHERE fragments (aliases m, c) for the common message filters. */
function messageFilterSql(schema: SchemaInfo, f: MessageFilter, hiddenIds?: readonly number[]): Where {
  const w = new Where()
    .add('m.conversation_id = ?', f.conversationId)
    .add(`${exprs(schema).msgSource} = ?`, f.source)
    .add('m.sender = ?', f.sender)
    .add('m.ts_unix >= ?', f.startUnix)
    .add('m.ts_unix <= ?', f.endUnix);
  if (f.hasAttachment !== undefined)
    w.must(`${f.hasAttachment ? '' : 'NOT '}EXISTS (SELECT 1 FROM attachments a WHERE a.message_id = m.id)`);
  if (f.hasLink !== undefined)
    w.must(`${f.hasLink ? '' : 'NOT '}EXISTS (SELECT 1 FROM links l WHERE l.message_id = m.id)`);
  return w.notHidden('m.conversation_id', hiddenIds);
}

/** Every hit joined, filtered, then ranked: for filters, and whenever ranked-first cannot be sure of its answer. */
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

/** A hit's SELECT list: columns 0–8 as in messageColumns, then 9–11 (read by position by readHit). */
function hitColumns(schema: SchemaInfo, snippet: string, rank: string): string {
  const e = exprs(schema);
  return `m.id AS id, m.hash AS hash, m.conversation_id AS conversation_id, c.name AS conversation,
    ${e.msgSource} AS source, m.sender AS sender, m.ts AS ts, m.ts_unix AS ts_unix, m.is_system AS is_system,
    ${snippet} AS snippet, ${rank} AS rank, m.body AS body`;
}

function keywordSql(schema: SchemaInfo, where: readonly string[]): string {
  // CROSS JOIN pins the join order (the full-text index drives): left to the planner, a conversation or date filter
  // makes SQLite walk messages by index and re-run the MATCH for every row.
  return `SELECT ${hitColumns(schema, SNIPPET, 'rank')}
  FROM messages_fts
  CROSS JOIN messages m ON m.id = messages_fts.rowid
  JOIN conversations c ON c.id = m.conversation_id
  WHERE messages_fts MATCH ?${where.map((w) => ` AND ${w}`).join('')}
  ORDER BY rank, m.id
  LIMIT ?`;
}

/** Unfiltered: the full-text index ranks its rows and only the best `limit` are joined to their messages. */
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
    // Ranked first is the general statement's answer when all `limit` best index rows have a message, or when there
    // are no more matches than that. Otherwise a stale index row lost its message and another may stand in for it;
    // so too on SQLITE_CORRUPT_VTAB (a snippet of a row without its message, made by the ranking's bounded sort).
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
    body: c.text(11),
  };
}
