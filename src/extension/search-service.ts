import {
  type CalendarDate,
  calendarDateAt,
  cleanQuery,
  errorMessage,
  hybridSearch,
  type HybridSearchResult,
  localToday,
  type MessageHit,
  onThisDay,
  type OnThisDayResult,
  parseDay,
  redactsFor,
  type ServerContext,
  ToolError,
} from '../core';
import { MAX_QUERY } from '../mcp';

export type SearchHit = MessageHit;

/** Ranked, cited hits and whether the semantic half contributed (and why not). */
export type SearchResult = Pick<HybridSearchResult, 'hits' | 'semantic'>;

const HITS = 30;

/** Search and On This Day over the person's context, or (`modelFacing`: redacted as the tools redact) the model's. */
export class SearchService {
  constructor(
    private readonly context: ServerContext,
    readonly hiddenFromModel: (c: { name: string; source: string }) => boolean = () => false,
    private readonly modelFacing = false,
  ) {}

  /** Rejects with a one-line message (what was wrong, what to do) when the query or the archive is unusable. */
  async search(query: string, signal: AbortSignal = new AbortController().signal): Promise<SearchResult> {
    try {
      // The same limits as search_messages.
      if (typeof query !== 'string') throw new ToolError('query must be a string');
      if (query.length > MAX_QUERY) throw new ToolError(`query is too long (at most ${MAX_QUERY} characters)`);
      const req = { query: cleanQuery(query), limit: HITS, redact: this.modelFacing && redactsFor(this.context) };
      const archive = await this.context.archive();
      const { hits, semantic, semanticFailure } = await hybridSearch(this.context, archive, req, signal);
      const failed = `semantic half of the palette search failed; keyword results only: ${semanticFailure}`;
      if (semanticFailure) this.context.log?.('warn', failed);
      return { hits, semantic };
    } catch (e) {
      if (signal.aborted) throw e;
      const message = errorMessage(e);
      if (!(e instanceof ToolError)) this.context.log?.('warn', `palette search failed: ${message}`);
      throw new Error(message);
    }
  }

  /** The longest messages of the same day in each earlier year (msgbrowse's Home card); `date`: YYYY-MM-DD, or today. */
  async onThisDay(date?: string): Promise<OnThisDayResult & { date: CalendarDate }> {
    // The same date rules (and one-line errors) as the tools' date arguments.
    const d = date === undefined ? localToday() : calendarDateAt(parseDay(date, 'date'));
    const req = { date: d, perYear: 5, limit: 50, redact: this.modelFacing && redactsFor(this.context) };
    return { ...(await onThisDay(this.context.citation, await this.context.archive(), req)), date: d };
  }
}
