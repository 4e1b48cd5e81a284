/** The listing tools' reads: conversations, attachments and shared links, each with its filters resolved. */
import { domainToUnicode } from 'node:url';
import { ATTACHMENT_KINDS, type AttachmentKind } from '../archive/types';
import { messageLink } from './citation-format';
import { ToolError } from './errors';
import { content, conversationInfo, redactsFor } from './hits';
import { clampLimit } from './request';
import type { ConversationInfo, LinkItem, MediaItem } from './results';
import { resolveScope, resolveSource, type Scope, type ScopeArgs } from './scope';
import type { CallEnv } from './message-search';
import { inline } from './text';

const LISTING_DEFAULT_LIMIT = 200;
const LISTING_MAX_LIMIT = 1000;

/** list_conversations: most recently active first; `source` as stored, `nameContains` trimmed (undefined when blank). */
export async function listConversations(
  args: { source?: string; name_contains?: string },
  env: CallEnv,
): Promise<{ conversations: ConversationInfo[]; source?: string; nameContains?: string }> {
  const archive = await env.archive();
  const source = await resolveSource(archive, args.source, env.signal);
  const nameContains = args.name_contains?.trim() || undefined;
  const rows = await archive.listConversations({ source, nameContains }, env.signal);
  return { conversations: rows.map((c) => conversationInfo(env.ctx.citation, c)), source, nameContains };
}

type Listing<T> = { items: T[]; hasMore: boolean; scope: Scope; notes: string[] };

/** A listing's limit (clamped), archive, scope and the filter of its archive call. */
async function readListing(args: ScopeArgs & { limit?: number }, env: CallEnv) {
  const notes: string[] = [];
  const limit = clampLimit('limit', args.limit, LISTING_DEFAULT_LIMIT, LISTING_MAX_LIMIT, notes);
  const archive = await env.archive();
  const scope = await resolveScope(archive, args, env.signal, env.choose);
  const filter = { conversationId: scope.conversation?.id, source: scope.source, limit };
  return { notes, archive, scope, filter, redact: redactsFor(env.ctx) };
}

/** list_media: attachments newest first; file names (and the paths that carry them) are content, redacted like bodies. */
export async function listMedia(
  args: ScopeArgs & { kind?: AttachmentKind; limit?: number },
  env: CallEnv,
): Promise<Listing<MediaItem>> {
  const { notes, archive, scope, filter, redact } = await readListing(args, env);
  const kinds: AttachmentKind[] = args.kind ? [args.kind] : [...ATTACHMENT_KINDS];
  const res = await archive.attachments({ kinds, ...filter }, env.signal);
  const items = res.items.map((a) => ({
    conversation: a.conversation,
    conversation_id: a.conversationId,
    source: a.source,
    kind: a.kind,
    name: content(a.originalName, redact),
    path: content(a.relPath, redact),
    timestamp: a.ts,
    message_id: a.messageId,
    link: messageLink(env.ctx.citation, a.conversationId, a.messageId, a.messageHash),
  }));
  return { items, hasMore: res.hasMore, scope, notes };
}

/**
 * list_links: one entry per URL, by domain then most shared. A URL can carry a secret (`?code=123456`): redacted like
 * bodies; domains are not (they are the filter the model passes back, and hold no such values).
 */
export async function listLinks(
  args: ScopeArgs & { domain?: string; limit?: number },
  env: CallEnv,
): Promise<Listing<LinkItem> & { domain?: string }> {
  const domain = args.domain === undefined ? undefined : parseDomainFilter(args.domain);
  const { notes, archive, scope, filter, redact } = await readListing(args, env);
  const res = await archive.links({ domain, ...filter }, env.signal);
  const items = res.items.map((l) => ({
    // A line break is no part of a URL: redacted as it is shown, without one (two halves of a card meet there).
    url: content(l.url.replace(/[\r\n]/g, ''), redact),
    domain: l.domain,
    count: l.count,
    conversation: l.conversation,
    conversation_id: l.conversationId,
    source: l.source,
    timestamp: l.ts,
    message_id: l.messageId,
    link: messageLink(env.ctx.citation, l.conversationId, l.messageId, l.messageHash),
  }));
  return { items, hasMore: res.hasMore, scope, notes, domain };
}

/** `Example.COM`, `www.example.com`, `https://www.example.com/path` → the lowercase host without `www.` or final dot. */
export function parseDomainFilter(raw: string): string | undefined {
  let d = raw.trim().toLowerCase();
  if (d === '') return undefined;
  if (d.includes('://')) {
    try {
      // URL() punycodes IDN hosts; archives store hosts as written (Go's url.Parse), so convert back.
      d = domainToUnicode(new URL(d).hostname) || new URL(d).hostname;
    } catch {
      throw new ToolError(`domain ${inline(raw)} is not a domain or URL; give e.g. example.com`);
    }
  } else {
    d = d.replace(/[/?#:].*$/, '');
  }
  d = d.replace(/\.+$/, '').replace(/^(www\.)+/, '');
  if (!/^[\p{L}\p{N}_-]+(\.[\p{L}\p{N}_-]+)*$/u.test(d))
    throw new ToolError(`domain ${inline(raw)} is not a valid domain; give e.g. example.com (subdomains are included)`);
  return d;
}
