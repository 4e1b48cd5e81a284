/** The reactions and attachments a message hit carries (each only when it has some): one archive call per result. */
import type { AsyncArchive, HitExtrasRows } from '../archive/types';
import { content } from './hits';
import type { MessageHit } from './results';

type Extras = Pick<MessageHit, 'message_id' | 'hash' | 'reactions' | 'attachments'>;

/** Extras already read for some messages (in the same snapshot as their hits): those are not asked for again. */
export interface KnownExtras {
  hashes: ReadonlySet<string>;
  ids: ReadonlySet<number>;
  rows: HitExtrasRows;
}

/** The extras several archive calls read with their hits; a message's rows come from the first part that read it. */
export function knownExtras(
  parts: { hashes: Iterable<string>; ids: Iterable<number>; rows: HitExtrasRows }[],
): KnownExtras {
  const hashes = new Set<string>();
  const ids = new Set<number>();
  const rows: HitExtrasRows = { reactions: [], attachments: [] };
  for (const p of parts) {
    const newHashes = new Set([...p.hashes].filter((h) => !hashes.has(h)));
    const newIds = new Set([...p.ids].filter((id) => !ids.has(id)));
    for (const r of p.rows.reactions) if (newHashes.has(r.messageHash)) rows.reactions.push(r);
    for (const a of p.rows.attachments) if (newIds.has(a.messageId)) rows.attachments.push(a);
    for (const h of newHashes) hashes.add(h);
    for (const id of newIds) ids.add(id);
  }
  return { hashes, ids, rows };
}

/** `redact`: attachment names are content, redacted like the text. `known`: extras already read with the hits. */
export async function withHitExtras<T extends Extras>(
  archive: AsyncArchive,
  hits: T[],
  redact: boolean,
  signal?: AbortSignal,
  known?: KnownExtras,
): Promise<T[]> {
  if (!hits.length) return hits;
  const missing = known ? hits.filter((h) => !known.hashes.has(h.hash) || !known.ids.has(h.message_id)) : hits;
  let { reactions, attachments } = known?.rows ?? { reactions: [], attachments: [] };
  if (missing.length) {
    const more = await archive.hitExtras(
      missing.map((h) => h.hash),
      [...new Set(missing.map((h) => h.message_id))],
      signal,
    );
    reactions = known
      ? [...reactions, ...more.reactions.filter((r) => !known.hashes.has(r.messageHash))]
      : more.reactions;
    attachments = known
      ? [...attachments, ...more.attachments.filter((a) => !known.ids.has(a.messageId))]
      : more.attachments;
  }
  const byHash = new Map<string, { emoji: string; actor: string }[]>();
  for (const r of reactions) {
    let list = byHash.get(r.messageHash);
    if (!list) byHash.set(r.messageHash, (list = []));
    list.push({ emoji: r.emoji, actor: r.actor });
  }
  const byMessage = new Map<number, { kind: string; name: string }[]>();
  for (const a of attachments) {
    let list = byMessage.get(a.messageId);
    if (!list) byMessage.set(a.messageId, (list = []));
    list.push({ kind: a.kind, name: content(a.originalName, redact) });
  }
  for (const h of hits) {
    const r = byHash.get(h.hash);
    if (r) h.reactions = r.map((x) => ({ ...x }));
    const a = byMessage.get(h.message_id);
    if (a) h.attachments = a.map((x) => ({ ...x }));
  }
  return hits;
}
