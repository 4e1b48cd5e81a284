/** A citation: a message id (reassigned by re-imports) anchored by its stable hash, never resolved to another. */
import type { AsyncArchive, MessageRow } from '../archive/types';

/** Hex digits of the hash a citation carries (`?h=`): 64 bits, unique in any real archive. */
const CITATION_HASH_LENGTH = 16;

export interface CitedMessage {
  /** Absent where the citation does not name one (message resource URIs, get_context). */
  conversationId?: number;
  messageId: number;
  /** The message hash or a prefix of it; absent in old links. */
  hash?: string;
}

export type CitationResolution =
  /** `checked`: the hash confirmed it (a link without one is taken at its id). */
  | { status: 'exact'; message: MessageRow; checked: boolean }
  | { status: 'moved'; message: MessageRow; note: string }
  | { status: 'gone'; note: string };

export function citationHash(hash: string): string {
  return hash.slice(0, CITATION_HASH_LENGTH).toLowerCase();
}

/** A citation's hash as given (`?h=`): 4–64 hex digits, else undefined (treated as absent). */
export function parseCitationHash(raw: string | null | undefined): string | undefined {
  const v = (raw ?? '').trim().toLowerCase();
  return /^[0-9a-f]{4,64}$/.test(v) ? v : undefined;
}

function describe(c: CitedMessage): string {
  return `message ${c.messageId}${c.conversationId !== undefined ? ` in conversation ${c.conversationId}` : ''}${c.hash ? ` (hash ${c.hash}…)` : ''}`;
}

export async function resolveCitation(
  archive: AsyncArchive,
  cited: CitedMessage,
  signal?: AbortSignal,
): Promise<CitationResolution> {
  const atId = await archive.messageById(cited.messageId, signal);
  const hash = cited.hash?.toLowerCase();
  // Two are enough: a second one means the prefix names no single message.
  const byHash = hash && !atId?.hash.startsWith(hash) ? await archive.messagesByHashPrefix(hash, 2, signal) : [];
  return decideCitation(cited, atId, byHash);
}

/** `byHash`: when the message at the id does not hold the cited hash, at most 2 whose hash starts with it. */
export function decideCitation(
  cited: CitedMessage,
  atId: MessageRow | undefined,
  byHash: readonly MessageRow[],
): CitationResolution {
  const was = describe(cited);
  if (!cited.hash) {
    if (atId) return { status: 'exact', message: atId, checked: false };
    return { status: 'gone', note: `${was} is not in this archive (an old link without a hash cannot be followed)` };
  }
  const hash = cited.hash.toLowerCase();
  if (atId?.hash.startsWith(hash)) return { status: 'exact', message: atId, checked: true };
  if (byHash.length > 1)
    return { status: 'gone', note: `the hash ${hash} of ${was} is too short to name one message; use the full hash` };
  const [m] = byHash;
  if (m) {
    const now = `message ${m.id} in conversation ${m.conversationId} (${m.conversation})`;
    return {
      status: 'moved',
      message: m,
      note: `this message moved after a re-import: it was ${was}, it is now ${now}`,
    };
  }
  return {
    status: 'gone',
    note: `this message is no longer in the archive; it was ${was}${atId ? ` — that id now holds another message, which is not the one cited` : ''}`,
  };
}
