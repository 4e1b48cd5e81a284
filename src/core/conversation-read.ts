/** get_conversation's read: the conversation (named, or the one a cursor continues), its bounds and order, one page. */
import type { AsyncArchive, ConversationRow } from '../archive/types';
import { ToolError } from './errors';
import { messageHits } from './hit-extras';
import { clampLimit, type DayRange, parseDayRange } from './request';
import { resolveScope } from './scope';
import type { CallEnv } from './message-search';
import { inline } from './text';

const CONVERSATION_DEFAULT_LIMIT = 100;
const CONVERSATION_MAX_LIMIT = 500;

/** Where a page continues (what get_conversation's cursor carries): after (ts_unix, id), or before it when newest. */
export type TranscriptPosition = DayRange & { conversationId: number; tsUnix: number; id: number; newest?: boolean };

interface ConversationArgs {
  name?: string;
  conversation_id?: number;
  source?: string;
  start?: string;
  end?: string;
  limit?: number;
  order?: 'oldest' | 'newest';
}

export async function readConversation(args: ConversationArgs, from: TranscriptPosition | undefined, env: CallEnv) {
  const notes: string[] = [];
  const limit = clampLimit('limit', args.limit, CONVERSATION_DEFAULT_LIMIT, CONVERSATION_MAX_LIMIT, notes);
  const archive = await env.archive();
  const range = parseDayRange(args.start, args.end);
  const named = (args.name !== undefined && args.name.trim() !== '') || args.conversation_id !== undefined;
  const scopeArgs = { conversation: args.name, conversation_id: args.conversation_id, source: args.source };
  const resolveNamed = async () => (await resolveScope(archive, scopeArgs, env.signal, env.choose)).conversation;
  const conv = from
    ? await cursorConversation(archive, from, args, range, named ? resolveNamed : undefined, env.signal)
    : named
      ? await resolveNamed()
      : undefined;
  if (!conv) throw new ToolError('name or conversation_id is required — use list_conversations to find them');
  const newest = from ? from.newest === true : args.order === 'newest';
  const { startUnix, endUnix } = from ?? range;
  // A large page can take a moment on a big archive: say so to clients that asked for progress.
  const large = limit > CONVERSATION_DEFAULT_LIMIT;
  if (large) env.progress?.(0, 2, `reading up to ${limit} messages of ${conv.name}`);
  const at = from && { tsUnix: from.tsUnix, id: from.id };
  const page = await archive.transcript(
    newest
      ? { conversationId: conv.id, startUnix, endUnix, limit, before: at, newestFirst: true }
      : { conversationId: conv.id, startUnix, endUnix, limit, after: at },
    env.signal,
  );
  const hits = await messageHits(env.ctx, archive, page.messages, env.signal);
  if (large) env.progress?.(2, 2, `read ${hits.length} messages`);
  return { conversation: conv, rows: page.messages, hits, more: !!page.next, newest, startUnix, endUnix, notes };
}

/** The cursor's conversation, refused when the call names another one or changes the bounds or the order. */
async function cursorConversation(
  archive: AsyncArchive,
  from: TranscriptPosition,
  args: ConversationArgs,
  range: DayRange,
  resolveNamed: (() => Promise<ConversationRow | undefined>) | undefined,
  signal: AbortSignal,
): Promise<ConversationRow> {
  const conv = await archive.conversationById(from.conversationId, signal);
  if (!conv)
    throw new ToolError(
      `the conversation of this cursor (id ${from.conversationId}) no longer exists — call list_conversations and start again without cursor`,
    );
  if (resolveNamed && (await resolveNamed())?.id !== conv.id)
    throw new ToolError(
      `cursor belongs to conversation_id ${conv.id} (${inline(conv.name)}), not the requested conversation; omit cursor to start another conversation`,
    );
  if (
    (args.start !== undefined && range.startUnix !== from.startUnix) ||
    (args.end !== undefined && range.endUnix !== from.endUnix)
  ) {
    throw new ToolError(
      'start/end differ from the ones this cursor was issued for; repeat the same start and end (or omit them) when passing cursor',
    );
  }
  const cursorOrder = from.newest ? 'newest' : 'oldest';
  if (args.order !== undefined && args.order !== cursorOrder)
    throw new ToolError(
      `this cursor continues order "${cursorOrder}", not "${args.order}"; repeat the same order (or omit it) when passing cursor, or omit cursor to start over`,
    );
  return conv;
}
