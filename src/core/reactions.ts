/**
 * Reactions on cited hits: every message-bearing result carries `reactions: [{emoji, actor}]` for the messages that
 * have some (oldest first; absent otherwise) — one archive call per result, whatever its size.
 */
import type { AsyncArchive } from '../archive/types';
import type { MessageHit } from './results';

export async function withReactions<T extends Pick<MessageHit, 'hash' | 'reactions'>>(archive: AsyncArchive, hits: T[], signal?: AbortSignal): Promise<T[]> {
  if (!hits.length) return hits;
  const rows = await archive.reactionsForHashes(hits.map((h) => h.hash), signal);
  if (!rows.length) return hits;
  const byHash = new Map<string, { emoji: string; actor: string }[]>();
  for (const r of rows) {
    let list = byHash.get(r.messageHash);
    if (!list) byHash.set(r.messageHash, (list = []));
    list.push({ emoji: r.emoji, actor: r.actor });
  }
  for (const h of hits) {
    const list = byHash.get(h.hash);
    if (list) h.reactions = list.map((x) => ({ ...x }));
  }
  return hits;
}
