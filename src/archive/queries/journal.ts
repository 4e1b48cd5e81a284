/** Journal days and "on this day" from `messages` by msgbrowse's rules, right even if `msgbrowse journal` never ran. */
import { mapRows, type Param, type Sql } from '../connection';
import { exprs, type SchemaInfo } from '../schema';
import type { DayMessagesOptions, JournalDay, JournalDigestRow, MessageRow, OnThisDayOptions } from '../types';
import { jsonList, messageColumns, notHidden, num, positiveLimit, readMessage, str } from './rows';

const DAY = 86_400;
const COUNTED = `m.is_system = 0 AND TRIM(m.body) <> ''`;

export function utcDay(unix: number): string {
  return new Date(unix * 1000).toISOString().slice(0, 10);
}

function dayWhere(hiddenIds: readonly number[] | undefined): { where: string; params: (start: number) => Param[] } {
  const hidden = notHidden('m.conversation_id', hiddenIds);
  return {
    where: `m.ts_unix >= ? AND m.ts_unix < ? AND ${COUNTED}${hidden ? ` AND ${hidden.where}` : ''}`,
    params: (start) => (hidden ? [start, start + DAY, hidden.param] : [start, start + DAY]),
  };
}

/** The day's counts, its digest and, when it has no counted messages, the nearest days that do. */
export function journalDay(
  sql: Sql,
  schema: SchemaInfo,
  day: string,
  dayStartUnix: number,
  hiddenIds?: readonly number[],
): JournalDay {
  const e = exprs(schema);
  const w = dayWhere(hiddenIds);
  const p = w.params(dayStartUnix);
  const totals = sql.get(
    `SELECT COUNT(*) AS n, COUNT(DISTINCT m.conversation_id) AS convs FROM messages m WHERE ${w.where}`,
    p,
  );
  const messageCount = num(totals?.n);
  const bySource = sql.all(
    `SELECT ${e.msgSource} AS src, COUNT(*) AS n FROM messages m WHERE ${w.where} GROUP BY 1 ORDER BY 1`,
    p,
  );
  const sourceCounts: Record<string, number> = Object.fromEntries(bySource.map((r) => [str(r.src), num(r.n)]));
  const topSenders = sql
    .all(
      `SELECT m.sender AS name, COUNT(*) AS n FROM messages m WHERE ${w.where} AND m.sender <> 'Me' GROUP BY m.sender ORDER BY n DESC, m.sender ASC LIMIT 5`,
      p,
    )
    .map((r) => ({ name: str(r.name), count: num(r.n) }));
  const out: JournalDay = {
    day,
    messageCount,
    conversationCount: num(totals?.convs),
    sourceCounts,
    topSenders,
    digestsSupported: schema.journalDigests,
    touchesHidden: hiddenIds !== undefined && hiddenIds.length > 0 && hiddenHasMessages(sql, dayStartUnix, hiddenIds),
  };
  const digest = schema.journalDigests ? digestRow(sql, schema, day) : undefined;
  if (digest) out.digest = digest;
  if (messageCount === 0) {
    const hidden = notHidden('m.conversation_id', hiddenIds);
    const near = (cmp: string, dir: 'ASC' | 'DESC', bound: number) =>
      sql.value(
        `SELECT m.ts_unix FROM messages m WHERE m.ts_unix ${cmp} ? AND ${COUNTED}${hidden ? ` AND ${hidden.where}` : ''} ORDER BY m.ts_unix ${dir} LIMIT 1`,
        hidden ? [bound, hidden.param] : [bound],
      );
    const before = near('<', 'DESC', dayStartUnix);
    const after = near('>=', 'ASC', dayStartUnix + DAY);
    if (before !== undefined && before !== null) out.earlier = utcDay(num(before));
    if (after !== undefined && after !== null) out.later = utcDay(num(after));
  }
  return out;
}

