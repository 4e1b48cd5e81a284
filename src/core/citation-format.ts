import type { CitationFormat } from './context';

/** `<scheme>://<authority>/c/<conversation_id>/at/<message_id>`: msgbrowse's jump-to-context route. */
export function messageLink(fmt: CitationFormat, conversationId: number, messageId: number): string {
  return `${fmt.scheme}://${fmt.authority}/c/${conversationId}/at/${messageId}`;
}

/** `<scheme>://<authority>/c/<conversation_id>`: the conversation's transcript route. */
export function conversationLink(fmt: CitationFormat, conversationId: number): string {
  return `${fmt.scheme}://${fmt.authority}/c/${conversationId}`;
}

export const MESSAGE_RESOURCE_TEMPLATE = 'msgbrowse://message/{id}';
export const CONVERSATION_RESOURCE_TEMPLATE = 'msgbrowse://conversation/{id}';

export function messageResourceUri(messageId: number): string {
  return `msgbrowse://message/${messageId}`;
}

export function conversationResourceUri(conversationId: number): string {
  return `msgbrowse://conversation/${conversationId}`;
}

/** Parses the `{id}` of a resource URI: a positive integer id, or (messages only) a 64-hex stable hash. */
export function parseResourceId(raw: string): { id: number } | { hash: string } | undefined {
  const v = decodeURIComponent(raw).trim();
  if (/^[1-9]\d{0,15}$/.test(v)) return { id: Number(v) };
  if (/^[0-9a-f]{64}$/i.test(v)) return { hash: v.toLowerCase() };
  return undefined;
}
