import { z } from 'zod';
import { ConversationInfoSchema, inline, linkLabel, listConversations as list } from '../../core';
import { pageByOffset } from '../answer-budget';
import { renderNotes } from '../render';
import { cursorField, nextCursorField, notesField, strictInput, text } from '../tool-schemas';
import { defineTool, PAGING_GUIDANCE } from '../tool';

const listConversationsInput = strictInput('list_conversations', {
  source: text('source', 40).optional().describe('only conversations from this source: signal, imessage or whatsapp'),
  name_contains: text('name_contains')
    .optional()
    .describe('only conversations whose name contains this text (case-insensitive)'),
  cursor: cursorField('list_conversations'),
});

const listConversationsOutput = z.object({
  conversations: z.array(ConversationInfoSchema),
  total: z.number().int().describe('conversations matching the filters, on every page together'),
  next_cursor: nextCursorField,
  notes: notesField,
});

export const listConversations = defineTool({
  name: 'list_conversations',
  title: 'List conversations',
  description:
    'List every conversation (person or group) with its id, source, message counts and date range, most recently active first. ' +
    'Use the id (conversation_id) or the exact name with the other tools; the same name can exist in several sources. ' +
    'With many conversations, name_contains or source finds one faster than paging.' +
    PAGING_GUIDANCE,
  inputSchema: listConversationsInput,
  outputSchema: listConversationsOutput,
  async handler(args, env) {
    const { conversations: all, source, nameContains: needle } = await list(args, env);
    const structured = pageByOffset(
      { tool: 'list_conversations', args, budget: env.budget, noun: 'conversations' },
      all,
      (conversations, p) => ({ conversations, total: all.length, ...p }),
    );
    const filters = [source ? `source "${source}"` : '', needle ? `name containing ${inline(needle)}` : '']
      .filter(Boolean)
      .join(', ');
    const lines = structured.conversations.map(
      (c) =>
        `- [${linkLabel(c.name, 60)}](${c.link}) — ${c.source}, conversation_id ${c.id}, ${c.message_count} messages` +
        (c.first_timestamp ? `, ${c.first_timestamp} → ${c.last_timestamp}` : '') +
        `; ${c.images} images, ${c.videos} videos, ${c.files} files, ${c.links} links`,
    );
    const text =
      `${all.length} conversation${all.length === 1 ? '' : 's'}${filters ? ` (${filters})` : ''}` +
      (structured.conversations.length < all.length ? `; ${structured.conversations.length} on this page` : '') +
      '.' +
      (lines.length ? `\n\n${lines.join('\n')}` : '') +
      renderNotes(structured.notes);
    return { structured, text };
  },
});
