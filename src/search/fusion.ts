/**
 * Reciprocal-rank fusion as msgbrowse's hybrid search does it: each list adds 1 / (k + rank + 1) for a 0-based rank.
 * Unlike msgbrowse's MCP tool (which rounds before sorting, §11.8), results sort on the raw sum, then message id.
 */
export const RRF_K = 60;

export function rrfTerm(rank: number, k: number = RRF_K): number {
  return 1 / (k + rank + 1);
}

interface FusedEntry {
  messageId: number;
  score: number;
  /** 0-based rank of the message in each input list, or undefined when absent from that list. */
  ranks: (number | undefined)[];
}

/** Fuses lists of message ids (a repeat within a list counts once, at its first rank), by score then message id. */
export function fuseRankedIds(lists: readonly (readonly number[])[], k: number = RRF_K): FusedEntry[] {
  const byId = new Map<number, FusedEntry>();
  lists.forEach((list, listIndex) => {
    const seen = new Set<number>();
    let rank = 0;
    for (const id of list) {
      if (seen.has(id)) continue;
      seen.add(id);
      let entry = byId.get(id);
      if (!entry) {
        entry = { messageId: id, score: 0, ranks: new Array<number | undefined>(lists.length).fill(undefined) };
        byId.set(id, entry);
      }
      entry.score += rrfTerm(rank, k);
      entry.ranks[listIndex] = rank;
      rank++;
    }
  });
  return [...byId.values()].sort((a, b) => b.score - a.score || a.messageId - b.messageId);
}

interface HybridEntry<K, S> {
  messageId: number;
  score: number;
  keyword?: K;
  semantic?: S;
  keywordRank?: number;
  semanticRank?: number;
}

/** Fuses a keyword and a semantic list (each in rank order), keeping the top `limit`; a message in both has both hits. */
export function fuseHybrid<K extends { id: number }, S extends { messageId: number }>(
  keyword: readonly K[],
  semantic: readonly S[],
  limit: number,
  k: number = RRF_K,
): HybridEntry<K, S>[] {
  const kwById = new Map<number, K>();
  for (const h of keyword) if (!kwById.has(h.id)) kwById.set(h.id, h);
  const semById = new Map<number, S>();
  for (const h of semantic) if (!semById.has(h.messageId)) semById.set(h.messageId, h);
  const fused = fuseRankedIds([keyword.map((h) => h.id), semantic.map((h) => h.messageId)], k);
  return fused.slice(0, Math.max(0, limit)).map((e) => ({
    messageId: e.messageId,
    score: e.score,
    keyword: kwById.get(e.messageId),
    semantic: semById.get(e.messageId),
    keywordRank: e.ranks[0],
    semanticRank: e.ranks[1],
  }));
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
