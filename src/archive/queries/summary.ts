/** Archive summary: counts and per-source message counts (from the conversation listing), first/last timestamps. */
import type { Sql } from '../connection';
import type { ConversationRow } from '../types';
import { notHidden, str } from './rows';

export interface SummaryCounts {
  conversations: number;
  messages: number;
  sources: Record<string, number>;
  firstTs: string;
  lastTs: string;
}

/** `conversations`: the listing without the `hiddenIds` ones, whose counts already cover every message. */
export function summaryCounts(
  sql: Sql,
  conversations: readonly ConversationRow[],
  hiddenIds: readonly number[] = [],
): SummaryCounts {
  const sources: Record<string, number> = {};
  let messages = 0;
  for (const c of [...conversations].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0))) {
    sources[c.source] = (sources[c.source] ?? 0) + c.messageCount;
    messages += c.messageCount;
  }
  const hidden = notHidden('conversation_id', hiddenIds);
  const edge = (dir: 'ASC' | 'DESC') =>
    str(
      sql.value(
        `SELECT ts FROM messages${hidden ? ` WHERE ${hidden.where}` : ''} ORDER BY ts_unix ${dir}, id ${dir} LIMIT 1`,
        hidden ? [hidden.param] : [],
      ),
    );
  return { conversations: conversations.length, messages, sources, firstTs: edge('ASC'), lastTs: edge('DESC') };
}
