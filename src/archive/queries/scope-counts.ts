/**
 * How many messages a search scope holds, and how many of them have a vector for a model — the receipt of a
 * search. Cheap on 1M-message archives: every count is answered inside SQLite from an index (conversation +
 * time, sender, time), never by reading rows into JS.
 *
 * - Conversation and date bounds are counted on `idx_messages_conv_ts` / `idx_messages_ts_unix` alone (covering).
 * - A source is the set of its conversations (`messages.source` is always the owning conversation's source), so
 *   it is counted per conversation on the same index.
 * - A sender alone is counted on `idx_messages_sender` (covering). Combined with other bounds, both sides are
 *   counted first (covering, cheap) and the smaller one drives the exact count; the other side's index is
 *   disabled with unary `+` so SQLite cannot pick the larger walk.
 * - Vector coverage probes the `(message_hash, model)` primary key of `embeddings` for each in-scope message;
 *   for the unscoped archive it is computed once per open (memoised).
 */
import type { Param, Sql } from '../connection';
import type { SchemaInfo } from '../schema';
import type { ScopeCounts, ScopeFilter } from '../types';
import { hasValue, jsonList, notHidden, num } from './rows';

interface Part {
  where: string[];
  params: Param[];
}

/** Conversation / source / date predicates on `m`; `plain` disables their indexes (unary +). */
function otherPart(schema: SchemaInfo, f: ScopeFilter, plain: boolean, hiddenIds?: readonly number[]): Part {
  const p = plain ? '+' : '';
  const where: string[] = [];
  const params: Param[] = [];
  if (f.conversationId !== undefined) {
    where.push(`${p}m.conversation_id = ?`);
    params.push(f.conversationId);
  } else if (hasValue(f.source)) {
    if (schema.conversationSource) {
      where.push(`${p}m.conversation_id IN (SELECT c.id FROM conversations c WHERE c.source = ?)`);
      params.push(f.source);
    } else {
      // Before v2 every message is from Signal.
      where.push(`'signal' = ?`);
      params.push(f.source);
    }
  }
  if (f.startUnix !== undefined) {
    where.push(`${p}m.ts_unix >= ?`);
    params.push(f.startUnix);
  }
  if (f.endUnix !== undefined) {
    where.push(`${p}m.ts_unix <= ?`);
    params.push(f.endUnix);
  }
  // "With" as a rowid IN list (SQLite seeks each message of idx_attachments_message / idx_links_message: 3× faster
  // than a per-row EXISTS at 1M messages); "without" has to look at every message either way.
  if (f.hasAttachment !== undefined)
    where.push(
      f.hasAttachment
        ? 'm.id IN (SELECT a.message_id FROM attachments a)'
        : 'NOT EXISTS (SELECT 1 FROM attachments a WHERE a.message_id = m.id)',
    );
  if (f.hasLink !== undefined)
    where.push(
      f.hasLink
        ? 'm.id IN (SELECT l.message_id FROM links l)'
        : 'NOT EXISTS (SELECT 1 FROM links l WHERE l.message_id = m.id)',
    );
  const hidden = notHidden(`${p}m.conversation_id`, hiddenIds);
  if (hidden) {
    where.push(hidden.where);
    params.push(hidden.param);
  }
  return { where, params };
}

