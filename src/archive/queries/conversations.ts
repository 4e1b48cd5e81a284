/** Conversation listing (msgbrowse's ListConversations, plus videos and links) and name resolution. */
import type { Row, Sql } from '../connection';
import { exprs, type SchemaInfo } from '../schema';
import type { ConversationRow, ResolveResult } from '../types';
import { num, str } from './rows';

function conversationsSql(schema: SchemaInfo): string {
  const e = exprs(schema);
  const attJoin = schema.attachmentConversationId ? '' : 'JOIN messages m ON m.id = a.message_id';
  const linkJoin = schema.linkConversationId ? '' : 'JOIN messages m ON m.id = l.message_id';
  return `
WITH agg AS (
  SELECT conversation_id AS cid, COUNT(*) AS n, MAX(ts_unix) AS last_unix FROM messages GROUP BY conversation_id
), att AS (
  SELECT ${e.attConv} AS cid,
         SUM(a.kind = 'image') AS images, SUM(a.kind = 'file') AS files, SUM(a.kind = 'video') AS videos
  FROM attachments a ${attJoin} GROUP BY ${e.attConv}
), lnk AS (
  SELECT ${e.linkConv} AS cid, COUNT(DISTINCT l.url) AS links FROM links l ${linkJoin} GROUP BY ${e.linkConv}
)
SELECT c.id AS id, c.name AS name, ${e.convSource} AS source,
  COALESCE(agg.n, 0) AS message_count, COALESCE(agg.last_unix, 0) AS last_unix,
  COALESCE((SELECT ts FROM messages WHERE conversation_id = c.id ORDER BY ts_unix ASC, id ASC LIMIT 1), '') AS first_ts,
  COALESCE((SELECT ts FROM messages WHERE conversation_id = c.id ORDER BY ts_unix DESC, id DESC LIMIT 1), '') AS last_ts,
  COALESCE(att.images, 0) AS images, COALESCE(att.files, 0) AS files, COALESCE(att.videos, 0) AS videos,
  COALESCE(lnk.links, 0) AS links
FROM conversations c
LEFT JOIN agg ON agg.cid = c.id
LEFT JOIN att ON att.cid = c.id
LEFT JOIN lnk ON lnk.cid = c.id
ORDER BY last_unix DESC, c.name ASC, source ASC, c.id ASC`;
}

function toConversation(r: Row): ConversationRow {
  return {
    id: num(r.id),
    name: str(r.name),
    source: str(r.source),
    messageCount: num(r.message_count),
    firstTs: str(r.first_ts),
    lastTs: str(r.last_ts),
    lastUnix: num(r.last_unix),
    images: num(r.images),
    files: num(r.files),
    videos: num(r.videos),
    links: num(r.links),
  };
}

/** Loose key for name matching: trimmed, case-insensitive, diacritics folded (`Zoë` ~ `zoe`). */
export function nameKey(s: string): string {
  return s
    .replace(/\p{Cf}/gu, '')
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .normalize('NFC')
    .trim()
    .toLocaleLowerCase('en-US');
}

/** A name as typed from memory ("Lisbon Trip 🏖️" → "lisbon trip"): what an exclusion entry is matched by. */
export function looseNameKey(s: string): string {
  return nameKey(s.replace(/\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Cf}|\uFE0E|\uFE0F/gu, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

export function listConversations(sql: Sql, schema: SchemaInfo): ConversationRow[] {
  return sql.all(conversationsSql(schema)).map(toConversation);
}

export function filterConversations(
  all: ConversationRow[],
  filter: { source?: string; nameContains?: string } = {},
): ConversationRow[] {
  let rows = all;
  if (filter.source !== undefined && filter.source !== '') rows = rows.filter((c) => c.source === filter.source);
  if (filter.nameContains !== undefined && filter.nameContains.trim() !== '') {
    const needle = nameKey(filter.nameContains);
    rows = rows.filter((c) => nameKey(c.name).includes(needle));
  }
  return rows;
}

/** Levenshtein distance over code points. */
function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  if (!x.length) return y.length;
  if (!y.length) return x.length;
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[y.length];
}

const MAX_SUGGESTIONS = 5;

/**
 * How far folded name `k` is from folded query `q`: 0 equal, 1+ a substring either way (an empty `k` only with
 * `emptyName`), 2 + a small edit distance, undefined when too far.
 */
export function closeness(q: string, k: string, emptyName = true): number | undefined {
  if (k === q) return 0;
  if (q !== '' && (emptyName || k !== '') && (k.includes(q) || q.includes(k)))
    return 1 + Math.abs(k.length - q.length) / 1000;
  const d = editDistance(q, k);
  return d > Math.max(2, Math.floor(Math.max([...q].length, [...k].length) / 2)) ? undefined : 2 + d;
}

/** The closest conversation names to `name`: same name elsewhere first, then substrings, then edit distance. */
export function suggest(all: ConversationRow[], name: string): ConversationRow[] {
  const q = nameKey(name);
  const scored: { c: ConversationRow; score: number }[] = [];
  for (const c of all) {
    const score = closeness(q, nameKey(c.name));
    if (score !== undefined) scored.push({ c, score });
  }
  scored.sort((a, b) => a.score - b.score || b.c.lastUnix - a.c.lastUnix || a.c.id - b.c.id);
  return scored.slice(0, MAX_SUGGESTIONS).map((s) => s.c);
}

/** The exact name first, then the folded one; never guesses between sources (`ambiguous`). */
export function resolveConversation(all: ConversationRow[], name: string, source?: string): ResolveResult {
  const inSource = (c: ConversationRow): boolean => source === undefined || source === '' || c.source === source;
  let hits = all.filter((c) => c.name === name && inSource(c));
  if (!hits.length) {
    const k = nameKey(name);
    hits = all.filter((c) => nameKey(c.name) === k && inSource(c));
  }
  if (hits.length === 1) return { kind: 'found', conversation: hits[0] };
  if (hits.length > 1) return { kind: 'ambiguous', candidates: hits };
  return { kind: 'not_found', suggestions: suggest(all, name) };
}
