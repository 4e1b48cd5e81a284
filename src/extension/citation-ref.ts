import { citationHash, parseCitationHash } from '../core';
import { EXTENSION_ID } from './constants';

export interface CitationRef {
  conversationId: number;
  messageId: number;
  /** The cited message's hash or its prefix (`?h=`, lowercase hex); absent in links made before hashes were added. */
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

const PATH_RE = /^\/?c\/(\d{1,15})\/at\/(\d{1,15})\/?$/;

/**
 * Parses the path part (`/c/12/at/345`) of a citation URI and, from its query, the hash (`h=`); undefined for
 * anything else. A malformed `h` is ignored (the link then resolves by id, as links without a hash do).
 */
export function parseCitationPath(path: string, query = ''): CitationRef | undefined {
  const m = PATH_RE.exec(path);
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

export interface CitationMatch extends CitationRef {
  /** Offset of the first character of the match in the scanned text. */
  start: number;
  length: number;
  text: string;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Finds citation URIs (any scheme, our authority) and `msgbrowse:` tokens in a text.
 * The authority match is case-insensitive, as VS Code treats extension ids.
 */
export function findCitations(text: string): CitationMatch[] {
  const re = new RegExp(
    `(?:(?:\\b[a-z][a-z0-9+.-]*://${escapeRe(EXTENSION_ID)}/c/(\\d{1,15})/at/(\\d{1,15}))|(?:\\bmsgbrowse:c/(\\d{1,15})/at/(\\d{1,15})))` +
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
    out.push({
      conversationId,
      messageId,
      ...(hash ? { hash } : {}),
      start: m.index ?? 0,
      length: m[0].length,
      text: m[0],
    });
  }
  return out;
}
