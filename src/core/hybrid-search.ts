/** Keyword and semantic halves run concurrently, fused by rank; without the semantic half the keyword one answers. */
import { planFtsQuery, type FtsQueryPlan } from '../archive/fts-query';
import type { AsyncArchive, MessageFilter, ScopeCounts, ScopeFilter } from '../archive/types';
import { fuseHybrid } from '../search/fusion';
import type { ServerContext } from './context';
import { hitFromKeyword, hitFromMessage } from './hits';
import { knownExtras, withHitExtras } from './hit-extras';
import type { MessageHit, SemanticStatusItem } from './results';
import { runSemantic, semanticModelOf } from './semantic-query';

/** How long the keyword half waits for the query embedding (docs/TOOLS.md): past it, the keyword hits answer alone. */
const SEMANTIC_BUDGET_MS = 1500;

interface HybridSearchRequest {
  /** Cleaned by cleanQuery. */
  query: string;
  limit: number;
  filter?: MessageFilter;
  /** Model-facing callers pass `redactsFor(ctx)`; the palette leaves it off. */
  redact?: boolean;
  /** The scope the caller's receipt counts, read with the keyword hits; absent: nothing is counted (the palette). */
  receiptScope?: ScopeFilter;
}

export interface HybridSearchResult {
  hits: MessageHit[];
  semantic: SemanticStatusItem;
  /** Set when the semantic half was configured but failed for this query (worth a warning). */
  semanticFailure?: string;
  /** The counts of `receiptScope`, for `semantic.model`. */
  counts?: ScopeCounts;
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
  // The state names the model whose vectors the receipt counts; if asking for it fails, the keyword half still answers
  // (counting no vectors) and runSemantic, which rejects only on cancellation, reports the failure.
  const state = ctx.semantic(signal, { wait: false });
  const counted = state.then(semanticModelOf, () => undefined);
  const [bundle, sem] = await Promise.all([
    counted.then((model) => archive.searchKeywordBundle({ query, limit, ...filter }, req.receiptScope, model, signal)),
    // Never wait for an index build or a slow endpoint: the keyword half answers now, the hybrid one next time.
    runSemantic(ctx, archive, query, limit, filter, signal, { wait: false, state, embedBudgetMs: SEMANTIC_BUDGET_MS }),
  ]);
  const fmt = ctx.citation;
  // Both halves read their hits' extras with their hits, so the fused hits need no archive call of their own.
  const known = knownExtras([
    { hashes: bundle.hits.map((h) => h.hash), ids: bundle.hits.map((h) => h.id), rows: bundle.extras },
    ...(sem.ok ? [sem.known] : []),
  ]);
  const fused = fuseHybrid(bundle.hits, sem.ok ? sem.hits : [], limit).map((e) =>
    e.keyword
      ? hitFromKeyword(fmt, e.keyword, e.score, req.redact)
      : hitFromMessage(fmt, e.semantic!.message, e.score, req.redact),
  );
  const hits = await withHitExtras(archive, fused, req.redact === true, signal, known);
  const semantic: SemanticStatusItem = sem.ok
    ? { used: true, model: sem.model }
    : { used: false, reason: sem.reason, ...(sem.model ? { model: sem.model } : {}) };
  // Both models come from the same state; were they ever to differ, the counts are read again for the one reported.
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
