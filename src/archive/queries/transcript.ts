/** Chronological transcript pages with keyset pagination over (ts_unix, id). */
import { mapRows, type Param, type Sql } from '../connection';
import type { SchemaInfo } from '../schema';
import type { TranscriptOptions, TranscriptPage } from '../types';
import { messageColumns, positiveLimit, readMessage, statement } from './rows';

export function transcript(sql: Sql, schema: SchemaInfo, opts: TranscriptOptions): TranscriptPage {
  const limit = positiveLimit(opts.limit);
  const where = ['m.conversation_id = ?'];
  const params: Param[] = [opts.conversationId];
  if (opts.startUnix !== undefined) {
    where.push('m.ts_unix >= ?');
    params.push(opts.startUnix);
  }
  if (opts.endUnix !== undefined) {
    where.push('m.ts_unix <= ?');
    params.push(opts.endUnix);
  }
  // Row values, so that the cursor starts a range of idx_messages_conv_ts(conversation_id, ts_unix) at its time (the
  // messages of that very second are then filtered by id): spelled out as `ts > ? OR (ts = ? AND id > ?)`, SQLite
  // read the conversation from its start (or end) up to the cursor.
  if (opts.after) {
    where.push('(m.ts_unix, m.id) > (?, ?)');
    params.push(opts.after.tsUnix, opts.after.id);
  }
  if (opts.before) {
    where.push('(m.ts_unix, m.id) < (?, ?)');
    params.push(opts.before.tsUnix, opts.before.id);
  }
  // Paging backwards (only `before`): newest-first from the cursor, then reversed to chronological — unless the
  // caller asked for newest first, which reads the same way and keeps that order.
  const newest = opts.newestFirst === true && opts.after === undefined;
  const backwards = newest || (opts.before !== undefined && opts.after === undefined);
  const dir = backwards ? 'DESC' : 'ASC';
  const text = statement(
    schema,
    `transcript:${dir}:${where.join(' AND ')}`,
    () => `SELECT ${messageColumns(schema)}
     FROM messages m JOIN conversations c ON c.id = m.conversation_id
     WHERE ${where.join(' AND ')}
     ORDER BY m.ts_unix ${dir}, m.id ${dir}
     LIMIT ?`,
  );
  const rows = mapRows(sql, text, [...params, limit + 1], readMessage);
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards && !newest) page.reverse();
  const edge = backwards && !newest ? page[0] : page[page.length - 1];
  return more && edge ? { messages: page, next: { tsUnix: edge.tsUnix, id: edge.id } } : { messages: page };
}
