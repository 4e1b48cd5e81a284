/**
 * Resolving a citation: a message id (reassigned by re-imports) anchored by the message's stable hash. A citation
 * never resolves to a different message than the one whose hash it names.
 */
import type { AsyncArchive, MessageRow } from '../archive/types';

/** Hex digits of the hash a citation carries (`?h=`): 64 bits, unique in any real archive. */
export const CITATION_HASH_LENGTH = 16;

export interface CitedMessage {
  /** Absent where the citation does not name one (message resource URIs, get_context). */
  conversationId?: number;
  messageId: number;
  /** The message hash or a prefix of it (lowercase hex); absent in links made before hashes were added. */
  hash?: string;
}

export type CitationResolution =
  /** The id still holds the cited message (or the link has no hash and the id exists). */
  | { status: 'exact'; message: MessageRow; checked: boolean }
  /** The id now holds another message (or none); the hash led to the cited message's current id. */
  | { status: 'moved'; message: MessageRow; note: string }
  /** No message has the cited hash any more (or, without a hash, the id is unknown). Never another message. */
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
  const byId = await archive.messageById(cited.messageId, signal);
  if (!cited.hash) {
    if (byId) return { status: 'exact', message: byId, checked: false };
    return {
      status: 'gone',
      note: `${describe(cited)} is not in this archive (an old link without a hash cannot be followed)`,
    };
  }
  const hash = cited.hash.toLowerCase();
  if (byId?.hash.startsWith(hash)) return { status: 'exact', message: byId, checked: true };
  const found = await archive.messagesByHashPrefix(hash, 2, signal);
  if (found.length === 1) {
    const m = found[0];
    return {
      status: 'moved',
      message: m,
      note: `this message moved after a re-import: it was ${describe(cited)}, it is now message ${m.id} in conversation ${m.conversationId} (${m.conversation})`,
    };
  }
  if (found.length > 1) {
    return {
      status: 'gone',
      note: `the hash ${hash} of ${describe(cited)} is too short to name one message; use the full hash`,
    };
  }
  return {
    status: 'gone',
    note: `this message is no longer in the archive; it was ${describe(cited)}${byId ? ` — that id now holds another message, which is not the one cited` : ''}`,
  };
}
