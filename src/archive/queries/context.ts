/** msgbrowse GetContext: up to `window` messages before the target, the target, up to `window` after. */
import type { Sql } from '../connection';
import type { SchemaInfo } from '../schema';
import type { MessageRow } from '../types';
import { messageColumns, num, toMessage } from './rows';

export function context(sql: Sql, schema: SchemaInfo, messageId: number, window: number): MessageRow[] | undefined {
  const w = Number.isFinite(window) ? Math.max(0, Math.floor(window)) : 0;
  const target = sql.get('SELECT conversation_id, ts_unix FROM messages WHERE id = ?', [messageId]);
  if (!target) return undefined;
  const conv = num(target.conversation_id);
  const t = num(target.ts_unix);
  const cols = messageColumns(schema);
  const before = sql
    .all(
      `SELECT ${cols} FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE m.conversation_id = ? AND (m.ts_unix < ? OR (m.ts_unix = ? AND m.id <= ?))
       ORDER BY m.ts_unix DESC, m.id DESC LIMIT ?`,
      [conv, t, t, messageId, w + 1],
    )
    .map(toMessage);
  const after = sql
    .all(
      `SELECT ${cols} FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE m.conversation_id = ? AND (m.ts_unix > ? OR (m.ts_unix = ? AND m.id > ?))
       ORDER BY m.ts_unix ASC, m.id ASC LIMIT ?`,
      [conv, t, t, messageId, w],
    )
    .map(toMessage);
  return [...before.reverse(), ...after];
}
