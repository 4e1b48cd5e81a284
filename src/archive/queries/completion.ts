/** What completions need beyond the listings: sender names, and message ids starting with typed digits. */
import type { Sql } from '../connection';
import { distinctSenders } from './senders';
import { jsonList, num } from './rows';

/** msgbrowse's sender of system rows. */
const SYSTEM_SENDER = 'No-Sender';

/** Senders with a message outside the hidden conversations, in byte order. */
export function senderNames(sql: Sql, hiddenIds: readonly number[]): string[] {
  const all = distinctSenders(sql).filter((s) => s !== SYSTEM_SENDER);
  if (!hiddenIds.length) return all;
  const hidden = jsonList(hiddenIds);
  return all.filter(
    (s) =>
      sql.value(
        'SELECT 1 FROM messages m WHERE m.sender = ? AND m.conversation_id NOT IN (SELECT value FROM json_each(?)) LIMIT 1',
        [s, hidden],
      ) !== undefined,
  );
}

/** Ids starting with `prefix` (value v): the rowid ranges [v·10^k, (v+1)·10^k − 1], each one primary-key walk. */
export function messageIdsWithPrefix(
  sql: Sql,
  prefix: string,
  limit: number,
  hiddenIds: readonly number[],
): { ids: number[]; total: number } {
  if (!/^[1-9]\d{0,15}$/.test(prefix)) return { ids: [], total: 0 };
  const max = num(sql.value('SELECT MAX(id) FROM messages'));
  const v = Number(prefix);
  const ids: number[] = [];
  let total = 0;
  const hidden = hiddenIds.length ? jsonList(hiddenIds) : undefined;
  const where = `m.id BETWEEN ? AND ?${hidden ? ' AND m.conversation_id NOT IN (SELECT value FROM json_each(?))' : ''}`;
  for (let scale = 1; v * scale <= max && Number.isSafeInteger(v * scale); scale *= 10) {
    const lo = v * scale;
    const hi = Math.min((v + 1) * scale - 1, max);
    const params = hidden ? [lo, hi, hidden] : [lo, hi];
    total += num(sql.value(`SELECT COUNT(*) FROM messages m WHERE ${where}`, params));
    if (ids.length < limit) {
      for (const r of sql.all(`SELECT m.id AS id FROM messages m WHERE ${where} ORDER BY m.id LIMIT ?`, [
        ...params,
        limit - ids.length,
      ]))
        ids.push(num(r.id));
    }
  }
  return { ids, total };
}
