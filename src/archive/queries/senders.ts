/**
 * Sender names, resolved the way conversation names are: the stored spelling first, then a trimmed, case- and
 * diacritic-insensitive match, "me" (and a few synonyms) for the archive owner `Me`, and otherwise close names as
 * suggestions — always within the caller's scope (conversation or source), so a typo or a sender who never wrote
 * there is an error, never a silent empty search.
 *
 * Cheap on big archives: the distinct senders come from `idx_messages_sender` by a skip scan (one index seek per
 * distinct name, memoised per open), and per-name counts are index counts (see scope-counts.ts).
 */
import type { Sql } from '../connection';
import type { ScopeFilter, SenderMatch, SenderResolveResult } from '../types';
import { editDistance, nameKey } from './conversations';
import { num, str } from './rows';

/** msgbrowse writes the owner as exactly this sender. */
export const OWNER_SENDER = 'Me';
/** What people call the owner (compared after nameKey folding). */
const OWNER_ALIASES = new Set(['me', 'myself', 'i', 'owner', 'the owner', 'archive owner', 'the archive owner']);
const MAX_SUGGESTIONS = 5;
/** Close names whose scope counts are checked before picking the suggestions. */
const MAX_PROBED = 20;

/** Every distinct `messages.sender`, ascending (binary order), one index seek each. */
export function distinctSenders(sql: Sql): string[] {
  return sql
    .all(
      `WITH RECURSIVE s(name) AS (
         SELECT MIN(sender) FROM messages
         UNION ALL
         SELECT (SELECT MIN(sender) FROM messages WHERE sender > s.name) FROM s WHERE s.name IS NOT NULL
       )
       SELECT name FROM s WHERE name IS NOT NULL`,
    )
    .map((r) => str(r.name));
}

/** The senders of one conversation with their message counts, most messages first (bounded by its size). */
export function conversationSenders(sql: Sql, conversationId: number, limit: number): SenderMatch[] {
  return sql
    .all(
      'SELECT sender, COUNT(*) AS n FROM messages WHERE conversation_id = ? GROUP BY sender ORDER BY n DESC, sender ASC LIMIT ?',
      [conversationId, limit],
    )
    .map((r) => ({ name: str(r.sender), messages: num(r.n) }));
}

/** Close names to `name` (same folded key first, then substrings either way, then small edit distances). */
function closeNames(all: readonly string[], name: string): string[] {
  const q = nameKey(name);
  const scored: { s: string; score: number }[] = [];
  for (const s of all) {
    const k = nameKey(s);
    let score: number;
    if (k === q) score = 0;
    else if (q !== '' && k !== '' && (k.includes(q) || q.includes(k))) score = 1 + Math.abs(k.length - q.length) / 1000;
    else {
      const d = editDistance(q, k);
      const limit = Math.max(2, Math.floor(Math.max([...q].length, [...k].length) / 2));
      if (d > limit) continue;
      score = 2 + d;
    }
    scored.push({ s, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.s < b.s ? -1 : a.s > b.s ? 1 : 0));
  return scored.slice(0, MAX_PROBED).map((x) => x.s);
}

/**
 * Resolve `name` to a stored sender with messages in `scope` (conversation id, source; dates are not part of it).
 * `countIn(sender, scope)` counts a sender's messages in a scope (an index count).
 */
export function resolveSender(
  all: readonly string[],
  name: string,
  scope: ScopeFilter,
  countIn: (sender: string, scope: ScopeFilter) => number,
  sendersOf: (conversationId: number) => SenderMatch[],
): SenderResolveResult {
  const key = nameKey(name);
  let via: 'exact' | 'folded' | 'owner' = 'exact';
  let candidates = all.includes(name) ? [name] : [];
  if (!candidates.length) {
    via = 'folded';
    candidates = all.filter((s) => nameKey(s) === key);
  }
  if (!candidates.length && OWNER_ALIASES.has(key) && all.includes(OWNER_SENDER)) {
    via = 'owner';
    candidates = [OWNER_SENDER];
  }
  const unscoped = scope.conversationId === undefined && (scope.source === undefined || scope.source === '');
  const inScope = candidates.map((s) => ({ name: s, messages: countIn(s, scope) })).filter((c) => c.messages > 0);
  if (inScope.length === 1) return { kind: 'found', sender: inScope[0].name, messages: inScope[0].messages, via };
  if (inScope.length > 1) {
    const exact = inScope.find((c) => c.name === name);
    if (exact) return { kind: 'found', sender: exact.name, messages: exact.messages, via: 'exact' };
    return {
      kind: 'ambiguous',
      candidates: inScope.sort((a, b) => b.messages - a.messages || (a.name < b.name ? -1 : 1)),
    };
  }
  // Nothing in scope: the same name elsewhere in the archive, close names in scope, and (for a conversation) who is there.
  const elsewhere = unscoped
    ? []
    : candidates.map((s) => ({ name: s, messages: countIn(s, {}) })).filter((c) => c.messages > 0);
  const suggestions: SenderMatch[] = [];
  for (const s of closeNames(all, name)) {
    if (candidates.includes(s)) continue;
    const n = countIn(s, scope);
    if (n > 0) suggestions.push({ name: s, messages: n });
    if (suggestions.length >= MAX_SUGGESTIONS) break;
  }
  const present = scope.conversationId !== undefined ? sendersOf(scope.conversationId) : undefined;
  return { kind: 'not_found', suggestions, elsewhere, ...(present ? { inScope: present } : {}) };
}
