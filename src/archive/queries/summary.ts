/** Archive summary: counts and per-source message counts (from the conversation listing), first/last timestamps. */
import type { Sql } from '../connection';
import type { ConversationRow } from '../types';
import { str } from './rows';

export interface SummaryCounts {
  conversations: number;
  messages: number;
  sources: Record<string, number>;
  firstTs: string;
  lastTs: string;
}

/** `conversations` is the full listing: its counts already cover every message. */
export function summaryCounts(sql: Sql, conversations: readonly ConversationRow[]): SummaryCounts {
  const sources: Record<string, number> = {};
  let messages = 0;
  for (const c of [...conversations].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0))) {
    sources[c.source] = (sources[c.source] ?? 0) + c.messageCount;
    messages += c.messageCount;
  }
  const firstTs = str(sql.value('SELECT ts FROM messages ORDER BY ts_unix ASC, id ASC LIMIT 1'));
  const lastTs = str(sql.value('SELECT ts FROM messages ORDER BY ts_unix DESC, id DESC LIMIT 1'));
  return { conversations: conversations.length, messages, sources, firstTs, lastTs };
}
