/** What opening a citation shows, in one snapshot so the cited message, its page and its day agree. */
import type { Sql } from '../connection';
import type { SchemaInfo } from '../schema';
import type { CitationView, CitationViewRequest, ConversationRow, MessageRow } from '../types';
import { conversationPage } from './conversation-page';
import { journalDay, utcDay } from './journal';
import { messageById, messagesByHashPrefix } from './messages';

/**
 * The message a citation names, in the caller's snapshot: the row at the id when it holds the hash (or no hash is
 * given), else the one row whose hash starts with it (`byHash`: up to 2, read only then). Hidden rows are left out.
 */
export function citedMessage(
  sql: Sql,
  schema: SchemaInfo,
  messageId: number,
  rawHash: string | undefined,
  hiddenIds: readonly number[],
): { atId?: MessageRow; byHash: MessageRow[]; cited?: MessageRow } {
  const found = messageById(sql, schema, messageId);
  const atId = found && !hiddenIds.includes(found.conversationId) ? found : undefined;
  const hash = rawHash?.toLowerCase();
  const holds = !hash || atId?.hash.startsWith(hash) === true;
  const byHash = hash && !holds ? messagesByHashPrefix(sql, schema, hash, 2, hiddenIds) : [];
  const cited = holds ? atId : byHash.length === 1 ? byHash[0] : undefined;
  return { ...(atId ? { atId } : {}), byHash, ...(cited ? { cited } : {}) };
}

export function citationView(
  sql: Sql,
  schema: SchemaInfo,
  conversationById: (id: number) => ConversationRow | undefined,
  req: CitationViewRequest,
  hiddenIds: readonly number[],
): CitationView {
  const { atId, byHash, cited } = citedMessage(sql, schema, req.messageId, req.hash, hiddenIds);
  const view: CitationView = { ...(atId ? { atId } : {}), byHash };
  const conversationId = req.conversationId ?? cited?.conversationId;
  if (conversationId === undefined) return view;
  const at =
    cited?.conversationId === conversationId
      ? { kind: 'around' as const, messageId: cited.id }
      : { kind: 'end' as const };
  const page = { conversationId, at, limit: req.limit };
  view.page = conversationPage(sql, schema, conversationById(conversationId), page, hiddenIds);
  const anchor = view.page.anchor;
  // The day as the journal counts it: the UTC day of ts_unix.
  const start = anchor && Math.floor(anchor.tsUnix / 86_400) * 86_400;
  // The digest is an extra: a day that cannot be read (a timestamp out of range, an odd digest table) opens without it.
  try {
    if (start !== undefined) view.day = journalDay(sql, schema, utcDay(start), start, hiddenIds);
  } catch {
    delete view.day;
  }
  return view;
}
