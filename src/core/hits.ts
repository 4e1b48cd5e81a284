import type { ConversationRow, KeywordHit, MessageRow } from '../archive/types';
import { roundScore } from '../search/fusion';
import { conversationLink, messageLink } from './citation-format';
import type { CitationFormat, ServerContext } from './context';
import { redactSnippet, redactText } from './redact';
import type { ConversationInfo, MessageHit } from './results';
import { cleanBody, readableSnippet } from './text';

/**
 * Whether results for `ctx` go to a model with secrets redacted: the MCP tools and resources ask this; the person's
 * own surfaces (palette, viewer, hovers) shape without it. Absent = on.
 */
export function redactsFor(ctx: Pick<ServerContext, 'redact'>): boolean {
  return ctx.redact !== false;
}

/** Message content as sent out: redacted when `redact` (core/redact.ts). Never used on ids, hashes or links. */
export function content(text: string, redact: boolean | undefined): string {
  return redact ? redactText(text) : text;
}

/** The cited hit of a message row (keyword or not), with `text` as shown for it. */
function citedHit(fmt: CitationFormat, m: Omit<MessageRow, 'body' | 'seq'>, text: string, score?: number): MessageHit {
  const hit: MessageHit = {
    message_id: m.id,
    hash: m.hash,
    conversation: m.conversation,
    conversation_id: m.conversationId,
    source: m.source,
    sender: m.sender,
    timestamp: m.ts,
    text,
    link: messageLink(fmt, m.conversationId, m.id, m.hash),
  };
  if (score !== undefined) hit.score = roundScore(score);
  return hit;
}

/** `redact`: secrets in the body become `[redacted: …]` (model-facing results; see redactsFor). */
export function hitFromMessage(fmt: CitationFormat, m: MessageRow, score?: number, redact = false): MessageHit {
  return citedHit(fmt, m, content(cleanBody(m.body), redact), score);
}

/**
 * `redact`: secrets are found in the whole body and every part of them the snippet shows is redacted — before the
 * match markers become `**`, so a match inside a secret neither hides it nor keeps its digits.
 */
export function hitFromKeyword(fmt: CitationFormat, h: KeywordHit, score?: number, redact = false): MessageHit {
  return citedHit(fmt, h, readableSnippet(redact ? redactSnippet(h.snippet, h.body) : h.snippet), score);
}

export function conversationInfo(fmt: CitationFormat, c: ConversationRow): ConversationInfo {
  const info: ConversationInfo = {
    id: c.id,
    name: c.name,
    source: c.source,
    message_count: c.messageCount,
    images: c.images,
    files: c.files,
    videos: c.videos,
    links: c.links,
    link: conversationLink(fmt, c.id),
  };
  if (c.firstTs) info.first_timestamp = c.firstTs;
  if (c.lastTs) info.last_timestamp = c.lastTs;
  // Keep the msgbrowse key order readable: id, name, source, counts, timestamps.
  return {
    id: info.id,
    name: info.name,
    source: info.source,
    message_count: info.message_count,
    ...(info.first_timestamp !== undefined ? { first_timestamp: info.first_timestamp } : {}),
    ...(info.last_timestamp !== undefined ? { last_timestamp: info.last_timestamp } : {}),
    images: info.images,
    files: info.files,
    videos: info.videos,
    links: info.links,
    link: info.link,
  };
}
