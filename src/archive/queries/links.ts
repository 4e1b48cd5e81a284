/**
 * Link gallery: one row per URL with its occurrence count and earliest occurrence (ties → lowest
 * message id, then link id: deterministic, not plan-dependent). The domain filter matches the
 * domain and its subdomains. Order: domain ASC, count DESC, ts_unix ASC, url ASC; limit+1 → hasMore.
 */
import type { Param, Sql } from '../connection';
import { exprs, type SchemaInfo } from '../schema';
import type { LinkOptions, LinkRow } from '../types';
import { hasValue, notHidden, num, positiveLimit, str } from './rows';

/** Lowercase, trimmed, without a leading `www.` or trailing dot (how msgbrowse stores link domains). */
export function canonicalDomain(d: string): string {
  let s = d.trim().toLowerCase();
  if (s.startsWith('www.')) s = s.slice(4);
  return s.replace(/\.+$/, '');
}

export function links(sql: Sql, schema: SchemaInfo, opts: LinkOptions, hiddenIds?: readonly number[]): { items: LinkRow[]; hasMore: boolean } {
  const limit = positiveLimit(opts.limit);
  const e = exprs(schema);
  const needMessages = !schema.linkConversationId || !schema.linkTsUnix;
  const where: string[] = [];
  const params: Param[] = [];
  const d = opts.domain === undefined ? '' : canonicalDomain(opts.domain);
  if (d !== '') {
    where.push(`(l.domain = ? OR substr(l.domain, -(length(?) + 1)) = '.' || ?)`);
    params.push(d, d, d);
  }
  if (opts.conversationId !== undefined) {
    where.push(`${e.linkConv} = ?`);
    params.push(opts.conversationId);
  }
  if (hasValue(opts.source)) {
    where.push(
      schema.conversationSource
        ? `${e.linkConv} IN (SELECT id FROM conversations WHERE source = ?)`
        : `'signal' = ?`,
    );
    params.push(opts.source);
  }
  if (opts.startUnix !== undefined) {
    where.push(`${e.linkTs} >= ?`);
    params.push(opts.startUnix);
  }
  if (opts.endUnix !== undefined) {
    where.push(`${e.linkTs} <= ?`);
    params.push(opts.endUnix);
  }
  const hidden = notHidden(e.linkConv, hiddenIds);
  if (hidden) {
    where.push(hidden.where);
    params.push(hidden.param);
  }
  const rows = sql.all(
    `WITH scoped AS (
       SELECT l.id AS link_id, l.url AS url, l.domain AS domain, l.message_id AS message_id,
              ${e.linkConv} AS conversation_id, ${e.linkTs} AS ts_unix
       FROM links l ${needMessages ? 'JOIN messages m ON m.id = l.message_id' : ''}
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ), ranked AS (
       SELECT *, COUNT(*) OVER (PARTITION BY url) AS cnt,
              ROW_NUMBER() OVER (PARTITION BY url ORDER BY ts_unix ASC, message_id ASC, link_id ASC) AS rn
       FROM scoped
     )
     SELECT r.url AS url, r.domain AS domain, r.cnt AS cnt, r.message_id AS message_id,
            r.conversation_id AS conversation_id, c.name AS conversation,
            ${e.convSource} AS source, m.ts AS ts, r.ts_unix AS ts_unix, m.hash AS message_hash
     FROM ranked r
     JOIN conversations c ON c.id = r.conversation_id
     JOIN messages m ON m.id = r.message_id
     WHERE r.rn = 1
     ORDER BY r.domain ASC, r.cnt DESC, r.ts_unix ASC, r.url ASC
     LIMIT ?`,
    [...params, limit + 1],
  );
  const items: LinkRow[] = rows.map((r) => ({
    url: str(r.url),
    domain: str(r.domain),
    count: num(r.cnt),
    messageId: num(r.message_id),
    messageHash: str(r.message_hash),
    conversationId: num(r.conversation_id),
    conversation: str(r.conversation),
    source: str(r.source),
    ts: str(r.ts),
    tsUnix: num(r.ts_unix),
  }));
  return { items: items.slice(0, limit), hasMore: items.length > limit };
}
