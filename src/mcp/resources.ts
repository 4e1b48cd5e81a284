/** Resource templates backing the `resource_link`s in tool results. */
import {
  ResourceTemplate,
  UriTemplate,
  ProtocolErrorCode,
  type McpServer,
  type Variables,
  type ListResourcesResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/server';
import {
  type AsyncArchive,
  CONVERSATION_RESOURCE_TEMPLATE,
  conversationInfo,
  conversationResourceUri,
  errorMessage,
  inline,
  MESSAGE_RESOURCE_TEMPLATE,
  MESSAGE_RESOURCE_TEMPLATE_BARE,
  type MessageRow,
  parseCitationHash,
  parseResourceId,
  ProtocolError,
  messageHits,
  resolveCitation,
  type ServerContext,
} from '../core';
import { disclosedRead } from './disclosure';
import { RESOURCE_ICONS } from './icons';
import { renderHits, UNTRUSTED_NOTE } from './render';
import type { ResourceWatch } from './subscriptions';

const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);
// MCP "resource not found" (-32002; the SDK v2 puts -32602 on the wire in both eras).
const notFound = (message: string) => new ProtocolError(-32002, message);
const RESOURCE_LIST_MAX = 1000;
/** Two messages each side show where a cited message sits; reading further is get_context's job. */
const RESOURCE_CONTEXT_WINDOW = 2;

