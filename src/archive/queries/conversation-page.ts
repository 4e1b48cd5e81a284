/** One viewer page, composed from other queries so that all of it comes from one snapshot (one worker round trip). */
import type { Sql } from '../connection';
import type { SchemaInfo } from '../schema';
import type {
  ConversationPage,
  ConversationPageOptions,
  ConversationRow,
  MessageRow,
  TranscriptCursor,
} from '../types';
import { attachmentsForMessages, messageById, reactionsForHashes } from './messages';
import { positiveLimit } from './rows';
import { transcript } from './transcript';

/** A cursor after every message. */
const END = Number.MAX_SAFE_INTEGER;

export function conversationPage(
  sql: Sql,
  schema: SchemaInfo,
  conversation: ConversationRow | undefined,
  opts: ConversationPageOptions,
  hiddenIds?: readonly number[],
): ConversationPage {
  const limit = positiveLimit(opts.limit);
  const empty = { messages: [], hasBefore: false, hasAfter: false, attachments: [], reactions: [] };
  if (!conversation) return empty;
  const conversationId = conversation.id;
  const at = opts.at;
  const found = at.kind === 'end' ? undefined : messageById(sql, schema, at.messageId);
  const anchor = found && hiddenIds?.includes(found.conversationId) ? undefined : found;
  if (anchor && anchor.conversationId !== conversationId) return { conversation, anchor, ...empty };

  let messages: MessageRow[];
  let hasBefore: boolean;
  let hasAfter: boolean;
  if (anchor && at.kind === 'around') {
    const half = Math.max(1, Math.floor(limit / 2));
    const before = transcript(sql, schema, { conversationId, before: cursor(anchor), limit: half });
    // Strictly after (ts_unix, id - 1) includes the anchor itself.
    const after = transcript(sql, schema, {
      conversationId,
      after: { tsUnix: anchor.tsUnix, id: anchor.id - 1 },
      limit: limit - half + 1,
    });
    messages = [...before.messages, ...after.messages];
    hasBefore = before.next !== undefined;
    hasAfter = after.next !== undefined;
  } else if (anchor && (at.kind === 'before' || at.kind === 'after')) {
    const page = transcript(
      sql,
      schema,
      at.kind === 'before'
        ? { conversationId, before: cursor(anchor), limit }
        : { conversationId, after: cursor(anchor), limit },
    );
    messages = page.messages;
    // The anchor itself lies on the other side of a non-empty page.
    hasBefore = at.kind === 'before' ? page.next !== undefined : messages.length > 0;
    hasAfter = at.kind === 'after' ? page.next !== undefined : messages.length > 0;
  } else if (at.kind === 'end' || at.kind === 'around') {
    // Also `around` a message that is not in the archive.
    const tail = transcript(sql, schema, { conversationId, before: { tsUnix: END, id: END }, limit });
    messages = tail.messages;
    hasBefore = tail.next !== undefined;
    hasAfter = false;
  } else {
    return { conversation, ...empty };
  }

  const ids = messages.map((m) => m.id);
  const hashes = messages.map((m) => m.hash);
  return {
    conversation,
    ...(anchor ? { anchor } : {}),
    messages,
    hasBefore,
    hasAfter,
    attachments: attachmentsForMessages(sql, schema, ids),
    reactions: reactionsForHashes(sql, schema, hashes),
  };
}

const cursor = (m: MessageRow): TranscriptCursor => ({ tsUnix: m.tsUnix, id: m.id });
