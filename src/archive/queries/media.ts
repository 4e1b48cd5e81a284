/** Attachment gallery: kinds image/file/video, filters, newest first (ts_unix DESC, id DESC), limit+1 → hasMore. */
import { mapRows, type Param, type Sql } from '../connection';
import { exprs, type SchemaInfo } from '../schema';
import { ATTACHMENT_KINDS, type AttachmentOptions, type AttachmentRow } from '../types';
import { attachmentColumns, attachmentFrom, hasValue, jsonList, notHidden, positiveLimit, readAttachment } from './rows';

export function attachments(
  sql: Sql,
  schema: SchemaInfo,
  opts: AttachmentOptions,
  hiddenIds?: readonly number[],
): { items: AttachmentRow[]; hasMore: boolean } {
  const limit = positiveLimit(opts.limit);
  const e = exprs(schema);
  const kinds = opts.kinds.length ? [...new Set(opts.kinds)] : [...ATTACHMENT_KINDS];
  const where = ['a.kind IN (SELECT value FROM json_each(?))'];
  const params: Param[] = [jsonList(kinds)];
  if (opts.conversationId !== undefined) {
    where.push(`${e.attConv} = ?`);
    params.push(opts.conversationId);
  }
  if (hasValue(opts.source)) {
    where.push(`${e.convSource} = ?`);
    params.push(opts.source);
  }
  if (opts.startUnix !== undefined) {
    where.push(`${e.attTs} >= ?`);
    params.push(opts.startUnix);
  }
  if (opts.endUnix !== undefined) {
    where.push(`${e.attTs} <= ?`);
    params.push(opts.endUnix);
  }
  const hidden = notHidden(e.attConv, hiddenIds);
  if (hidden) {
    where.push(hidden.where);
    params.push(hidden.param);
  }
  const rows = mapRows(
    sql,
    `SELECT ${attachmentColumns(schema)} FROM ${attachmentFrom(schema)}
     WHERE ${where.join(' AND ')}
     ORDER BY ${e.attTs} DESC, a.id DESC LIMIT ?`,
    [...params, limit + 1],
    readAttachment,
  );
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}
