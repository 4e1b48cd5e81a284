/**
 * Palette and API search: the core's hybrid search (the use case `search_messages` runs, with the same query
 * hygiene and ranking), called directly. Hits are the shared `MessageHit` of core/results.ts.
 */
import { errorMessage } from '../core/errors';
import type { ServerContext } from '../core/context';
import { hybridSearch, type HybridSearchResult } from '../core/hybrid-search';
import { cleanQuery } from '../core/query';
import type { MessageHit } from '../core/results';

export type SearchHit = MessageHit;

/** Ranked, cited hits and whether the semantic half contributed (and why not). */
export type SearchResult = Pick<HybridSearchResult, 'hits' | 'semantic'>;

/** The most hits one search returns (as search_messages). */
const MAX_LIMIT = 100;

export class SearchService {
  constructor(private readonly context: ServerContext) {}

  /** Rejects with a one-line message (what was wrong, what to do) when the query or the archive is unusable. */
  async search(query: string, limit = 30, signal: AbortSignal = new AbortController().signal): Promise<SearchResult> {
    try {
      const archive = await this.context.archive();
      const req = { query: cleanQuery(query), limit: Math.min(Math.max(1, Math.trunc(limit)), MAX_LIMIT) };
      const { hits, semantic, semanticFailure } = await hybridSearch(this.context, archive, req, signal);
      if (semanticFailure) this.context.log?.('warn', `semantic half of the palette search failed; keyword results only: ${semanticFailure}`);
      return { hits, semantic };
    } catch (e) {
      if (signal.aborted) throw e;
      throw new Error(errorMessage(e));
    }
  }
}