function count(sql: Sql, parts: Part[], extra?: { where: string; params: Param[] }): number {
  const where = parts.flatMap((x) => x.where);
  const params = parts.flatMap((x) => x.params);
  if (extra) {
    where.push(extra.where);
    params.push(...extra.params);
  }
  return num(
    sql.value(`SELECT COUNT(*) FROM messages m${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params),
  );
}

const hasVector = (model: string) => ({
  where: 'EXISTS (SELECT 1 FROM embeddings e WHERE e.message_hash = m.hash AND e.model = ?)',
  params: [model],
});

/** Vectors of `model` that belong to an existing message (orphans are not coverage). */
export function modelCoverage(sql: Sql, schema: SchemaInfo, model: string): number {
  if (!schema.embeddings) return 0;
  return num(
    sql.value(
      'SELECT COUNT(*) FROM embeddings e WHERE e.model = ? AND EXISTS (SELECT 1 FROM messages m WHERE m.hash = e.message_hash)',
      [model],
    ),
  );
}

/** Vectors of `model` on messages of the given conversations (an index walk over those conversations only). */
export function hiddenCoverage(
  sql: Sql,
  schema: SchemaInfo,
  model: string,
  conversationIds: readonly number[],
): number {
  if (!schema.embeddings || !conversationIds.length) return 0;
  return num(
    sql.value(
      `SELECT COUNT(*) FROM messages m WHERE m.conversation_id IN (SELECT value FROM json_each(?))
         AND EXISTS (SELECT 1 FROM embeddings e WHERE e.message_hash = m.hash AND e.model = ?)`,
      [jsonList(conversationIds), model],
    ),
  );
}

/**
 * Whether `f` is the whole archive: then scopeCounts answers from the snapshot's own counts (kept per snapshot), with
 * no query of its own.
 */
export function isWholeArchive(f: ScopeFilter): boolean {
  return (
    f.conversationId === undefined &&
    !hasValue(f.source) &&
    !hasValue(f.sender) &&
    f.startUnix === undefined &&
    f.endUnix === undefined &&
    f.hasAttachment === undefined &&
    f.hasLink === undefined
  );
}

/**
 * Messages in the scope `f`, and (when `model` is given) how many of them have a vector for it.
 * `totalMessages` and `unscopedCoverage` answer the unscoped case without a query. `hidden` (conversation ids with
 * their message counts) are left out of every count: the unscoped case subtracts them (index counts over the hidden
 * conversations only), every other case excludes them in the statement.
 */
export function scopeCounts(
  sql: Sql,
  schema: SchemaInfo,
  f: ScopeFilter,
  model: string | undefined,
  totalMessages: () => number,
  unscopedCoverage: (model: string) => number,
  hidden: readonly { id: number; messageCount: number }[] = [],
): ScopeCounts {
  const hiddenIds = hidden.map((h) => h.id);
  const wantVectors = hasValue(model) && schema.embeddings;
  const vectors = (parts: Part[]): number | undefined =>
    hasValue(model) ? (wantVectors ? count(sql, parts, hasVector(model)) : 0) : undefined;
  const other = otherPart(schema, f, false, hiddenIds);
  const scoped = otherPart(schema, f, false).where.length > 0;
  const out = (messages: number, withVectors: number | undefined): ScopeCounts =>
    withVectors === undefined ? { messages } : { messages, withVectors, model };

  if (isWholeArchive(f)) {
    const messages = totalMessages() - hidden.reduce((n, h) => n + h.messageCount, 0);
    const coverage = () => unscopedCoverage(model!) - hiddenCoverage(sql, schema, model!, hiddenIds);
    return out(messages, hasValue(model) ? (wantVectors && messages > 0 ? coverage() : 0) : undefined);
  }
  if (!hasValue(f.sender)) {
    const messages = count(sql, [other]);
    return out(messages, messages === 0 ? (hasValue(model) ? 0 : undefined) : vectors([other]));
  }
  const senderPart = (plain: boolean): Part => ({ where: [`${plain ? '+' : ''}m.sender = ?`], params: [f.sender!] });
  // A sender alone (hidden conversations aside, checked per row of the sender's index walk).
  const senderParts = hiddenIds.length
    ? [senderPart(false), otherPart(schema, {}, true, hiddenIds)]
    : [senderPart(false)];
  const bySender = count(sql, senderParts);
  if (!scoped || bySender === 0)
    return out(bySender, bySender === 0 ? (hasValue(model) ? 0 : undefined) : vectors(senderParts));
  const byOther = count(sql, [other]);
  if (byOther === 0) return out(0, hasValue(model) ? 0 : undefined);
  // The smaller side drives; the other side's index is switched off.
  const parts =
    bySender <= byOther ? [senderPart(false), otherPart(schema, f, true, hiddenIds)] : [senderPart(true), other];
  const messages = count(sql, parts);
  return out(messages, messages === 0 ? (hasValue(model) ? 0 : undefined) : vectors(parts));
}
