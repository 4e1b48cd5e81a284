/** Sender names resolved within the caller's scope, so a typo is an error, never a silent empty search. */
import type { Sql } from '../connection';
import type { ScopeFilter, SenderMatch, SenderResolveResult } from '../types';
import { closeness, nameKey } from './conversations';
import { num, str } from './rows';

const OWNER_SENDER = 'Me';
const OWNER_ALIASES = new Set(['me', 'myself', 'i', 'owner', 'the owner', 'archive owner', 'the archive owner']);
const MAX_SUGGESTIONS = 5;
/** Close names counted in scope before picking the suggestions. */
const MAX_PROBED = 20;

/** Every distinct `messages.sender`, in byte order, by one seek of idx_messages_sender each. */
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

/** Most messages first. */
export function conversationSenders(sql: Sql, conversationId: number, limit: number): SenderMatch[] {
  return sql
    .all(
      'SELECT sender, COUNT(*) AS n FROM messages WHERE conversation_id = ? GROUP BY sender ORDER BY n DESC, sender ASC LIMIT ?',
      [conversationId, limit],
    )
    .map((r) => ({ name: str(r.sender), messages: num(r.n) }));
}

function closeNames(all: readonly string[], name: string): string[] {
  const q = nameKey(name);
  const scored: { s: string; score: number }[] = [];
  for (const s of all) {
    const score = closeness(q, nameKey(s), false);
    if (score !== undefined) scored.push({ s, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.s < b.s ? -1 : a.s > b.s ? 1 : 0));
  return scored.slice(0, MAX_PROBED).map((x) => x.s);
}

/** A stored sender with messages in `scope` (conversation or source; dates are not part of it). */
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
  // Nothing in scope: the same name elsewhere, close names in scope, and who is in the conversation.
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
