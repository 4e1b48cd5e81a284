import { z } from 'zod';
import { inline, MessageHitSchema, readConversation } from '../../core';
import { conversationResourceLink, renderHits, renderNotes, UNTRUSTED_NOTE } from '../render';
import { encodeCursor, decodeCursor } from '../cursor';
import { conversationScopeShape, dateParam, notesField, positiveInt, strictInput, text } from '../tool-schemas';
import { keysetPage } from '../answer-budget';
import { defineTool, RESULT_GUIDANCE } from '../tool';

const getConversationInput = strictInput('get_conversation', {
  name: text('name')
    .optional()
    .describe('the conversation name (person or group), exactly as list_conversations shows it'),
  conversation_id: conversationScopeShape.conversation_id,
  source: conversationScopeShape.source.describe(
    'source of the named conversation when the name exists in several sources',
  ),
  start: dateParam('start').optional(),
  end: dateParam('end').optional(),
  limit: positiveInt('limit')
    .optional()
    .describe(
      'max messages per page (default 100, max 500; larger values are clamped); a page also ends where the answer budget does',
    ),
  order: z
    .enum(['oldest', 'newest'])
    .optional()
    .describe(
      '"oldest" (default): chronological from the first message; "newest": the latest message first, each next page older — e.g. what someone said last',
    ),
  cursor: text('cursor')
    .optional()
    .describe('next_cursor from a previous get_conversation result, to read the following page (in the same order)'),
});

const getConversationOutput = z.object({
  conversation: z.string(),
  conversation_id: z.number().int(),
  source: z.string(),
  messages: z.array(MessageHitSchema),
  has_more: z.boolean(),
  next_cursor: z.string().optional().describe('pass as cursor to get the next page; absent on the last page'),
  notes: notesField,
});

export const getConversation = defineTool({
  name: 'get_conversation',
  title: 'Read a conversation',
  description:
    'Retrieve a conversation\'s transcript, oldest first (or newest first with order "newest"), optionally bounded by a date range. ' +
    'Identify it by name (plus source if the name exists in several sources) or conversation_id; use list_conversations to discover them. ' +
    'Long transcripts are paged: pass next_cursor back as cursor to continue; a page holds what the answer budget allows (at most limit messages).' +
    RESULT_GUIDANCE,
  inputSchema: getConversationInput,
  outputSchema: getConversationOutput,
  async handler(args, env) {
    const answer = await readConversation(args, args.cursor === undefined ? undefined : decodeCursor(args.cursor), env);
    const { conversation: conv, rows, newest, startUnix, endUnix } = answer;
    // Keyset paging: the next page starts strictly after (oldest) / before (newest) the last message shown.
    const structured = keysetPage(
      answer,
      env.budget,
      (i) =>
        encodeCursor({ conversationId: conv.id, tsUnix: rows[i].tsUnix, id: rows[i].id, startUnix, endUnix, newest }),
      (messages, p) => ({
        conversation: conv.name,
        conversation_id: conv.id,
        source: conv.source,
        messages,
        has_more: p.next_cursor !== undefined,
        ...p,
      }),
    );
    const { messages, next_cursor: nextCursor } = structured;
    const bounds =
      startUnix !== undefined || endUnix !== undefined
        ? ` between ${args.start ?? 'the beginning'} and ${args.end ?? 'the end'}`
        : '';
    const text =
      `Transcript of ${inline(conv.name)} (${conv.source}, conversation_id ${conv.id})${bounds}: ${messages.length} message${messages.length === 1 ? '' : 's'}` +
      (args.cursor !== undefined ? ' continuing from the cursor' : '') +
      `, ${newest ? 'newest' : 'oldest'} first.\n${UNTRUSTED_NOTE}\n\n${renderHits(messages, { numbered: false })}` +
      (nextCursor ? `\n\nMore messages follow: call get_conversation with cursor "${nextCursor}".` : '') +
      renderNotes(structured.notes);
    return { structured, text, resources: [conversationResourceLink(conv)] };
  },
});
