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
  redactsFor,
  type ServerContext,
  ToolError,
} from '../core';
import { parseDay } from '../mcp/dates';
import { MAX_QUERY } from '../mcp/tool-schemas';
import { SEARCH_MAX_LIMIT } from '../mcp/tools/search-messages';

export type SearchHit = MessageHit;

/** Ranked, cited hits and whether the semantic half contributed (and why not). */
export type SearchResult = Pick<HybridSearchResult, 'hits' | 'semantic'>;

/** The most hits one search returns, and the longest query: search_messages's own limits. */
const MAX_LIMIT = SEARCH_MAX_LIMIT;

export class SearchService {
  /**
   * `context`: the person's own (unfiltered) context for the palette, or the model-facing one (`modelFacing`: hits are
   * then redacted as the tools redact them); `hiddenFromModel` tells which conversations Copilot cannot see, so the
   * palette can say so.
   */
  constructor(
    private readonly context: ServerContext,
    readonly hiddenFromModel: (c: { name: string; source: string }) => boolean = () => false,
    private readonly modelFacing = false,
  ) {}

  /** Rejects with a one-line message (what was wrong, what to do) when the query or the archive is unusable. */
  async search(query: string, limit = 30, signal: AbortSignal = new AbortController().signal): Promise<SearchResult> {
    try {
      if (typeof query !== 'string') throw new ToolError('query must be a string');
      if (query.length > MAX_QUERY) throw new ToolError(`query is too long (at most ${MAX_QUERY} characters)`);
      if (!Number.isSafeInteger(limit) || limit < 1) throw new ToolError('limit must be an integer of at least 1');
      const req = {
        query: cleanQuery(query),
        limit: Math.min(limit, MAX_LIMIT),
        redact: this.modelFacing && redactsFor(this.context),
      };
      const archive = await this.context.archive();
      const { hits, semantic, semanticFailure } = await hybridSearch(this.context, archive, req, signal);
      if (semanticFailure)
        this.context.log?.(
          'warn',
          `semantic half of the palette search failed; keyword results only: ${semanticFailure}`,
        );
      return { hits, semantic };
    } catch (e) {
      if (signal.aborted) throw e;
      const message = errorMessage(e);
      if (!(e instanceof ToolError)) this.context.log?.('warn', `palette search failed: ${message}`);
      throw new Error(message);
    }
  }

  /**
   * "On this day" for the person (msgbrowse's Home-card rule: the longest messages of the same day in each earlier
   * year, newest first). `date` is YYYY-MM-DD (default: today, local calendar).
   */
  async onThisDay(date?: string, signal?: AbortSignal): Promise<OnThisDayResult & { date: CalendarDate }> {
    // The same date rules (and one-line errors) as the tools' date arguments.
    const d = date === undefined ? localToday() : calendarDateAt(parseDay(date, 'date'));
    const archive = await this.context.archive();
    const r = await onThisDay(
      this.context.citation,
      archive,
      { date: d, perYear: 5, limit: 50, redact: this.modelFacing && redactsFor(this.context) },
      signal,
    );
    return { ...r, date: d };
  }
}
