/**
 * What every message-bearing hit carries beside its text: `reactions: [{emoji, actor}]` (oldest first) and
 * `attachments: [{kind, name}]` (in the order msgbrowse stored them), each only when the message has some — one archive
 * call per result, whatever its size.
 */
import type { AsyncArchive } from '../archive/types';
import { content } from './hits';
import type { MessageHit } from './results';

type Extras = Pick<MessageHit, 'message_id' | 'hash' | 'reactions' | 'attachments'>;

/** `redact`: attachment names are content (a file can be named after a card number): redacted like the text. */
export async function withHitExtras<T extends Extras>(archive: AsyncArchive, hits: T[], redact: boolean, signal?: AbortSignal): Promise<T[]> {
  if (!hits.length) return hits;
  const { reactions, attachments } = await archive.hitExtras(
    hits.map((h) => h.hash),
    [...new Set(hits.map((h) => h.message_id))],
    signal,
  );
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
