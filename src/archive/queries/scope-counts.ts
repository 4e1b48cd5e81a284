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
import { hasValue, num } from './rows';

interface Part {
  where: string[];
  params: Param[];
}

/** Conversation / source / date predicates on `m`; `plain` disables their indexes (unary +). */
function otherPart(schema: SchemaInfo, f: ScopeFilter, plain: boolean): Part {
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
  return { where, params };
}

function count(sql: Sql, parts: Part[], extra?: { where: string; params: Param[] }): number {
  const where = parts.flatMap((x) => x.where);
  const params = parts.flatMap((x) => x.params);
  if (extra) {
    where.push(extra.where);
    params.push(...extra.params);
  }
  return num(sql.value(`SELECT COUNT(*) FROM messages m${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params));
}

const hasVector = (model: string) => ({ where: 'EXISTS (SELECT 1 FROM embeddings e WHERE e.message_hash = m.hash AND e.model = ?)', params: [model] });

/** Vectors of `model` that belong to an existing message (orphans are not coverage). */
export function modelCoverage(sql: Sql, schema: SchemaInfo, model: string): number {
  if (!schema.embeddings) return 0;
  return num(
    sql.value('SELECT COUNT(*) FROM embeddings e WHERE e.model = ? AND EXISTS (SELECT 1 FROM messages m WHERE m.hash = e.message_hash)', [model]),
  );
}

/**
 * Messages in the scope `f`, and (when `model` is given) how many of them have a vector for it.
 * `totalMessages` and `unscopedCoverage` answer the unscoped case without a query.
 */
export function scopeCounts(
  sql: Sql,
  schema: SchemaInfo,
  f: ScopeFilter,
  model: string | undefined,
  totalMessages: () => number,
  unscopedCoverage: (model: string) => number,
): ScopeCounts {
  const wantVectors = hasValue(model) && schema.embeddings;
  const vectors = (parts: Part[]): number | undefined => (hasValue(model) ? (wantVectors ? count(sql, parts, hasVector(model)) : 0) : undefined);
  const other = otherPart(schema, f, false);
  const scoped = other.where.length > 0;
  const out = (messages: number, withVectors: number | undefined): ScopeCounts =>
    withVectors === undefined ? { messages } : { messages, withVectors, model };

  if (!hasValue(f.sender)) {
    if (!scoped) return out(totalMessages(), hasValue(model) ? (wantVectors ? unscopedCoverage(model) : 0) : undefined);
    const messages = count(sql, [other]);
    return out(messages, messages === 0 ? (hasValue(model) ? 0 : undefined) : vectors([other]));
  }
  const senderPart = (plain: boolean): Part => ({ where: [`${plain ? '+' : ''}m.sender = ?`], params: [f.sender!] });
  const bySender = count(sql, [senderPart(false)]);
  if (!scoped || bySender === 0) return out(bySender, bySender === 0 ? (hasValue(model) ? 0 : undefined) : vectors([senderPart(false)]));
  const byOther = count(sql, [other]);
  if (byOther === 0) return out(0, hasValue(model) ? 0 : undefined);
  // The smaller side drives; the other side's index is switched off.
  const parts = bySender <= byOther ? [senderPart(false), otherPart(schema, f, true)] : [senderPart(true), other];
  const messages = count(sql, parts);
  return out(messages, messages === 0 ? (hasValue(model) ? 0 : undefined) : vectors(parts));
}
