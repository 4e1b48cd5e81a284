import { citationHash } from './citation-resolve';
import type { CitationFormat } from './context';

/** msgbrowse's jump-to-context route with `?h=<hash prefix>`: ids shift on re-import, the hash tells moved from gone. */
export function messageLink(fmt: CitationFormat, conversationId: number, messageId: number, hash: string): string {
  return `${fmt.scheme}://${fmt.authority}/c/${conversationId}/at/${messageId}?h=${citationHash(hash)}`;
}

/** `<scheme>://<authority>/c/<conversation_id>`: the conversation's transcript route. */
export const conversationLink = (fmt: CitationFormat, conversationId: number): string =>
  `${fmt.scheme}://${fmt.authority}/c/${conversationId}`;

/** `{?h}`: the hash anchor message resource URIs carry; URIs without it (and `{id}` = a full 64-hex hash) also resolve. */
export const MESSAGE_RESOURCE_TEMPLATE = 'msgbrowse://message/{id}{?h}';
/** The template of message URIs without the anchor (old links; `msgbrowse://message/<64-hex hash>`). */
export const MESSAGE_RESOURCE_TEMPLATE_BARE = 'msgbrowse://message/{id}';
export const CONVERSATION_RESOURCE_TEMPLATE = 'msgbrowse://conversation/{id}';

export const messageResourceUri = (messageId: number, hash: string): string =>
  `msgbrowse://message/${messageId}?h=${citationHash(hash)}`;
export const conversationResourceUri = (conversationId: number): string => `msgbrowse://conversation/${conversationId}`;

/** Parses the `{id}` of a resource URI: a positive integer id, or (messages only) a 64-hex stable hash. */
export function parseResourceId(raw: string): { id: number } | { hash: string } | undefined {
  const v = decodeURIComponent(raw).trim();
  if (/^[1-9]\d{0,15}$/.test(v)) return { id: Number(v) };
  if (/^[0-9a-f]{64}$/i.test(v)) return { hash: v.toLowerCase() };
  return undefined;
}
