/** A search scope's message and vector counts (its receipt), each from a covering index inside SQLite. */
import type { Sql } from '../connection';
import type { Snapshot } from '../methods';
import type { SchemaInfo } from '../schema';
import type { ScopeCounts, ScopeFilter } from '../types';
import { hasValue, jsonList, num, Where } from './rows';

type Part = Pick<Where, 'where' | 'params'>;

/** Conversation / source / date predicates on `m`; `plain` disables their indexes (unary +). */
function otherPart(schema: SchemaInfo, f: ScopeFilter, plain: boolean, hiddenIds?: readonly number[]): Part {
  const p = plain ? '+' : '';
  const w = new Where();
  if (f.conversationId !== undefined) w.add(`${p}m.conversation_id = ?`, f.conversationId);
  else if (schema.conversationSource)
    w.add(`${p}m.conversation_id IN (SELECT c.id FROM conversations c WHERE c.source = ?)`, f.source);
  else w.add(`'signal' = ?`, f.source); // before v2 every message is from Signal
  w.add(`${p}m.ts_unix >= ?`, f.startUnix).add(`${p}m.ts_unix <= ?`, f.endUnix);
  // "With" as a rowid IN list (SQLite seeks each message in idx_attachments_message / idx_links_message, faster than a
  // per-row EXISTS); "without" has to look at every message either way.
  if (f.hasAttachment !== undefined)
    w.must(
      f.hasAttachment
        ? 'm.id IN (SELECT a.message_id FROM attachments a)'
        : 'NOT EXISTS (SELECT 1 FROM attachments a WHERE a.message_id = m.id)',
    );
  if (f.hasLink !== undefined)
    w.must(
      f.hasLink
        ? 'm.id IN (SELECT l.message_id FROM links l)'
        : 'NOT EXISTS (SELECT 1 FROM links l WHERE l.message_id = m.id)',
    );
  return w.notHidden(`${p}m.conversation_id`, hiddenIds);
}

function count(sql: Sql, parts: Part[]): number {
  const where = parts.flatMap((x) => x.where);
  const params = parts.flatMap((x) => x.params);
  return num(
    sql.value(`SELECT COUNT(*) FROM messages m${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params),
  );
}

const hasVector = (model: string): Part => ({
  where: ['EXISTS (SELECT 1 FROM embeddings e WHERE e.message_hash = m.hash AND e.model = ?)'],
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

/** Whether `f` is the whole archive: scopeCounts then answers from the snapshot's own counts. */
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

/** Archive.primeModelCoverage fills the same entry. */
export function coverageMemoKey(model: string): string {
  return `coverage:${model}`;
}

/**
 * Messages in the scope `f`, and (given `model`) how many of them have a vector for it. `hidden` conversations are
 * left out of every count: the unscoped case subtracts theirs, every other case excludes them in the statement.
 */
export function scopeCounts(
  s: Snapshot,
  f: ScopeFilter,
  model: string | undefined,
  hidden: readonly { id: number; messageCount: number }[],
): ScopeCounts {
  const { sql, schema } = s;
  const hiddenIds = hidden.map((h) => h.id);
  const wantVectors = hasValue(model) && schema.embeddings;
  const vectors = (parts: Part[]): number | undefined =>
    hasValue(model) ? (wantVectors ? count(sql, [...parts, hasVector(model)]) : 0) : undefined;
  const other = otherPart(schema, f, false, hiddenIds);
  const scoped = otherPart(schema, f, false).where.length > 0;
  const out = (messages: number, withVectors: number | undefined): ScopeCounts =>
    withVectors === undefined ? { messages } : { messages, withVectors, model };

  if (isWholeArchive(f)) {
    // Counted on the smallest index (no conversation listing on the path of a first search).
    const all = s.memo('message-count', () => num(sql.value('SELECT COUNT(*) FROM messages')));
    const messages = all - hidden.reduce((n, h) => n + h.messageCount, 0);
    const unscoped = (m: string) => s.memo(coverageMemoKey(m), () => modelCoverage(sql, schema, m));
    const coverage = () => unscoped(model!) - hiddenCoverage(sql, schema, model!, hiddenIds);
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
