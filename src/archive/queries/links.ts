/** Link gallery: one row per URL with its count and earliest occurrence (ties: lowest message id, then link id). */
import type { Param, Row, Sql } from '../connection';
import { exprs, type SchemaInfo } from '../schema';
import type { LinkOptions, LinkRow } from '../types';
import { hasValue, num, positiveLimit, str, Where } from './rows';

/** Lowercase, trimmed, without a leading `www.` or trailing dot (how msgbrowse stores link domains). */
function canonicalDomain(d: string): string {
  let s = d.trim().toLowerCase();
  if (s.startsWith('www.')) s = s.slice(4);
  return s.replace(/\.+$/, '');
}

/** WHERE fragments (alias l, and m when links lack their own conversation and time) for the gallery's filters. */
function linkFilter(schema: SchemaInfo, opts: LinkOptions, hiddenIds?: readonly number[]): Where {
  const e = exprs(schema);
  const d = opts.domain === undefined ? '' : canonicalDomain(opts.domain);
  const w = new Where();
  if (d !== '') w.must(`(l.domain = ? OR substr(l.domain, -(length(?) + 1)) = '.' || ?)`, d, d, d);
  w.add(`${e.linkConv} = ?`, opts.conversationId);
  w.add(
    schema.conversationSource ? `${e.linkConv} IN (SELECT id FROM conversations WHERE source = ?)` : `'signal' = ?`,
    opts.source,
  );
  w.add(`${e.linkTs} >= ?`, opts.startUnix);
  w.add(`${e.linkTs} <= ?`, opts.endUnix);
  return w.notHidden(e.linkConv, hiddenIds);
}

/** How many of the first domains a broad listing takes, attempt by attempt, before grouping every URL. */
const DOMAIN_STEPS = [1, 4, 16, 64] as const;

/** The k-th domain (k = the statement's first parameter), by one seek of idx_links_domain per domain. */
const KTH_DOMAIN = `RECURSIVE d(domain, n) AS (
       SELECT (SELECT MIN(x.domain) FROM links x), 1
       UNION ALL
       SELECT (SELECT MIN(x.domain) FROM links x WHERE x.domain > d.domain), d.n + 1 FROM d WHERE d.n < ? AND d.domain IS NOT NULL
     ), bound AS (SELECT domain FROM d WHERE domain IS NOT NULL ORDER BY n DESC LIMIT 1)`;

const ORDER = 'r.domain ASC, r.cnt DESC, r.ts_unix ASC, r.url ASC';

/** `and(extra)`: the WHERE clause of the filters and `extra`. */
type And = (extra: string[]) => string;

/** Every occurrence of each URL in scope, ranked by a window (`rn` 1: its first), with the URL's count. */
function rankedSql(schema: SchemaInfo, and: And): string {
  const e = exprs(schema);
  const needMessages = !schema.linkConversationId || !schema.linkTsUnix;
  return `WITH scoped AS (
       SELECT l.id AS link_id, l.url AS url, l.domain AS domain, l.message_id AS message_id,
              ${e.linkConv} AS conversation_id, ${e.linkTs} AS ts_unix
       FROM links l ${needMessages ? 'JOIN messages m ON m.id = l.message_id' : ''}
       ${and([])}
     ), ranked AS (
       SELECT *, COUNT(*) OVER (PARTITION BY url) AS cnt,
              ROW_NUMBER() OVER (PARTITION BY url ORDER BY ts_unix ASC, message_id ASC, link_id ASC) AS rn
       FROM scoped
     )`;
}

/** Links grouped by URL in `idx_links_gallery`'s order (no sort); only the best groups' first links are joined. */
function groupedSql(schema: SchemaInfo, and: And, upTo: boolean): string {
  // The first filtered occurrence of the outer query's URL `url`, by the window's order; `pick` is its column.
  const first = (pick: string, url: string) => `(SELECT ${pick} FROM links l
         ${and([`l.url = ${url}`])}
         ORDER BY l.ts_unix ASC, l.message_id ASC, l.id ASC LIMIT 1)`;
  return `WITH ${upTo ? `${KTH_DOMAIN},` : ''} g AS (
       SELECT l.url AS url, COUNT(*) AS cnt, MIN(l.ts_unix) AS ts_unix, MIN(l.domain) AS domain,
              MIN(l.domain) IS MAX(l.domain) AS one_domain
       FROM links l
       ${and(upTo ? [`l.url IN (SELECT l.url FROM links l ${and(['l.domain <= (SELECT domain FROM bound)'])})`] : [])}
       GROUP BY l.url
     ), placed AS (
       SELECT u.url AS url, u.cnt AS cnt, u.ts_unix AS ts_unix,
              CASE WHEN u.one_domain THEN u.domain ELSE ${first('l.domain', 'u.url')} END AS domain
       FROM g u
     ), best AS (
       SELECT * FROM placed ${upTo ? 'WHERE domain <= (SELECT domain FROM bound)' : ''}
       ORDER BY domain ASC, cnt DESC, ts_unix ASC, url ASC
       LIMIT ?
     ), firsts AS (
       SELECT b.*, ${first('l.id', 'b.url')} AS link_id FROM best b
     )
     SELECT r.url AS url, r.domain AS domain, r.cnt AS cnt, l.message_id AS message_id,
            l.conversation_id AS conversation_id, c.name AS conversation,
            ${exprs(schema).convSource} AS source, m.ts AS ts, r.ts_unix AS ts_unix, m.hash AS message_hash,
            c.id IS NOT NULL AND m.id IS NOT NULL AS joined
     FROM firsts r
     JOIN links l ON l.id = r.link_id
     LEFT JOIN messages m ON m.id = l.message_id
     LEFT JOIN conversations c ON c.id = l.conversation_id
     ORDER BY ${ORDER}`;
}

