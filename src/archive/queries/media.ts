/** Attachment gallery: kinds image/file/video, filters, newest first (ts_unix DESC, id DESC), limit+1 → hasMore. */
import { mapRows, type Param, type Sql } from '../connection';
import { exprs, type SchemaInfo } from '../schema';
import { ATTACHMENT_KINDS, type AttachmentOptions, type AttachmentRow } from '../types';
import { attachmentColumns, attachmentFrom, hasValue, jsonList, positiveLimit, readAttachment, Where } from './rows';

/**
 * `general` joins every attachment in scope, then limits; `lateJoin` (no source filter) ranks ids alone on the
 * (kind, ts_unix) index, then LEFT JOINs the rows it keeps (`joined`, after the AttachmentRow's columns).
 */
export function attachmentStatements(
  schema: SchemaInfo,
  opts: AttachmentOptions,
  hiddenIds?: readonly number[],
): { general: string; lateJoin?: string; params: Param[] } {
  const limit = positiveLimit(opts.limit);
  const e = exprs(schema);
  const kinds = opts.kinds.length ? [...new Set(opts.kinds)] : [...ATTACHMENT_KINDS];
  const { where, params } = new Where()
    .must('a.kind IN (SELECT value FROM json_each(?))', jsonList(kinds))
    .add(`${e.attConv} = ?`, opts.conversationId)
    .add(`${e.convSource} = ?`, opts.source)
    .add(`${e.attTs} >= ?`, opts.startUnix)
    .add(`${e.attTs} <= ?`, opts.endUnix)
    .notHidden(e.attConv, hiddenIds);
  const order = `${e.attTs} DESC, a.id DESC`;
  const general = `SELECT ${attachmentColumns(schema)} FROM ${attachmentFrom(schema)}
     WHERE ${where.join(' AND ')}
     ORDER BY ${order} LIMIT ?`;
  const ownColumns = schema.attachmentConversationId && schema.attachmentTsUnix && !hasValue(opts.source);
  const lateJoin = ownColumns
    ? `SELECT ${attachmentColumns(schema)}, c.id IS NOT NULL AND m.id IS NOT NULL AS joined
     FROM (SELECT a.id AS id FROM attachments a WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?) t
     JOIN attachments a ON a.id = t.id
     LEFT JOIN messages m ON m.id = a.message_id
     LEFT JOIN conversations c ON c.id = ${e.attConv}
     ORDER BY ${order}`
    : undefined;
  return { general, ...(lateJoin ? { lateJoin } : {}), params: [...params, limit + 1] };
}

export function attachments(
  sql: Sql,
  schema: SchemaInfo,
  opts: AttachmentOptions,
  hiddenIds?: readonly number[],
): { items: AttachmentRow[]; hasMore: boolean } {
  const limit = positiveLimit(opts.limit);
  const q = attachmentStatements(schema, opts, hiddenIds);
  // A row that lost its message or conversation (a damaged archive): the general statement drops it first.
  let rows: AttachmentRow[] | undefined;
  if (q.lateJoin) {
    const late = mapRows(sql, q.lateJoin, q.params, (c) => ({ row: readAttachment(c), joined: c.num(11) === 1 }));
    if (late.every((r) => r.joined)) rows = late.map((r) => r.row);
  }
  rows ??= mapRows(sql, q.general, q.params, readAttachment);
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}