function varOf(v: string | string[] | undefined): string {
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

/** Also matches URIs without `?h=` (the SDK's matcher requires the query once the template names it): old links. */
class MessageUriTemplate extends UriTemplate {
  private readonly bare = new UriTemplate(MESSAGE_RESOURCE_TEMPLATE_BARE);
  constructor() {
    super(MESSAGE_RESOURCE_TEMPLATE);
  }
  override match(uri: string): Variables | null {
    return super.match(uri) ?? (uri.includes('?') ? null : this.bare.match(uri));
  }
}

async function openArchive(ctx: ServerContext): Promise<AsyncArchive> {
  try {
    return await ctx.archive();
  } catch (e) {
    throw new ProtocolError(ProtocolErrorCode.InternalError, errorMessage(e));
  }
}

/** A markdown rendering and its JSON, the two contents of each of our resources. */
function contents(uri: URL, md: string, json: unknown): ReadResourceResult {
  return {
    contents: [
      { uri: uri.href, mimeType: 'text/markdown', text: md },
      { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(json) },
    ],
  };
}

async function listConversations(ctx: ServerContext, watch?: ResourceWatch): Promise<ListResourcesResult> {
  const archive = await openArchive(ctx);
  const rows = await archive.listConversations(undefined);
  watch?.noteListed();
  return {
    resources: rows.slice(0, RESOURCE_LIST_MAX).map((c) => ({
      uri: conversationResourceUri(c.id),
      name: `conversation ${c.id}`,
      title: `${c.name} (${c.source})`,
      description: `${c.messageCount} messages${c.lastTs ? `, last ${c.lastTs}` : ''}`,
      mimeType: 'text/markdown',
      icons: undefined, // not the template's, which the SDK copies into each listed resource: hundreds of PNGs
    })),
  };
}

async function readConversation(ctx: ServerContext, uri: URL, vars: Variables): Promise<ReadResourceResult> {
  const id = parseResourceId(varOf(vars.id));
  if (!id || !('id' in id))
    throw invalid(`conversation resource id must be a positive integer, got ${inline(varOf(vars.id))}`);
  const archive = await openArchive(ctx);
  const c = await archive.conversationById(id.id);
  if (!c) throw notFound(`conversation ${id.id} not found — use list_conversations to see the ids`);
  const info = conversationInfo(ctx.citation, c);
  const md =
    `# ${inline(c.name)} (${c.source}, conversation_id ${c.id})\n\n` +
    `- messages: ${c.messageCount}${c.firstTs ? ` (${c.firstTs} → ${c.lastTs})` : ''}\n` +
    `- attachments: ${c.images} images, ${c.videos} videos, ${c.files} files; ${c.links} distinct links\n` +
    `- open: [${c.name.replace(/[\\[\]]/g, '\\$&')}](${info.link})\n\n` +
    `Read it with get_conversation {"conversation_id": ${c.id}}.`;
  return contents(uri, md, info);
}

/** The message a URI names, by its full hash or by id anchored by `h`; a note when it moved after a re-import. */
async function messageOf(
  ctx: ServerContext,
  uri: URL,
  vars: Variables,
): Promise<{ archive: AsyncArchive; m: MessageRow; moved?: string }> {
  const raw = varOf(vars.id);
  const id = parseResourceId(raw);
  if (!id) throw invalid(`message resource id must be a message_id or a 64-hex hash, got ${inline(raw)}`);
  const rawHash = vars.h === undefined ? undefined : varOf(vars.h);
  const hash = parseCitationHash(rawHash);
  if (rawHash !== undefined && !hash)
    throw invalid(
      `the h of a message resource URI must be 4–64 hex digits of the message hash, got ${inline(rawHash)}`,
    );
  const archive = await openArchive(ctx);
  if ('hash' in id) {
    const m = await archive.messageByHash(id.hash);
    if (m && hash && !m.hash.startsWith(hash))
      throw invalid(`the h of ${inline(uri.href)} does not match the hash it names`);
    if (!m)
      throw notFound(`no message with hash ${id.hash} in this archive — it is no longer in the archive; search again`);
    return { archive, m };
  }
  // Resolved like every citation: never another message than the one whose hash the URI names.
  const r = await resolveCitation(archive, { messageId: id.id, hash });
  if (r.status === 'gone') throw notFound(`${r.note} — ids change on re-import; search again`);
  return { archive, m: r.message, moved: r.status === 'moved' ? r.note : undefined };
}

async function readMessage(ctx: ServerContext, uri: URL, vars: Variables): Promise<ReadResourceResult> {
  const { archive, m, moved } = await messageOf(ctx, uri, vars);
  const rows = (await archive.context(m.id, RESOURCE_CONTEXT_WINDOW)) ?? [m];
  const messages = await messageHits(ctx, archive, rows);
  const target = messages.find((h) => h.message_id === m.id) ?? (await messageHits(ctx, archive, [m]))[0];
  const md =
    (moved ? `Note: ${moved}.\n\n` : '') +
    `Message ${m.id} in ${inline(m.conversation)} (${m.source}, conversation_id ${m.conversationId}); cite as ${target.link}\n` +
    `${UNTRUSTED_NOTE}\n\n${renderHits(messages, { numbered: false, targetId: m.id })}\n\n` +
    `Read further around it with get_context {"message_id": ${m.id}, "hash": "${m.hash.slice(0, 16)}"}.`;
  return contents(uri, md, { message: target, context: messages, ...(moved ? { notes: [moved] } : {}) });
}

/** Every read callback is wrapped by `disclosedRead`: what a model reads is disclosed like a tool result. */
export function registerResources(server: McpServer, ctx: ServerContext, watch?: ResourceWatch): void {
  server.registerResource(
    'conversation',
    // A 2026-07-28 request (its `_meta` envelope) hears of changes only on a subscriptions/listen stream it opens.
    new ResourceTemplate(CONVERSATION_RESOURCE_TEMPLATE, {
      list: (extra) => listConversations(ctx, extra.mcpReq.envelope ? undefined : watch),
    }),
    {
      title: 'Conversation',
      icons: RESOURCE_ICONS,
      description: 'Summary of one conversation of the msgbrowse archive (id from list_conversations).',
      mimeType: 'text/markdown',
    },
    disclosedRead(server, ctx, 'conversation', (uri, vars) => readConversation(ctx, uri, vars)),
  );
  server.registerResource(
    'message',
    new ResourceTemplate(new MessageUriTemplate(), { list: undefined }),
    {
      title: 'Message with context',
      icons: RESOURCE_ICONS,
      description:
        'One archived message with two messages on each side (get_context reads further): by message_id anchored by h (a prefix of its stable hash, as the resource links carry; ' +
        'a message that moved after a re-import is followed, one that is gone is an error), or by the full 64-hex hash.',
      mimeType: 'text/markdown',
    },
    disclosedRead(server, ctx, 'message', (uri, vars) => readMessage(ctx, uri, vars)),
  );
}
