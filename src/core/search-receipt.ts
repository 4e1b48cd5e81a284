/** What a search looked at, so a reader can tell "nobody said it" from "it was not searched". */
import { MAX_QUERY_TOKENS, type FtsQueryPlan } from '../archive/fts-query';
import type { AsyncArchive, ScopeCounts, ScopeFilter } from '../archive/types';
import { inline } from './text';
import type { KeywordReading, SearchReceipt, SearchScope, SemanticStatusItem } from './results';
import type { Scope } from './scope';

interface ReceiptRequest extends Scope {
  /** The days as given (YYYY-MM-DD) and their wall-clock-as-UTC bounds. */
  start?: string;
  end?: string;
  startUnix?: number;
  endUnix?: number;
  hasAttachment?: boolean;
  hasLink?: boolean;
  /** The keyword reading (search_messages); absent for a purely semantic search. */
  plan?: FtsQueryPlan;
  semantic: SemanticStatusItem;
}

const MAX_IGNORED_SHOWN = 10;

function keywordReading(plan: FtsQueryPlan): KeywordReading {
  return {
    tokens: plan.tokens,
    total_tokens: plan.total,
    duplicates_removed: plan.duplicates,
    ignored: plan.ignored.slice(0, MAX_IGNORED_SHOWN),
    dropped_over_cap: plan.overCap,
    max_tokens: MAX_QUERY_TOKENS,
  };
}

/** Notes for what the reading left out (empty when the query was searched as written). */
export function readingNotes(plan: FtsQueryPlan): string[] {
  const notes: string[] = [];
  if (plan.overCap > 0)
    notes.push(
      `the query has ${plan.tokens.length + plan.overCap} distinct words; keyword search used the first ${MAX_QUERY_TOKENS} and dropped ${plan.overCap}`,
    );
  if (plan.duplicates > 0)
    notes.push(`${plan.duplicates} repeated word${plan.duplicates === 1 ? ' was' : 's were'} searched once`);
  if (plan.ignored.length > 0)
    notes.push(
      `${plan.ignored.length} word${plan.ignored.length === 1 ? '' : 's'} without a letter or digit cannot match and ${plan.ignored.length === 1 ? 'was' : 'were'} left out`,
    );
  return notes;
}

/** The archive scope a receipt counts (a conversation implies its source). */
export function receiptScope(req: Omit<ReceiptRequest, 'semantic' | 'plan'>): ScopeFilter {
  const c = req.conversation;
  return {
    conversationId: c?.id,
    source: c ? c.source : req.source,
    sender: req.sender,
    startUnix: req.startUnix,
    endUnix: req.endUnix,
    hasAttachment: req.hasAttachment,
    hasLink: req.hasLink,
  };
}

/** `counts`: those of `receiptScope(req)` for `model` when the caller read them with its hits; else asked for. */
export async function searchReceipt(
  archive: AsyncArchive,
  req: ReceiptRequest,
  model: string | undefined,
  signal?: AbortSignal,
  counts?: ScopeCounts,
): Promise<SearchReceipt> {
  const c = req.conversation;
  const source = c ? c.source : req.source;
  counts ??= await archive.scopeCounts(receiptScope(req), model, signal);
  const scope: SearchScope = {
    ...(c ? { conversation_id: c.id, conversation: c.name } : {}),
    ...(source !== undefined ? { source } : {}),
    ...(req.sender !== undefined ? { sender: req.sender } : {}),
    ...(req.start ? { start: req.start } : {}),
    ...(req.end ? { end: req.end } : {}),
    ...(req.hasAttachment !== undefined ? { has_attachment: req.hasAttachment } : {}),
    ...(req.hasLink !== undefined ? { has_link: req.hasLink } : {}),
  };
  return {
    scope,
    messages_in_scope: counts.messages,
    // Labelled with the model the counts are of (the same as `model` when they were asked for here).
    ...(counts.model && counts.withVectors !== undefined
      ? { vector_coverage: { model: counts.model, messages_with_vectors: counts.withVectors } }
      : {}),
    ...(req.plan ? { keyword: keywordReading(req.plan) } : {}),
    semantic: req.semantic,
  };
}

/** One short line for the text block. */
export function receiptLine(r: SearchReceipt): string {
  const s = r.scope;
  const parts = [
    s.conversation !== undefined
      ? `conversation ${inline(s.conversation)} (id ${s.conversation_id})`
      : 'all conversations',
  ];
  if (s.source && s.conversation === undefined) parts.push(`source ${s.source}`);
  if (s.sender !== undefined) parts.push(`sender ${inline(s.sender)}`);
  if (s.start || s.end) parts.push(`${s.start ?? '…'} to ${s.end ?? '…'}`);
  if (s.has_attachment !== undefined) parts.push(s.has_attachment ? 'with attachments' : 'without attachments');
  if (s.has_link !== undefined) parts.push(s.has_link ? 'with links' : 'without links');
  let line = `Searched ${parts.join(', ')}: ${r.messages_in_scope} message${r.messages_in_scope === 1 ? '' : 's'}`;
  if (r.vector_coverage)
    line += `, ${r.vector_coverage.messages_with_vectors} with vectors for "${r.vector_coverage.model}"`;
  return `${line}.`;
}
