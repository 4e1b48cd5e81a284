/** msgbrowse GetContext: up to `window` messages before the target, the target, up to `window` after. */
import { mapRows, type Sql } from '../connection';
import type { SchemaInfo } from '../schema';
import type { MessageRow } from '../types';
import { messageColumns, num, readMessage, statement } from './rows';

export function context(sql: Sql, schema: SchemaInfo, messageId: number, window: number): MessageRow[] | undefined {
  const w = Number.isFinite(window) ? Math.max(0, Math.floor(window)) : 0;
  const target = sql.get('SELECT conversation_id, ts_unix FROM messages WHERE id = ?', [messageId]);
  if (!target) return undefined;
  const conv = num(target.conversation_id);
  const t = num(target.ts_unix);
  const before = mapRows(
    sql,
    statement(
      schema,
      'context:before',
      () => `SELECT ${messageColumns(schema)} FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE m.conversation_id = ? AND (m.ts_unix < ? OR (m.ts_unix = ? AND m.id <= ?))
       ORDER BY m.ts_unix DESC, m.id DESC LIMIT ?`,
    ),
    [conv, t, t, messageId, w + 1],
    readMessage,
  );
  const after = mapRows(
    sql,
    statement(
      schema,
      'context:after',
      () => `SELECT ${messageColumns(schema)} FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE m.conversation_id = ? AND (m.ts_unix > ? OR (m.ts_unix = ? AND m.id > ?))
       ORDER BY m.ts_unix ASC, m.id ASC LIMIT ?`,
    ),
    [conv, t, t, messageId, w],
    readMessage,
  );
  return [...before.reverse(), ...after];
}
