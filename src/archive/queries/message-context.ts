/** msgbrowse GetContext: up to `window` messages before the target, the target, up to `window` after. */
import { mapRows, type Sql } from '../connection';
import type { SchemaInfo } from '../schema';
import type { MessageRow } from '../types';
import { messageColumns, num, readMessage, statement } from './rows';

/** `hiddenIds`: a target in one of these conversations answers as an unknown id. */
export function context(
  sql: Sql,
  schema: SchemaInfo,
  messageId: number,
  window: number,
  hiddenIds?: readonly number[],
): MessageRow[] | undefined {
  const w = Number.isFinite(window) ? Math.max(0, Math.floor(window)) : 0;
  const target = sql.get('SELECT conversation_id, ts_unix FROM messages WHERE id = ?', [messageId]);
  if (!target) return undefined;
  const conv = num(target.conversation_id);
  if (hiddenIds?.includes(conv)) return undefined;
  const t = num(target.ts_unix);
  // Row values, read as a range of idx_messages_conv_ts from the target's time: spelled out with OR, SQLite read every
  // message of the conversation on the far side of the target.
  const side = (dir: 'before' | 'after', limit: number) =>
    mapRows(
      sql,
      statement(schema, `context:${dir}`, () => {
        const [cmp, order] = dir === 'before' ? ['<=', 'DESC'] : ['>', 'ASC'];
        return `SELECT ${messageColumns(schema)} FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE m.conversation_id = ? AND (m.ts_unix, m.id) ${cmp} (?, ?)
       ORDER BY m.ts_unix ${order}, m.id ${order} LIMIT ?`;
      }),
      [conv, t, messageId, limit],
      readMessage,
    );
  const before = side('before', w + 1);
  const after = side('after', w);
  return [...before.reverse(), ...after];
}
