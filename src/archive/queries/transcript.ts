/** Chronological transcript pages with keyset pagination over (ts_unix, id). */
import { mapRows, type Sql } from '../connection';
import type { SchemaInfo } from '../schema';
import type { TranscriptOptions, TranscriptPage } from '../types';
import { messageColumns, positiveLimit, readMessage, statement, Where } from './rows';

export function transcript(sql: Sql, schema: SchemaInfo, opts: TranscriptOptions): TranscriptPage {
  const limit = positiveLimit(opts.limit);
  const w = new Where()
    .must('m.conversation_id = ?', opts.conversationId)
    .add('m.ts_unix >= ?', opts.startUnix)
    .add('m.ts_unix <= ?', opts.endUnix);
  // Row values start a range of idx_messages_conv_ts at the cursor's time; spelled out with OR, SQLite read the
  // conversation from its start (or end) up to the cursor.
  if (opts.after) w.must('(m.ts_unix, m.id) > (?, ?)', opts.after.tsUnix, opts.after.id);
  if (opts.before) w.must('(m.ts_unix, m.id) < (?, ?)', opts.before.tsUnix, opts.before.id);
  const { where, params } = w;
  // Paging backwards reads newest first from the cursor, then reverses to chronological unless asked for newest first.
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
