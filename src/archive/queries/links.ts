/**
 * Link gallery: one row per URL with its occurrence count and earliest occurrence (ties → lowest
 * message id, then link id: deterministic, not plan-dependent). The domain filter matches the
 * domain and its subdomains. Order: domain ASC, count DESC, ts_unix ASC, url ASC; limit+1 → hasMore.
 */
import type { Param, Row, Sql } from '../connection';
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
function linkFilter(
  schema: SchemaInfo,
  opts: LinkOptions,
  hiddenIds?: readonly number[],
): { where: string[]; params: Param[] } {
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
      schema.conversationSource ? `${e.linkConv} IN (SELECT id FROM conversations WHERE source = ?)` : `'signal' = ?`,
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

/** Domain by domain: how many of the first domains a broad listing takes, attempt by attempt, before grouping all. */
const DOMAIN_STEPS = [1, 4, 16, 64] as const;

/**
 * The gallery's statements (exported for the native-parity and plan tests):
 * - `general` (with `params`) ranks every occurrence of each URL with window functions, joins each URL's first
 *   occurrence to its conversation and message, then orders and limits. It is the definition.
 * - `lateJoin` (with `params`) ranks the same way but orders and limits before it LEFT JOINs the best rows'
 *   conversation and message (`joined` says whether both were found): for archives without the gallery index.
 * - `grouped` (with `groupedParams`), when the archive has msgbrowse's gallery index and columns
 *   (`SchemaInfo.linkGallery`), gives `general`'s rows too. It groups the filtered links by URL in the order of
 *   `idx_links_gallery(url, ts_unix, …)` (no sort), orders the groups and limits, then finds only the best URLs'
 *   first occurrences, each one search of that index by URL, and LEFT JOINs as `lateJoin` does. A group's time is
 *   its MIN; its domain is its MIN when every link of the URL has the same domain, else its first occurrence's.
 * - `upTo` (with `upToParams(k)`), for a listing no filter narrows (hidden conversations aside): the grouped
 *   statement for only the URLs that have a link on one of the first `k` domains (`idx_links_domain`'s range up to
 *   the k-th, found by k seeks in SQL), keeping the groups whose own domain is among them. Those are all the groups
 *   on those domains, with their whole counts; as the gallery is ordered by domain first, once they are more than
 *   the limit, its first rows are among them. `beyond` (with `[k]`) says whether any domain comes after the k-th.
 *
 * On 1M messages (29,684 links on 15 domains), an unfiltered list_links of 50 took 73 ms in our engine with the
 * window statement, 26 ms grouped, 3.5–9 ms by domain (with a source or time filter: grouped, 12 ms).
 */
export function linkStatements(
  schema: SchemaInfo,
  opts: LinkOptions,
  hiddenIds?: readonly number[],
): {
  general: string;
  lateJoin: string;
  params: Param[];
  grouped?: string;
  groupedParams: Param[];
  upTo?: string;
  upToParams: (k: number) => Param[];
  beyond: string;
} {
  const limit = positiveLimit(opts.limit);
  const e = exprs(schema);
  const needMessages = !schema.linkConversationId || !schema.linkTsUnix;
  const { where, params } = linkFilter(schema, opts, hiddenIds);
  const from = `links l ${needMessages ? 'JOIN messages m ON m.id = l.message_id' : ''}`;
  const and = (extra: string[]) => ([...where, ...extra].length ? `WHERE ${[...where, ...extra].join(' AND ')}` : '');
  const ranked = `WITH scoped AS (
       SELECT l.id AS link_id, l.url AS url, l.domain AS domain, l.message_id AS message_id,
              ${e.linkConv} AS conversation_id, ${e.linkTs} AS ts_unix
       FROM ${from}
       ${and([])}
     ), ranked AS (
       SELECT *, COUNT(*) OVER (PARTITION BY url) AS cnt,
              ROW_NUMBER() OVER (PARTITION BY url ORDER BY ts_unix ASC, message_id ASC, link_id ASC) AS rn
       FROM scoped
     )`;
  const columns = `r.url AS url, r.domain AS domain, r.cnt AS cnt, r.message_id AS message_id,
            r.conversation_id AS conversation_id, c.name AS conversation,
            ${e.convSource} AS source, m.ts AS ts, r.ts_unix AS ts_unix, m.hash AS message_hash`;
  const order = 'r.domain ASC, r.cnt DESC, r.ts_unix ASC, r.url ASC';
  // The k-th domain (k = the statement's first parameter), by one seek of idx_links_domain per domain.
  const kth = `RECURSIVE d(domain, n) AS (
       SELECT (SELECT MIN(x.domain) FROM links x), 1
       UNION ALL
       SELECT (SELECT MIN(x.domain) FROM links x WHERE x.domain > d.domain), d.n + 1 FROM d WHERE d.n < ? AND d.domain IS NOT NULL
     ), bound AS (SELECT domain FROM d WHERE domain IS NOT NULL ORDER BY n DESC LIMIT 1)`;
  // The first filtered occurrence of the URL `url` (a column of the outer query), by the window's order; `pick` is
  // the column it gives.
  const first = (pick: string, url: string) => `(SELECT ${pick} FROM links l
         ${and([`l.url = ${url}`])}
         ORDER BY l.ts_unix ASC, l.message_id ASC, l.id ASC LIMIT 1)`;
  const grouped = (upTo: boolean) => `WITH ${upTo ? `${kth},` : ''} g AS (
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
            ${e.convSource} AS source, m.ts AS ts, r.ts_unix AS ts_unix, m.hash AS message_hash,
            c.id IS NOT NULL AND m.id IS NOT NULL AS joined
     FROM firsts r
     JOIN links l ON l.id = r.link_id
     LEFT JOIN messages m ON m.id = l.message_id
     LEFT JOIN conversations c ON c.id = l.conversation_id
     ORDER BY ${order}`;
  // Broad: nothing but hidden conversations narrows the links (a narrower filter could leave few of them on the
  // first domains, and the steps would read domain after domain for nothing).
  const broad =
    canonicalDomain(opts.domain ?? '') === '' &&
    opts.conversationId === undefined &&
    !hasValue(opts.source) &&
    opts.startUnix === undefined &&
    opts.endUnix === undefined;
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
    ...(schema.linkGallery ? { grouped: grouped(false) } : {}),
    // The placeholders in order: g's filters, placed's first occurrence's, the limit, firsts' first occurrence's.
    groupedParams: [...params, ...params, limit + 1, ...params],
    ...(schema.linkGallery && broad ? { upTo: grouped(true) } : {}),
    // k, g's filters, its URLs' filters, placed's first occurrence's, the limit, firsts'.
    upToParams: (k) => [k, ...params, ...params, ...params, limit + 1, ...params],
    beyond: `WITH ${kth} SELECT EXISTS (SELECT 1 FROM links x WHERE x.domain > (SELECT domain FROM bound))`,
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
    // The first domain, then 4, 16, 64: done once more groups than the limit are placed, or no domain is left;
    // past that, one grouping of every URL.
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
  // When one of the best rows has lost its message or conversation (a damaged archive), the general statement
  // answers, which drops such rows before the limit.
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
