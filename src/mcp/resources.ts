/** Resource templates backing the `resource_link`s in tool results. */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { AsyncArchive } from '../archive/types';
import {
  CONVERSATION_RESOURCE_TEMPLATE,
  conversationResourceUri,
  MESSAGE_RESOURCE_TEMPLATE,
  parseResourceId,
} from '../core/citation-format';
import type { ServerContext } from '../core/context';
import { errorMessage } from '../core/errors';
import { conversationInfo, hitFromMessage } from '../core/hits';
import { renderHits, UNTRUSTED_NOTE } from './render';
import { inline } from '../core/text';

/** MCP "resource not found" (spec-recommended code). */
const RESOURCE_NOT_FOUND = -32002;
const RESOURCE_LIST_MAX = 1000;
const RESOURCE_CONTEXT_WINDOW = 5;

function varOf(v: string | string[] | undefined): string {
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

async function openArchive(ctx: ServerContext): Promise<AsyncArchive> {
  try {
    return await ctx.archive();
  } catch (e) {
    throw new McpError(ErrorCode.InternalError, errorMessage(e));
  }
}

export function registerResources(server: McpServer, ctx: ServerContext): void {
  server.registerResource(
    'conversation',
    new ResourceTemplate(CONVERSATION_RESOURCE_TEMPLATE, {
      list: async () => {
        const archive = await openArchive(ctx);
        const rows = await archive.listConversations(undefined);
        return {
          resources: rows.slice(0, RESOURCE_LIST_MAX).map((c) => ({
            uri: conversationResourceUri(c.id),
            name: `conversation ${c.id}`,
            title: `${c.name} (${c.source})`,
            description: `${c.messageCount} messages${c.lastTs ? `, last ${c.lastTs}` : ''}`,
            mimeType: 'text/markdown',
          })),
        };
      },
    }),
    {
      title: 'Conversation',
      description: 'Summary of one conversation of the msgbrowse archive (id from list_conversations).',
      mimeType: 'text/markdown',
    },
    async (uri, vars) => {
      const id = parseResourceId(varOf(vars.id));
      if (!id || !('id' in id)) throw new McpError(ErrorCode.InvalidParams, `conversation resource id must be a positive integer, got ${inline(varOf(vars.id))}`);
      const archive = await openArchive(ctx);
      const c = await archive.conversationById(id.id);
      if (!c) throw new McpError(RESOURCE_NOT_FOUND, `conversation ${id.id} not found — use list_conversations to see the ids`);
      const info = conversationInfo(ctx.citation, c);
      const md =
        `# ${inline(c.name)} (${c.source}, conversation_id ${c.id})\n\n` +
        `- messages: ${c.messageCount}${c.firstTs ? ` (${c.firstTs} → ${c.lastTs})` : ''}\n` +
        `- attachments: ${c.images} images, ${c.videos} videos, ${c.files} files; ${c.links} distinct links\n` +
        `- open: [${c.name.replace(/[\\[\]]/g, '\\$&')}](${info.link})\n\n` +
        `Read it with get_conversation {"conversation_id": ${c.id}}.`;
      return {
        contents: [
          { uri: uri.href, mimeType: 'text/markdown', text: md },
          { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(info) },
        ],
      };
    },
  );

  server.registerResource(
    'message',
    new ResourceTemplate(MESSAGE_RESOURCE_TEMPLATE, { list: undefined }),
    {
      title: 'Message with context',
      description: 'One archived message (by message_id or stable hash) with the messages around it.',
      mimeType: 'text/markdown',
    },
    async (uri, vars) => {
      const raw = varOf(vars.id);
      const id = parseResourceId(raw);
      if (!id) throw new McpError(ErrorCode.InvalidParams, `message resource id must be a message_id or a 64-hex hash, got ${inline(raw)}`);
      const archive = await openArchive(ctx);
      const m = 'id' in id ? await archive.messageById(id.id) : await archive.messageByHash(id.hash);
      if (!m) throw new McpError(RESOURCE_NOT_FOUND, `message ${raw} not found — ids change on re-import; search again`);
      const rows = (await archive.context(m.id, RESOURCE_CONTEXT_WINDOW)) ?? [m];
      const messages = rows.map((r) => hitFromMessage(ctx.citation, r));
      const target = messages.find((h) => h.message_id === m.id) ?? hitFromMessage(ctx.citation, m);
      const md =
        `Message ${m.id} in ${inline(m.conversation)} (${m.source}, conversation_id ${m.conversationId}); cite as ${target.link}\n` +
        `${UNTRUSTED_NOTE}\n\n${renderHits(messages, { numbered: false, targetId: m.id })}`;
      return {
        contents: [
          { uri: uri.href, mimeType: 'text/markdown', text: md },
          { uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ message: target, context: messages }) },
        ],
      };
    },
  );
}
