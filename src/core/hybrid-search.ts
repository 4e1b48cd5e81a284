/**
 * Hybrid search, the use case behind `search_messages` and the palette: keyword (FTS5) and semantic (stored
 * embeddings) halves run concurrently, are fused by reciprocal rank, and come back as cited message hits. When the
 * semantic half is unavailable or fails, the keyword half still answers and the result says why.
 */
import { planFtsQuery, type FtsQueryPlan } from '../archive/fts-query';
import type { AsyncArchive, ScopeCounts, ScopeFilter } from '../archive/types';
import { fuseHybrid } from '../search/fusion';
import type { ServerContext } from './context';
import { hitFromKeyword, hitFromMessage } from './hits';
import { knownExtras, withHitExtras } from './hit-extras';
import type { MessageHit, SemanticStatusItem } from './results';
import { runSemantic, semanticModelOf } from './semantic-query';

/**
 * How long the keyword half waits for the query embedding (README: "Semantic budget"). Past it the keyword hits
 * are returned with `semantic: {used: false, reason: "the embeddings endpoint did not answer within 1.5 s …"}`.
 */
export const SEMANTIC_BUDGET_MS = 1500;

export interface HybridFilter {
  conversationId?: number;
  source?: string;
  sender?: string;
  startUnix?: number;
  endUnix?: number;
  /** Only messages with (true) / without (false) an attachment — both halves. */
  hasAttachment?: boolean;
  /** Only messages with (true) / without (false) a link — both halves. */
  hasLink?: boolean;
}

export interface HybridSearchRequest {
  /** A cleaned query (see cleanQuery). */
  query: string;
  limit: number;
  filter?: HybridFilter;
  /** Redact secrets in the hits' text: model-facing callers pass `redactsFor(ctx)`; the palette leaves it off. */
  redact?: boolean;
  /** Overrides SEMANTIC_BUDGET_MS (tests). */
  semanticBudgetMs?: number;
  /**
   * The scope the caller's receipt counts (search-receipt.ts `receiptScope`): counted in the same archive call as
   * the keyword hits, for the model the semantic half reports. Absent: nothing is counted (the palette).
   */
  receiptScope?: ScopeFilter;
}

export interface HybridSearchResult {
  hits: MessageHit[];
  /** Whether the semantic half contributed, and why not. */
  semantic: SemanticStatusItem;
  /** Set when the semantic half was configured but failed for this query (worth a warning). */
  semanticFailure?: string;
  /** The counts of `receiptScope` (read with the keyword hits), for `semantic.model`; absent without a receiptScope. */
  counts?: ScopeCounts;
  /** How the keyword half read the query (the tokens searched, what was left out). */
  plan: FtsQueryPlan;
}

export async function hybridSearch(
  ctx: ServerContext,
  archive: AsyncArchive,
  req: HybridSearchRequest,
  signal: AbortSignal,
): Promise<HybridSearchResult> {
  const { query, limit } = req;
  const filter = req.filter ?? {};
  // The semantic state (memoised) names the model the semantic half will report, whose vectors the receipt counts.
  // The two halves run concurrently (the embedding request is network-bound). The keyword half is one archive call
  // (hits, their reactions and attachments, the receipt's counts) and does not depend on the state: if asking for it
  // fails, the keyword half still answers (counting no vectors) and runSemantic reports the failure. runSemantic never
  // rejects except on cancellation, so a keyword failure cannot leave it dangling.
  const state = ctx.semantic(signal, { wait: false });
  const counted = state.then(semanticModelOf, () => undefined);
  const [bundle, sem] = await Promise.all([
    counted.then((model) => archive.searchKeywordBundle({ query, limit, ...filter }, req.receiptScope, model, signal)),
    // Never wait for an index build or a slow endpoint: the keyword half answers now, the hybrid one next time.
    runSemantic(ctx, archive, query, limit, filter, signal, {
      wait: false,
      state,
      embedBudgetMs: req.semanticBudgetMs ?? SEMANTIC_BUDGET_MS,
    }),
  ]);
  const fmt = ctx.citation;
  // Both halves read their hits' extras with their hits, so the fused hits need no archive call of their own.
  const known = knownExtras([
    { hashes: bundle.hits.map((h) => h.hash), ids: bundle.hits.map((h) => h.id), rows: bundle.extras },
    ...(sem.ok
      ? [{ hashes: sem.hits.map((h) => h.message.hash), ids: sem.hits.map((h) => h.messageId), rows: sem.extras }]
      : []),
  ]);
  const hits = await withHitExtras(
    archive,
    fuseHybrid(bundle.hits, sem.ok ? sem.hits : [], limit).map((e) =>
      e.keyword
        ? hitFromKeyword(fmt, e.keyword, e.score, req.redact)
        : hitFromMessage(fmt, e.semantic!.message, e.score, req.redact),
    ),
    req.redact === true,
    signal,
    known,
  );
  const semantic: SemanticStatusItem = sem.ok
    ? { used: true, model: sem.model }
    : { used: false, reason: sem.reason, ...(sem.model ? { model: sem.model } : {}) };
  // Both models come from the same state, so they agree; were they ever not to, the counts are read again for the
  // model reported rather than shown under the wrong one.
  let counts = bundle.counts;
  if (req.receiptScope && (await counted) !== semantic.model)
    counts = await archive.scopeCounts(req.receiptScope, semantic.model, signal);
  return {
    hits,
    semantic,
    ...(counts ? { counts } : {}),
    plan: planFtsQuery(query),
    ...(!sem.ok && sem.kind !== 'unavailable' ? { semanticFailure: sem.reason } : {}),
  };
}
