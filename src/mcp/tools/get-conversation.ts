import { z } from 'zod';
import {
  type ConversationRow,
  hitFromMessage,
  inline,
  redactsFor,
  ToolError,
  withHitExtras,
  parseDayRange,
  clampLimit,
  resolveScope,
} from '../../core';
import { conversationResourceLink, renderHits, renderNotes, UNTRUSTED_NOTE } from '../render';
import { encodeCursor, decodeCursor } from '../cursor';
import {
  conversationScopeShape,
  dateParam,
  MessageHitSchema,
  notesField,
  positiveInt,
  strictInput,
  text,
} from '../tool-schemas';
import { fitPage, keptNote, OVERSIZE_NOTE, shortenHit, shrinkMessage } from '../answer-budget';
import { defineTool, RESULT_GUIDANCE } from '../tool';

export const GET_CONVERSATION_DEFAULT_LIMIT = 100;
export const GET_CONVERSATION_MAX_LIMIT = 500;

export const getConversationInput = strictInput('get_conversation', {
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

export const getConversationOutput = z.object({
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
    const notes: string[] = [];
    const limit = clampLimit('limit', args.limit, GET_CONVERSATION_DEFAULT_LIMIT, GET_CONVERSATION_MAX_LIMIT, notes);
    const archive = await env.archive();
    const range = parseDayRange(args.start, args.end);
    const named = (args.name !== undefined && args.name.trim() !== '') || args.conversation_id !== undefined;
    let after: { tsUnix: number; id: number } | undefined;
    let newest = args.order === 'newest';
    let startUnix = range.startUnix;
    let endUnix = range.endUnix;
    let conv: ConversationRow | undefined;
    if (args.cursor !== undefined) {
      const cur = decodeCursor(args.cursor);
      conv = await archive.conversationById(cur.conversationId, env.signal);
      if (!conv)
        throw new ToolError(
          `the conversation of this cursor (id ${cur.conversationId}) no longer exists — call list_conversations and start again without cursor`,
        );
      if (named) {
        const scope = await resolveScope(
          archive,
          { conversation: args.name, conversation_id: args.conversation_id, source: args.source },
          env.signal,
          env.choose,
        );
        if (scope.conversation?.id !== conv.id) {
          throw new ToolError(
            `cursor belongs to conversation_id ${conv.id} (${inline(conv.name)}), not the requested conversation; omit cursor to start another conversation`,
          );
        }
      }
      if (
        (args.start !== undefined && range.startUnix !== cur.startUnix) ||
        (args.end !== undefined && range.endUnix !== cur.endUnix)
      ) {
        throw new ToolError(
          'start/end differ from the ones this cursor was issued for; repeat the same start and end (or omit them) when passing cursor',
        );
      }
      const cursorOrder = cur.newest ? 'newest' : 'oldest';
      if (args.order !== undefined && args.order !== cursorOrder) {
        throw new ToolError(
          `this cursor continues order "${cursorOrder}", not "${args.order}"; repeat the same order (or omit it) when passing cursor, or omit cursor to start over`,
        );
      }
      newest = cur.newest === true;
      startUnix = cur.startUnix;
      endUnix = cur.endUnix;
      after = { tsUnix: cur.tsUnix, id: cur.id };
    } else {
      if (!named) throw new ToolError('name or conversation_id is required — use list_conversations to find them');
      conv = (
        await resolveScope(
          archive,
          { conversation: args.name, conversation_id: args.conversation_id, source: args.source },
          env.signal,
          env.choose,
        )
      ).conversation;
      if (!conv) throw new ToolError('name or conversation_id is required — use list_conversations to find them');
    }
    // A large page can take a moment on a big archive: say so to clients that asked for progress.
    const large = limit > GET_CONVERSATION_DEFAULT_LIMIT;
    if (large) env.progress?.(0, 2, `reading up to ${limit} messages of ${conv.name}`);
    const page = await archive.transcript(
      newest
        ? { conversationId: conv.id, startUnix, endUnix, limit, before: after, newestFirst: true }
        : { conversationId: conv.id, startUnix, endUnix, limit, after },
      env.signal,
    );
    const fmt = env.ctx.citation;
    const redact = redactsFor(env.ctx);
    const read = await withHitExtras(
      archive,
      page.messages.map((m) => shortenHit(hitFromMessage(fmt, m, undefined, redact))),
      redact,
      env.signal,
    );
    if (large) env.progress?.(2, 2, `read ${read.length} messages`);
    // Keyset paging: the next page starts strictly after (oldest) / before (newest) the last message returned —
    // the last of those the answer budget holds.
    let oversized = false;
    const build = (k: number) => {
      const last = page.messages[k - 1];
      const more = k < read.length || page.next;
      const nextCursor =
        more && last
          ? encodeCursor({ conversationId: conv.id, tsUnix: last.tsUnix, id: last.id, startUnix, endUnix, newest })
          : undefined;
      const cut = [
        ...(k < read.length ? [keptNote(k, read.length, 'messages', env.budget)] : []),
        ...(oversized ? [OVERSIZE_NOTE] : []),
      ];
      return {
        conversation: conv.name,
        conversation_id: conv.id,
        source: conv.source,
        messages: read.slice(0, k),
        has_more: nextCursor !== undefined,
        ...(nextCursor !== undefined ? { next_cursor: nextCursor } : {}),
        ...(notes.length || cut.length ? { notes: [...notes, ...cut] } : {}),
      };
    };
    const fit = fitPage(read, env.budget, build, shrinkMessage);
    oversized = fit.oversized;
    const structured = build(fit.kept);
    const messages = structured.messages;
    const nextCursor = structured.next_cursor;
    const bounds =
      startUnix !== undefined || endUnix !== undefined
        ? ` between ${args.start ?? 'the beginning'} and ${args.end ?? 'the end'}`
        : '';
    const text =
      `Transcript of ${inline(conv.name)} (${conv.source}, conversation_id ${conv.id})${bounds}: ${messages.length} message${messages.length === 1 ? '' : 's'}` +
      (after ? ' continuing from the cursor' : '') +
      `, ${newest ? 'newest' : 'oldest'} first.\n${UNTRUSTED_NOTE}\n\n${renderHits(messages, { numbered: false })}` +
      (nextCursor ? `\n\nMore messages follow: call get_conversation with cursor "${nextCursor}".` : '') +
      renderNotes(structured.notes);
    return { structured, text, resources: [conversationResourceLink(conv)] };
  },
});
