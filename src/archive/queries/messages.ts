/** Point lookups: messages by id/hash, their attachments, reactions by message hash. */
import { mapRows, type Sql } from '../connection';
import type { SchemaInfo } from '../schema';
import type { AttachmentRow, MessageRow, ReactionRow } from '../types';
import {
  attachmentColumns,
  attachmentFrom,
  jsonList,
  messageColumns,
  notHidden,
  readAttachment,
  readMessage,
  str,
} from './rows';

const FROM = 'FROM messages m JOIN conversations c ON c.id = m.conversation_id';

export function messageById(sql: Sql, schema: SchemaInfo, id: number): MessageRow | undefined {
  return mapRows(sql, `SELECT ${messageColumns(schema)} ${FROM} WHERE m.id = ?`, [id], readMessage)[0];
}

export function messageByHash(sql: Sql, schema: SchemaInfo, hash: string): MessageRow | undefined {
  return mapRows(sql, `SELECT ${messageColumns(schema)} ${FROM} WHERE m.hash = ?`, [hash], readMessage)[0];
}

/** Messages whose hash starts with `prefix`: hashes are lowercase hex, so all lie in [prefix, prefix + 'g'). */
export function messagesByHashPrefix(
  sql: Sql,
  schema: SchemaInfo,
  prefix: string,
  limit: number,
  hiddenIds?: readonly number[],
): MessageRow[] {
  const p = prefix.toLowerCase();
  if (!/^[0-9a-f]{1,64}$/.test(p)) return [];
  const n = Math.max(1, Math.min(Math.floor(limit) || 1, 10));
  const hidden = notHidden('m.conversation_id', hiddenIds);
  return mapRows(
    sql,
    `SELECT ${messageColumns(schema)} ${FROM} WHERE m.hash >= ? AND m.hash < ?${hidden ? ` AND ${hidden.where}` : ''} ORDER BY m.hash LIMIT ?`,
    hidden ? [p, `${p}g`, hidden.param, n] : [p, `${p}g`, n],
    readMessage,
  );
}

/** In the order of `ids` (unknown ids skipped, duplicates once). */
const safeIds = (ids: readonly number[]): number[] => [...new Set(ids.filter((i) => Number.isSafeInteger(i)))];

export function messagesByIds(sql: Sql, schema: SchemaInfo, ids: readonly number[]): MessageRow[] {
  const wanted = safeIds(ids);
  if (!wanted.length) return [];
  const rows = mapRows(
    sql,
    `SELECT ${messageColumns(schema)} ${FROM} WHERE m.id IN (SELECT value FROM json_each(?))`,
    [jsonList(wanted)],
    readMessage,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return wanted.flatMap((id) => byId.get(id) ?? []);
}

export function attachmentsForMessages(sql: Sql, schema: SchemaInfo, ids: readonly number[]): AttachmentRow[] {
  const wanted = safeIds(ids);
  if (!wanted.length) return [];
  return mapRows(
    sql,
    `SELECT ${attachmentColumns(schema)} FROM ${attachmentFrom(schema)}
     WHERE a.message_id IN (SELECT value FROM json_each(?)) ORDER BY a.message_id ASC, a.id ASC`,
    [jsonList(wanted)],
    readAttachment,
  );
}

/** Reactions (v6+) on the given message hashes, by hash then insertion. */
export function reactionsForHashes(
  sql: Sql,
  schema: SchemaInfo,
  hashes: readonly string[],
  hiddenIds?: readonly number[],
): ReactionRow[] {
  if (!schema.reactions) return [];
  const wanted = [...new Set(hashes.filter((h) => typeof h === 'string'))];
  if (!wanted.length) return [];
  // reactions.conversation_id exists wherever reactions do (v6): no scan of the hidden conversations' messages.
  const hidden = notHidden('conversation_id', hiddenIds);
  return sql
    .all(
      `SELECT message_hash, emoji, actor FROM reactions WHERE message_hash IN (SELECT value FROM json_each(?))${
        hidden ? ` AND ${hidden.where}` : ''
      } ORDER BY message_hash ASC, id ASC`,
      hidden ? [jsonList(wanted), hidden.param] : [jsonList(wanted)],
    )
    .map((r) => ({ messageHash: str(r.message_hash), emoji: str(r.emoji), actor: str(r.actor) }));
}
