/** Row → contract-object mappers and small SQL helpers shared by the query families. */
import type { SqlValue } from '@sqlite.org/sqlite-wasm';
import type { Row } from '../connection';
import { ArchiveError } from '../errors';
import { exprs, type SchemaInfo } from '../schema';
import type { AttachmentRow, MessageRow } from '../types';

export function num(v: SqlValue | undefined): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string') return Number(v);
  return 0;
}

export function str(v: SqlValue | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  return String(v);
}

/** A positive integer limit (callers validate ranges; this guards against NaN/0/negatives). */
export function positiveLimit(limit: number, what = 'limit'): number {
  if (!Number.isFinite(limit) || limit < 1) {
    throw new ArchiveError('query_failed', `${what} must be a positive integer (got ${String(limit)}).`);
  }
  return Math.floor(limit);
}

/** SELECT list for a MessageRow (aliases m messages, c conversations). */
export function messageColumns(schema: SchemaInfo): string {
  const e = exprs(schema);
  return `m.id AS id, m.hash AS hash, m.conversation_id AS conversation_id, c.name AS conversation,
    ${e.msgSource} AS source, m.sender AS sender, m.ts AS ts, m.ts_unix AS ts_unix, m.body AS body,
    m.is_system AS is_system, m.seq AS seq`;
}

/** The message fields every hit carries (columns named as in {@link messageColumns}). */
export function toMessageBase(r: Row): Omit<MessageRow, 'body' | 'seq'> {
  return {
    id: num(r.id),
    hash: str(r.hash),
    conversationId: num(r.conversation_id),
    conversation: str(r.conversation),
    source: str(r.source),
    sender: str(r.sender),
    ts: str(r.ts),
    tsUnix: num(r.ts_unix),
    isSystem: num(r.is_system) !== 0,
  };
}

export function toMessage(r: Row): MessageRow {
  return { ...toMessageBase(r), body: str(r.body), seq: num(r.seq) };
}

/** FROM clause for attachments with conversation + message joins (alias a, m, c). */
export function attachmentFrom(schema: SchemaInfo): string {
  const e = exprs(schema);
  return `attachments a JOIN messages m ON m.id = a.message_id JOIN conversations c ON c.id = ${e.attConv}`;
}

export function attachmentColumns(schema: SchemaInfo): string {
  const e = exprs(schema);
  return `a.id AS id, a.message_id AS message_id, ${e.attConv} AS conversation_id, c.name AS conversation,
    ${e.convSource} AS source, a.kind AS kind, a.rel_path AS rel_path, a.original_name AS original_name,
    m.ts AS ts, ${e.attTs} AS ts_unix`;
}

export function toAttachment(r: Row): AttachmentRow {
  return {
    id: num(r.id),
    messageId: num(r.message_id),
    conversationId: num(r.conversation_id),
    conversation: str(r.conversation),
    source: str(r.source),
    kind: str(r.kind),
    relPath: str(r.rel_path),
    originalName: str(r.original_name),
    ts: str(r.ts),
    tsUnix: num(r.ts_unix),
  };
}

/** A JSON array parameter for `IN (SELECT value FROM json_each(?))` (one cached statement for any list size). */
export function jsonList(values: readonly (number | string)[]): string {
  return JSON.stringify(values);
}

export function hasValue(s: string | undefined): s is string {
  return s !== undefined && s !== '';
}
