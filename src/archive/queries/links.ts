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

/** WHERE fragments (alias l, and m when links lack their own conversation and time) for the gallery's filters. */
function linkFilter(schema: SchemaInfo, opts: LinkOptions, hiddenIds?: readonly number[]): { where: string[]; params: Param[] } {
  const e = exprs(schema);
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
  return { where, params };
}

/**
 * The gallery's statements: `general` joins each URL's first occurrence to its conversation and message, then
 * orders and limits; `lateJoin` orders and limits first (LEFT JOIN, `joined` says whether both were found). Both
 * take `params` (exported for the native-parity test).
 */
export function linkStatements(schema: SchemaInfo, opts: LinkOptions, hiddenIds?: readonly number[]): { general: string; lateJoin: string; params: Param[] } {
  const limit = positiveLimit(opts.limit);
  const e = exprs(schema);
  const needMessages = !schema.linkConversationId || !schema.linkTsUnix;
  const { where, params } = linkFilter(schema, opts, hiddenIds);
  const ranked = `WITH scoped AS (
       SELECT l.id AS link_id, l.url AS url, l.domain AS domain, l.message_id AS message_id,
              ${e.linkConv} AS conversation_id, ${e.linkTs} AS ts_unix
       FROM links l ${needMessages ? 'JOIN messages m ON m.id = l.message_id' : ''}
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ), ranked AS (
       SELECT *, COUNT(*) OVER (PARTITION BY url) AS cnt,
              ROW_NUMBER() OVER (PARTITION BY url ORDER BY ts_unix ASC, message_id ASC, link_id ASC) AS rn
       FROM scoped
     )`;
  const columns = `r.url AS url, r.domain AS domain, r.cnt AS cnt, r.message_id AS message_id,
            r.conversation_id AS conversation_id, c.name AS conversation,
            ${e.convSource} AS source, m.ts AS ts, r.ts_unix AS ts_unix, m.hash AS message_hash`;
  const order = 'r.domain ASC, r.cnt DESC, r.ts_unix ASC, r.url ASC';
  return {
    general: `${ranked}
     SELECT ${columns}
     FROM ranked r
     JOIN conversations c ON c.id = r.conversation_id
     JOIN messages m ON m.id = r.message_id
     WHERE r.rn = 1
     ORDER BY ${order}
     LIMIT ?`,
    lateJoin: `${ranked}
     SELECT ${columns}, c.id IS NOT NULL AND m.id IS NOT NULL AS joined
     FROM (SELECT * FROM ranked r WHERE rn = 1 ORDER BY ${order} LIMIT ?) r
     LEFT JOIN conversations c ON c.id = r.conversation_id
     LEFT JOIN messages m ON m.id = r.message_id
     ORDER BY ${order}`,
    params: [...params, limit + 1],
  };
}

export function links(sql: Sql, schema: SchemaInfo, opts: LinkOptions, hiddenIds?: readonly number[]): { items: LinkRow[]; hasMore: boolean } {
  const limit = positiveLimit(opts.limit);
  const q = linkStatements(schema, opts, hiddenIds);
  // The best rows first, then their conversation and message: joining every distinct URL before the limit was most
  // of the query (1M messages, natively: 120 -> 64 ms). When one of the best rows has lost its message or
  // conversation (a damaged archive), the general statement answers, which drops such rows before the limit.
  let rows = sql.all(q.lateJoin, q.params);
  if (rows.some((r) => num(r.joined) !== 1)) rows = sql.all(q.general, q.params);
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
