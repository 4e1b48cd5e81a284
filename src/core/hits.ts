import type { ConversationRow, KeywordHit, MessageRow } from '../archive/types';
import { roundScore } from '../search/fusion';
import { conversationLink, messageLink } from './citation-format';
import type { CitationFormat, ServerContext } from './context';
import { redactSnippet, redactText } from './redact';
import type { ConversationInfo, MessageHit } from './results';
import { cleanBody, readableSnippet } from './text';

/** Whether results for `ctx` go to a model with secrets redacted (absent = on); the person's own surfaces shape without. */
export function redactsFor(ctx: Pick<ServerContext, 'redact'>): boolean {
  return ctx.redact !== false;
}

/** Message content as sent out: redacted when `redact` (core/redact.ts). Never used on ids, hashes or links. */
export function content(text: string, redact: boolean | undefined): string {
  return redact ? redactText(text) : text;
}

/** The cited hit of a message row (keyword or not), with `text` as shown for it. */
function citedHit(fmt: CitationFormat, m: Omit<MessageRow, 'body' | 'seq'>, text: string, score?: number): MessageHit {
  return {
    message_id: m.id,
    hash: m.hash,
    conversation: m.conversation,
    conversation_id: m.conversationId,
    source: m.source,
    sender: m.sender,
    timestamp: m.ts,
    text,
    link: messageLink(fmt, m.conversationId, m.id, m.hash),
    ...(score !== undefined ? { score: roundScore(score) } : {}),
  };
}

export function hitFromMessage(fmt: CitationFormat, m: MessageRow, score?: number, redact = false): MessageHit {
  return citedHit(fmt, m, content(cleanBody(m.body), redact), score);
}

/** Redacted before the match markers become `**`, so a match inside a secret neither hides it nor keeps its digits. */
export function hitFromKeyword(fmt: CitationFormat, h: KeywordHit, score?: number, redact = false): MessageHit {
  return citedHit(fmt, h, readableSnippet(redact ? redactSnippet(h.snippet, h.body) : h.snippet), score);
}

export function conversationInfo(fmt: CitationFormat, c: ConversationRow): ConversationInfo {
  return {
    id: c.id,
    name: c.name,
    source: c.source,
    message_count: c.messageCount,
    ...(c.firstTs ? { first_timestamp: c.firstTs } : {}),
    ...(c.lastTs ? { last_timestamp: c.lastTs } : {}),
    images: c.images,
    files: c.files,
    videos: c.videos,
    links: c.links,
    link: conversationLink(fmt, c.id),
  };
}
