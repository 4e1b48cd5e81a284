import { citationHash, parseCitationHash } from '../core';
import { EXTENSION_ID } from './constants';

export interface CitationRef {
  conversationId: number;
  messageId: number;
  /** The cited message's hash or its prefix (`?h=`, lowercase hex); absent in older links. */
  hash?: string;
}

/** The citation of a result item (any of core/results.ts's cited items), anchored by its hash when it has one. */
export function refOf(item: { conversation_id: number; message_id: number; hash?: string }): CitationRef {
  const hash = parseCitationHash(item.hash);
  return {
    conversationId: item.conversation_id,
    messageId: item.message_id,
    ...(hash ? { hash: citationHash(hash) } : {}),
  };
}

/** `/c/12/at/345` and its query's `h=` (a malformed `h` is ignored: the link then resolves by id); else undefined. */
export function parseCitationPath(path: string, query = ''): CitationRef | undefined {
  const m = /^\/?c\/(\d{1,15})\/at\/(\d{1,15})\/?$/.exec(path);
  if (!m) return undefined;
  const conversationId = Number(m[1]);
  const messageId = Number(m[2]);
  if (!Number.isSafeInteger(conversationId) || !Number.isSafeInteger(messageId)) return undefined;
  const hash = parseCitationHash(new URLSearchParams(query.replace(/^\?/, '')).get('h'));
  return hash ? { conversationId, messageId, hash } : { conversationId, messageId };
}

const hashQuery = (ref: CitationRef): string => (ref.hash ? `?h=${ref.hash}` : '');

export function citationUri(scheme: string, ref: CitationRef): string {
  return `${scheme}://${EXTENSION_ID}/c/${ref.conversationId}/at/${ref.messageId}${hashQuery(ref)}`;
}

export function citationToken(ref: CitationRef): string {
  return `msgbrowse:c/${ref.conversationId}/at/${ref.messageId}${hashQuery(ref)}`;
}

interface CitationMatch extends CitationRef {
  start: number;
  length: number;
  text: string;
}

/**
 * Citation URIs (any scheme, our authority: case-insensitive, as VS Code treats extension ids) and `msgbrowse:` tokens.
 */
export function findCitations(text: string): CitationMatch[] {
  const re = new RegExp(
    `(?:(?:\\b[a-z][a-z0-9+.-]*://${EXTENSION_ID.replaceAll('.', '\\.')}/c/(\\d{1,15})/at/(\\d{1,15}))|(?:\\bmsgbrowse:c/(\\d{1,15})/at/(\\d{1,15})))` +
      // an optional hash anchor (?h= or, as VS Code's Uri.toString() encodes it, ?h%3D)
      '(?:\\?h(?:=|%3D)([0-9a-f]{4,64})\\b)?',
    'gi',
  );
  const out: CitationMatch[] = [];
  for (const m of text.matchAll(re)) {
    const conversationId = Number(m[1] ?? m[3]);
    const messageId = Number(m[2] ?? m[4]);
    if (!Number.isSafeInteger(conversationId) || !Number.isSafeInteger(messageId)) continue;
    const hash = parseCitationHash(m[5]);
    const at = { start: m.index ?? 0, length: m[0].length, text: m[0] };
    out.push({ conversationId, messageId, ...(hash ? { hash } : {}), ...at });
  }
  return out;
}
