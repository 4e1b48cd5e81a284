/**
 * Reciprocal-rank fusion as msgbrowse's hybrid search does it: each list adds 1 / (k + rank + 1) for a 0-based rank.
 * Unlike msgbrowse's MCP tool (which rounds before sorting, §11.8), results sort on the raw sum, then message id.
 */
export const RRF_K = 60;

export function rrfTerm(rank: number): number {
  return 1 / (RRF_K + rank + 1);
}

interface HybridEntry<K, S> {
  messageId: number;
  score: number;
  keyword?: K;
  semantic?: S;
}

/**
 * Fuses a keyword and a semantic list (each in rank order; a repeat within a list counts once, at its first rank),
 * by score then message id, keeping the top `limit`; a message in both has both hits.
 */
export function fuseHybrid<K extends { id: number }, S extends { messageId: number }>(
  keyword: readonly K[],
  semantic: readonly S[],
  limit: number,
): HybridEntry<K, S>[] {
  const byId = new Map<number, HybridEntry<K, S>>();
  const entryOf = (id: number): HybridEntry<K, S> => {
    let e = byId.get(id);
    if (!e) byId.set(id, (e = { messageId: id, score: 0 }));
    return e;
  };
  let rank = 0;
  for (const h of keyword) {
    const e = entryOf(h.id);
    if (e.keyword) continue;
    e.keyword = h;
    e.score += rrfTerm(rank++);
  }
  rank = 0;
  for (const h of semantic) {
    const e = entryOf(h.messageId);
    if (e.semantic) continue;
    e.semantic = h;
    e.score += rrfTerm(rank++);
  }
  return [...byId.values()].sort((a, b) => b.score - a.score || a.messageId - b.messageId).slice(0, Math.max(0, limit));
}

/** Rounds to `digits` decimals, half away from zero (-0.30005 → -0.3001), never returning -0. */
export function roundScore(x: number, digits = 4): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  // toPrecision(15) removes representation noise such as 1.00005 * 1e4 = 10000.499999999998.
  const scaled = Number((Math.abs(x) * f).toPrecision(15));
  const r = Math.round(scaled) / f;
  if (r === 0) return 0;
  return x < 0 ? -r : r;
}