/** No filter but hidden conversations: with one, few links could be on the first domains, read for nothing. */
function isBroad(opts: LinkOptions): boolean {
  return (
    canonicalDomain(opts.domain ?? '') === '' &&
    opts.conversationId === undefined &&
    !hasValue(opts.source) &&
    opts.startUnix === undefined &&
    opts.endUnix === undefined
  );
}

/**
 * The gallery's statements: `general` (window functions, joined, then limited) is the definition; `lateJoin` limits
 * before it LEFT JOINs; `grouped` (`SchemaInfo.linkGallery`) gives the same rows from the gallery index; `upTo(k)`
 * groups only the URLs on the first k domains, whose groups are the gallery's first rows once more than the limit.
 */
export function linkStatements(schema: SchemaInfo, opts: LinkOptions, hiddenIds?: readonly number[]) {
  const limit = positiveLimit(opts.limit);
  const e = exprs(schema);
  const { where, params } = linkFilter(schema, opts, hiddenIds);
  const and: And = (extra) => ([...where, ...extra].length ? `WHERE ${[...where, ...extra].join(' AND ')}` : '');
  const ranked = rankedSql(schema, and);
  const columns = `r.url AS url, r.domain AS domain, r.cnt AS cnt, r.message_id AS message_id,
            r.conversation_id AS conversation_id, c.name AS conversation,
            ${e.convSource} AS source, m.ts AS ts, r.ts_unix AS ts_unix, m.hash AS message_hash`;
  return {
    general: `${ranked}
     SELECT ${columns}
     FROM ranked r
     JOIN conversations c ON c.id = r.conversation_id
     JOIN messages m ON m.id = r.message_id
     WHERE r.rn = 1
     ORDER BY ${ORDER}
     LIMIT ?`,
    lateJoin: `${ranked}
     SELECT ${columns}, c.id IS NOT NULL AND m.id IS NOT NULL AS joined
     FROM (SELECT * FROM ranked r WHERE rn = 1 ORDER BY ${ORDER} LIMIT ?) r
     LEFT JOIN conversations c ON c.id = r.conversation_id
     LEFT JOIN messages m ON m.id = r.message_id
     ORDER BY ${ORDER}`,
    params: [...params, limit + 1],
    ...(schema.linkGallery ? { grouped: groupedSql(schema, and, false) } : {}),
    // The placeholders in order: g's filters, placed's first occurrence's, the limit, firsts' first occurrence's.
    groupedParams: [...params, ...params, limit + 1, ...params],
    ...(schema.linkGallery && isBroad(opts) ? { upTo: groupedSql(schema, and, true) } : {}),
    // k, g's filters, its URLs' filters, placed's first occurrence's, the limit, firsts'.
    upToParams: (k: number): Param[] => [k, ...params, ...params, ...params, limit + 1, ...params],
    beyond: `WITH ${KTH_DOMAIN} SELECT EXISTS (SELECT 1 FROM links x WHERE x.domain > (SELECT domain FROM bound))`,
  };
}

export function links(
  sql: Sql,
  schema: SchemaInfo,
  opts: LinkOptions,
  hiddenIds?: readonly number[],
): { items: LinkRow[]; hasMore: boolean } {
  const limit = positiveLimit(opts.limit);
  const q = linkStatements(schema, opts, hiddenIds);
  let rows: Row[] | undefined;
  if (q.upTo) {
    // Done once more groups than the limit are placed, or no domain is left; past that, one grouping of every URL.
    for (const k of DOMAIN_STEPS) {
      const placed = sql.all(q.upTo, q.upToParams(k));
      if (placed.length > limit || num(sql.value(q.beyond, [k])) !== 1) {
        rows = placed;
        break;
      }
    }
  }
  if (q.grouped) rows ??= sql.all(q.grouped, q.groupedParams);
  rows ??= sql.all(q.lateJoin, q.params);
  // A best row that lost its message or conversation (a damaged archive): the general statement drops it first.
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
