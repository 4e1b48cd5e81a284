import { z } from 'zod';
import { conversationInfo } from '../../core/hits';
import { resolveSource } from '../resolve';
import { ConversationInfoSchema, strictInput, text } from '../tool-schemas';
import { inline, linkLabel } from '../../core/text';
import { defineTool } from '../tool';

export const listConversationsInput = strictInput('list_conversations', {
  source: text('source', 40).optional().describe('only conversations from this source: signal, imessage or whatsapp'),
  name_contains: text('name_contains').optional().describe('only conversations whose name contains this text (case-insensitive)'),
});

export const listConversationsOutput = z.object({
  conversations: z.array(ConversationInfoSchema),
});

export const listConversations = defineTool({
  name: 'list_conversations',
  title: 'List conversations',
  description:
    'List every conversation (person or group) with its id, source, message counts and date range, most recently active first. ' +
    'Use the id (conversation_id) or the exact name with the other tools; the same name can exist in several sources.',
  inputSchema: listConversationsInput,
  outputSchema: listConversationsOutput,
  async handler(args, env) {
    const archive = await env.archive();
    const source = await resolveSource(archive, args.source, env.signal);
    const needle = args.name_contains?.trim();
    const rows = await archive.listConversations({ source, nameContains: needle ? needle : undefined }, env.signal);
    const conversations = rows.map((c) => conversationInfo(env.ctx.citation, c));
    const filters = [source ? `source "${source}"` : '', needle ? `name containing ${inline(needle)}` : ''].filter(Boolean).join(', ');
    const lines = conversations.map(
      (c) =>
        `- [${linkLabel(c.name, 60)}](${c.link}) — ${c.source}, conversation_id ${c.id}, ${c.message_count} messages` +
        (c.first_timestamp ? `, ${c.first_timestamp} → ${c.last_timestamp}` : '') +
        `; ${c.images} images, ${c.videos} videos, ${c.files} files, ${c.links} links`,
    );
    const text =
      `${conversations.length} conversation${conversations.length === 1 ? '' : 's'}${filters ? ` (${filters})` : ''}.` +
      (lines.length ? `\n\n${lines.join('\n')}` : '');
    return { structured: { conversations }, text };
  },
});
