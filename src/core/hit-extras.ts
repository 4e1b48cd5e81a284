/** The reactions and attachments a message hit carries (each only when it has some): one archive call per result. */
import type { AsyncArchive, HitExtrasRows, MessageRow } from '../archive/types';
import type { ServerContext } from './context';
import { content, hitFromMessage, redactsFor } from './hits';
import { groupBy } from './read-page';
import type { MessageHit } from './results';

type Extras = Pick<MessageHit, 'message_id' | 'hash' | 'reactions' | 'attachments'>;

/** The extras one archive call read with its hits. */
export type ExtrasPart = { hashes: Iterable<string>; ids: Iterable<number>; rows: HitExtrasRows };

/**
 * The extras several archive calls read with their hits (in the same snapshot), not asked for again; a message's rows
 * come from the first part that read it.
 */
export function knownExtras(parts: ExtrasPart[]) {
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
  known?: ReturnType<typeof knownExtras>,
): Promise<T[]> {
  if (!hits.length) return hits;
  const missing = known ? hits.filter((h) => !known.hashes.has(h.hash) || !known.ids.has(h.message_id)) : hits;
  let { reactions, attachments } = known?.rows ?? { reactions: [], attachments: [] };
  if (missing.length) {
    const ids = [...new Set(missing.map((h) => h.message_id))];
    const hashes = missing.map((h) => h.hash);
    const more = await archive.hitExtras(hashes, ids, signal);
    reactions = [...reactions, ...more.reactions.filter((r) => !known?.hashes.has(r.messageHash))];
    attachments = [...attachments, ...more.attachments.filter((a) => !known?.ids.has(a.messageId))];
  }
  const byHash = groupBy(reactions, (r) => r.messageHash);
  const byMessage = groupBy(attachments, (a) => a.messageId);
  for (const h of hits) {
    const r = byHash.get(h.hash);
    if (r) h.reactions = r.map(({ emoji, actor }) => ({ emoji, actor }));
    const a = byMessage.get(h.message_id);
    if (a) h.attachments = a.map((x) => ({ kind: x.kind, name: content(x.originalName, redact) }));
  }
  return hits;
}

/** The hits of `rows` as a model-facing surface serves them: redacted for `ctx`, with their extras. */
export function messageHits(
  ctx: Pick<ServerContext, 'citation' | 'redact'>,
  archive: AsyncArchive,
  rows: MessageRow[],
  signal?: AbortSignal,
  known?: ReturnType<typeof knownExtras>,
): Promise<MessageHit[]> {
  const redact = redactsFor(ctx);
  const hits = rows.map((m) => hitFromMessage(ctx.citation, m, undefined, redact));
  return withHitExtras(archive, hits, redact, signal, known);
}
