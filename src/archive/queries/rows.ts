/** Row → contract-object mappers and small SQL helpers shared by the query families. */
import type { SqlValue } from '@sqlite.org/sqlite-wasm';
import type { Columns, Param } from '../connection';
import { ArchiveError } from '../errors';
import { exprs, type SchemaInfo } from '../schema';
import type { AttachmentRow, MessageRow } from '../types';

export function num(v: SqlValue | undefined): number {
  return typeof v === 'number' ? v : typeof v === 'bigint' || typeof v === 'string' ? Number(v) : 0;
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

/** SELECT list for a MessageRow (aliases m, c), read by position by {@link readMessage}; keyword hits share 0–8. */
export function messageColumns(schema: SchemaInfo): string {
  const e = exprs(schema);
  return `m.id AS id, m.hash AS hash, m.conversation_id AS conversation_id, c.name AS conversation,
    ${e.msgSource} AS source, m.sender AS sender, m.ts AS ts, m.ts_unix AS ts_unix, m.is_system AS is_system,
    m.body AS body, m.seq AS seq`;
}

/** One object literal per row: spreading a shared base object (`{ ...base, body }`) is far slower in V8. */
export function readMessage(c: Columns): MessageRow {
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
    body: c.text(9),
    seq: c.num(10),
  };
}

/** Aliases a, m, c. */
export function attachmentFrom(schema: SchemaInfo): string {
  const e = exprs(schema);
  return `attachments a JOIN messages m ON m.id = a.message_id JOIN conversations c ON c.id = ${e.attConv}`;
}

/** SELECT list for an AttachmentRow, read by position by {@link readAttachment}. */
export function attachmentColumns(schema: SchemaInfo): string {
  const e = exprs(schema);
  return `a.id AS id, a.message_id AS message_id, ${e.attConv} AS conversation_id, c.name AS conversation,
    ${e.convSource} AS source, a.kind AS kind, a.rel_path AS rel_path, a.original_name AS original_name,
    m.ts AS ts, ${e.attTs} AS ts_unix, m.hash AS message_hash`;
}

export function readAttachment(c: Columns): AttachmentRow {
  return {
    id: c.num(0),
    messageId: c.num(1),
    conversationId: c.num(2),
    conversation: c.text(3),
    source: c.text(4),
    kind: c.text(5),
    relPath: c.text(6),
    originalName: c.text(7),
    ts: c.text(8),
    tsUnix: c.num(9),
    messageHash: c.text(10),
  };
}

const statements = new WeakMap<SchemaInfo, Map<string, string>>();

/** The statement for `schema` and a `shape` (its optional clauses), built once: hot calls reuse one cache key. */
export function statement(schema: SchemaInfo, shape: string, build: () => string): string {
  let byShape = statements.get(schema);
  if (!byShape) statements.set(schema, (byShape = new Map()));
  let text = byShape.get(shape);
  if (text === undefined) byShape.set(shape, (text = build()));
  return text;
}

/** A JSON array parameter for `IN (SELECT value FROM json_each(?))` (one cached statement for any list size). */
export function jsonList(values: readonly (number | string)[]): string {
  return JSON.stringify(values);
}

/** `<column> NOT IN (…hidden conversation ids)` and its parameter; nothing when no conversation is hidden. */
export function notHidden(
  column: string,
  hiddenIds: readonly number[] | undefined,
): { where: string; param: string } | undefined {
  return hiddenIds?.length
    ? { where: `${column} NOT IN (SELECT value FROM json_each(?))`, param: jsonList(hiddenIds) }
    : undefined;
}

export function hasValue(s: string | undefined): s is string {
  return s !== undefined && s !== '';
}

/** WHERE fragments with their parameters, in placeholder order. */
export class Where {
  readonly where: string[] = [];
  readonly params: Param[] = [];

  must(clause: string, ...params: Param[]): this {
    this.where.push(clause);
    this.params.push(...params);
    return this;
  }

  /** Adds `clause` with its one parameter, unless the filter is absent (undefined or ''). */
  add(clause: string, value: Param | undefined): this {
    return value === undefined || value === '' ? this : this.must(clause, value);
  }

  notHidden(column: string, hiddenIds: readonly number[] | undefined): this {
    const hidden = notHidden(column, hiddenIds);
    return hidden ? this.must(hidden.where, hidden.param) : this;
  }
}
