/** Archive summary: counts, per-source message counts, first/last timestamps. */
import type { Sql } from '../connection';
import { exprs, type SchemaInfo } from '../schema';
import { num, str } from './rows';

export interface SummaryCounts {
  conversations: number;
  messages: number;
  sources: Record<string, number>;
  firstTs: string;
  lastTs: string;
}

export function summaryCounts(sql: Sql, schema: SchemaInfo): SummaryCounts {
  const e = exprs(schema);
  // Per-conversation counts come from the (conversation_id, ts_unix) index; a conversation's
  // messages share its source, so no scan of the messages table is needed.
  const perSource = sql.all(
    `SELECT ${e.convSource} AS source, COUNT(*) AS conversations, COALESCE(SUM(agg.n), 0) AS messages
     FROM conversations c
     LEFT JOIN (SELECT conversation_id AS cid, COUNT(*) AS n FROM messages GROUP BY conversation_id) agg ON agg.cid = c.id
     GROUP BY 1 ORDER BY 1`,
  );
  const sources: Record<string, number> = {};
  let conversations = 0;
  for (const r of perSource) {
    sources[str(r.source)] = num(r.messages);
    conversations += num(r.conversations);
  }
  const messages = num(sql.value('SELECT COUNT(*) FROM messages'));
  const firstTs = str(sql.value('SELECT ts FROM messages ORDER BY ts_unix ASC, id ASC LIMIT 1'));
  const lastTs = str(sql.value('SELECT ts FROM messages ORDER BY ts_unix DESC, id DESC LIMIT 1'));
  return { conversations, messages, sources, firstTs, lastTs };
}