function hiddenHasMessages(sql: Sql, dayStartUnix: number, hiddenIds: readonly number[]): boolean {
  return (
    sql.value(
      `SELECT 1 FROM messages m WHERE m.ts_unix >= ? AND m.ts_unix < ? AND ${COUNTED} AND m.conversation_id IN (SELECT value FROM json_each(?)) LIMIT 1`,
      [dayStartUnix, dayStartUnix + DAY, jsonList(hiddenIds)],
    ) !== undefined
  );
}

function digestRow(sql: Sql, schema: SchemaInfo, day: string): JournalDigestRow | undefined {
  const r = sql.get(
    `SELECT body, model, ${schema.digestStructured ? 'structured, mood' : "'' AS structured, '' AS mood"},
            ${schema.digestMessageCount ? 'message_count' : '0'} AS message_count FROM journal_digests WHERE day = ?`,
    [day],
  );
  if (!r) return undefined;
  return {
    body: str(r.body),
    structured: str(r.structured),
    mood: str(r.mood),
    model: str(r.model),
    messageCount: num(r.message_count),
  };
}

/** In msgbrowse's DayTranscript order. */
export function dayMessages(
  sql: Sql,
  schema: SchemaInfo,
  opts: DayMessagesOptions,
  hiddenIds?: readonly number[],
): { messages: MessageRow[]; hasMore: boolean } {
  const limit = positiveLimit(opts.limit);
  const w = dayWhere(hiddenIds);
  const params: Param[] = w.params(opts.dayStartUnix);
  let keyset = '';
  if (opts.after) {
    keyset = ' AND (m.conversation_id, m.ts_unix, m.id) > (?, ?, ?)';
    params.push(opts.after.conversationId, opts.after.tsUnix, opts.after.id);
  }
  const rows = mapRows(
    sql,
    `SELECT ${messageColumns(schema)} FROM messages m JOIN conversations c ON c.id = m.conversation_id
     WHERE ${w.where}${keyset} ORDER BY m.conversation_id, m.ts_unix, m.id LIMIT ?`,
    [...params, limit + 1],
    readMessage,
  );
  return { messages: rows.slice(0, limit), hasMore: rows.length > limit };
}

export function firstMessageYear(sql: Sql, hiddenIds?: readonly number[]): number | undefined {
  const hidden = notHidden('m.conversation_id', hiddenIds);
  const v = sql.value(
    `SELECT m.ts_unix FROM messages m${hidden ? ` WHERE ${hidden.where}` : ''} ORDER BY m.ts_unix ASC LIMIT 1`,
    hidden ? [hidden.param] : [],
  );
  return v === undefined || v === null ? undefined : new Date(num(v) * 1000).getUTCFullYear();
}

/** msgbrowse's OnThisDayCandidates: each day's longest counted messages, `perDay` each and `limit` in all. */
export function onThisDay(
  sql: Sql,
  schema: SchemaInfo,
  opts: OnThisDayOptions,
  hiddenIds?: readonly number[],
): { day: string; messages: MessageRow[] }[] {
  const perDay = positiveLimit(opts.perDay, 'per_year');
  let left = positiveLimit(opts.limit);
  const w = dayWhere(hiddenIds);
  // msgbrowse drops candidates whose preview is empty (quote markers and line breaks only).
  const text = `SELECT ${messageColumns(schema)} FROM messages m JOIN conversations c ON c.id = m.conversation_id
    WHERE ${w.where} AND TRIM(m.body, ' ' || char(9, 10, 13, 62, 160, 8203, 65279)) <> '' ORDER BY length(m.body) DESC, m.id ASC LIMIT ?`;
  const out: { day: string; messages: MessageRow[] }[] = [];
  for (const d of opts.days) {
    if (left <= 0) break;
    const rows = mapRows(sql, text, [...w.params(d.startUnix), Math.min(perDay, left)], readMessage);
    if (!rows.length) continue;
    out.push({ day: d.day, messages: rows });
    left -= rows.length;
  }
  return out;
}
