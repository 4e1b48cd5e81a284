/** Point lookups: messages by id/hash, their attachments, reactions by message hash. */
import type { Sql } from '../connection';
import type { SchemaInfo } from '../schema';
import type { AttachmentRow, MessageRow, ReactionRow } from '../types';
import { attachmentColumns, attachmentFrom, jsonList, messageColumns, str, toAttachment, toMessage } from './rows';

const FROM = 'FROM messages m JOIN conversations c ON c.id = m.conversation_id';

export function messageById(sql: Sql, schema: SchemaInfo, id: number): MessageRow | undefined {
  const r = sql.get(`SELECT ${messageColumns(schema)} ${FROM} WHERE m.id = ?`, [id]);
  return r ? toMessage(r) : undefined;
}

export function messageByHash(sql: Sql, schema: SchemaInfo, hash: string): MessageRow | undefined {
  const r = sql.get(`SELECT ${messageColumns(schema)} ${FROM} WHERE m.hash = ?`, [hash]);
  return r ? toMessage(r) : undefined;
}

/** Messages for `ids` in the order of the input (unknown ids skipped, duplicates once). */
export function messagesByIds(sql: Sql, schema: SchemaInfo, ids: readonly number[]): MessageRow[] {
  const wanted = [...new Set(ids.filter((i) => Number.isSafeInteger(i)))];
  if (!wanted.length) return [];
  const rows = sql
    .all(`SELECT ${messageColumns(schema)} ${FROM} WHERE m.id IN (SELECT value FROM json_each(?))`, [jsonList(wanted)])
    .map(toMessage);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return wanted.flatMap((id) => {
    const r = byId.get(id);
    return r ? [r] : [];
  });
}

/** Attachments of the given messages, ordered by message id then attachment id. */
export function attachmentsForMessages(sql: Sql, schema: SchemaInfo, ids: readonly number[]): AttachmentRow[] {
  const wanted = [...new Set(ids.filter((i) => Number.isSafeInteger(i)))];
  if (!wanted.length) return [];
  return sql
    .all(
      `SELECT ${attachmentColumns(schema)} FROM ${attachmentFrom(schema)}
       WHERE a.message_id IN (SELECT value FROM json_each(?)) ORDER BY a.message_id ASC, a.id ASC`,
      [jsonList(wanted)],
    )
    .map(toAttachment);
}

/** Reactions on the given message hashes (none before schema v6), ordered by hash then insertion. */
export function reactionsForHashes(sql: Sql, schema: SchemaInfo, hashes: readonly string[]): ReactionRow[] {
  if (!schema.reactions) return [];
  const wanted = [...new Set(hashes.filter((h) => typeof h === 'string'))];
  if (!wanted.length) return [];
  return sql
    .all(
      `SELECT message_hash, emoji, actor FROM reactions
       WHERE message_hash IN (SELECT value FROM json_each(?)) ORDER BY message_hash ASC, id ASC`,
      [jsonList(wanted)],
    )
    .map((r) => ({ messageHash: str(r.message_hash), emoji: str(r.emoji), actor: str(r.actor) }));
}
