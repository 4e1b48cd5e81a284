import { z } from 'zod';
import {
  abortError,
  hitFromMessage,
  inline,
  isWholeArchive,
  knownExtras,
  receiptLine,
  receiptScope,
  redactsFor,
  runSemantic,
  searchReceipt,
  SearchReceiptSchema,
  type SemanticOutcome,
  ToolError,
  withHitExtras,
} from '../../core';
import { clampLimit } from '../limits';
import { messageResourceLinks, renderHits, renderNotes, UNTRUSTED_NOTE } from '../render';
import { searchRequest } from '../search-request';
import { pageByOffset, shortenHit, shrinkMessage } from '../answer-budget';
import {
  contentFilterShape,
  conversationScopeShape,
  cursorField,
  dateParam,
  MAX_QUERY,
  MessageHitSchema,
  nextCursorField,
  notesField,
  positiveInt,
  strictInput,
  text,
} from '../tool-schemas';
import { defineTool, PAGING_GUIDANCE, RESULT_GUIDANCE } from '../tool';

export const SEMANTIC_DEFAULT_K = 20;
export const SEMANTIC_MAX_K = 100;
/**
 * While the vector index builds, semantic_search waits for it when the build should end within this many ms
 * (sending progress notifications); a longer build is an error saying how long it should take.
 */
export const SEMANTIC_BUILD_WAIT_MS = 3000;
/** How often a waiting call re-checks the build (and sends progress). */
const POLL_MS = 250;

function duration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return s < 90 ? `about ${s} s` : `about ${Math.round(s / 60)} min`;
}

function buildingError(b: NonNullable<Extract<SemanticOutcome, { ok: false }>['building']>): ToolError {
  const eta = b.etaMs !== undefined ? `${duration(b.etaMs)} left` : 'time left not known yet';
  return new ToolError(
    `the vector index is still building (${b.percent}%, ${eta}); semantic_search answers once it is ready — ` +
      'search_messages answers now with keyword results',
  );
}

export const semanticSearchInput = strictInput('semantic_search', {
  query: text('query', MAX_QUERY).describe('natural-language query'),
  k: positiveInt('k')
    .optional()
    .describe('number of results in total, over every page (default 20, max 100; larger values are clamped)'),
  ...conversationScopeShape,
  sender: text('sender')
    .optional()
    .describe(
      'only messages from this sender, as shown in results (case and accents ignored; "Me" or "me" is the archive owner); an unknown name is an error listing the closest senders',
    ),
  start: dateParam('start').optional(),
  end: dateParam('end').optional(),
  ...contentFilterShape,
  cursor: cursorField('semantic_search'),
});

export const semanticSearchOutput = z.object({
  hits: z.array(MessageHitSchema),
  model: z.string().describe('embedding model used'),
  receipt: SearchReceiptSchema.describe(
    'what exactly was searched: scope, messages in it, and how many of them have vectors (only those can be hits)',
  ),
  next_cursor: nextCursorField,
  notes: notesField,
});

export const semanticSearch = defineTool({
  name: 'semantic_search',
  title: 'Semantic search',
  description:
    'Pure vector (meaning-based) search over message embeddings: returns the k messages most similar in meaning to the query, ' +
    'with provenance, a citation link and the cosine similarity as score. Filterable by conversation, source, sender, date range and whether a message has an attachment or a link. ' +
    'Needs an embedding model; search_messages works without one. The receipt says what was searched (scope, messages in it, how many have vectors).' +
    PAGING_GUIDANCE +
    RESULT_GUIDANCE,
  inputSchema: semanticSearchInput,
  outputSchema: semanticSearchOutput,
  async handler(args, env) {
    const notes: string[] = [];
    const k = clampLimit('k', args.k, SEMANTIC_DEFAULT_K, SEMANTIC_MAX_K, notes);
    const { query, notes: read, range, archive, scope, filter } = await searchRequest(args, env);
    notes.push(...read);
    const searched = {
      conversation: scope.conversation,
      source: scope.source,
      sender: scope.sender,
      start: args.start,
      end: args.end,
      ...range,
      hasAttachment: args.has_attachment,
      hasLink: args.has_link,
    };
    const counted = receiptScope(searched);
    // The hits' messages, their extras and the receipt's counts come back in one archive call after the vector search.
    const run = () =>
      runSemantic(env.ctx, archive, query, k, filter, env.signal, {
        wait: false,
        embedWhileBuilding: true,
        receiptScope: counted,
      });
    let sem = await run();
    if (!sem.ok && sem.building) {
      // The whole archive's message counts do not depend on the index: the archive reads them while it builds (and
      // keeps them, per snapshot, for the receipt) instead of after it (150 ms at 1M messages). A scoped receipt
      // is counted by plain SQL each time, so there is nothing to read ahead for it.
      if (isWholeArchive(counted)) archive.scopeCounts(counted, undefined).catch(() => {});
      // A short build is waited for (with progress); a long one is said, with its estimate.
      if (sem.building.etaMs !== undefined && sem.building.etaMs > SEMANTIC_BUILD_WAIT_MS)
        throw buildingError(sem.building);
      const deadline = Date.now() + SEMANTIC_BUILD_WAIT_MS;
      while (!sem.ok && sem.building) {
        const left = deadline - Date.now();
        if (left <= 0) throw buildingError(sem.building);
        env.progress?.(sem.building.percent, 100, `index building: ${sem.building.percent}%`);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([sem.building.done, new Promise((r) => (timer = setTimeout(r, Math.min(POLL_MS, left))))]);
        clearTimeout(timer);
        if (env.signal.aborted) throw abortError();
        sem = await run();
      }
    }
    if (!sem.ok) {
      throw new ToolError(
        sem.kind === 'unavailable'
          ? `semantic search is unavailable: ${sem.reason}`
          : `semantic search failed: ${sem.reason}`,
      );
    }
    const fmt = env.ctx.citation;
    const redact = redactsFor(env.ctx);
    const known = knownExtras([
      { hashes: sem.hits.map((h) => h.message.hash), ids: sem.hits.map((h) => h.messageId), rows: sem.extras },
    ]);
    const [hits, receipt] = await Promise.all([
      withHitExtras(
        archive,
        sem.hits.map((h) => hitFromMessage(fmt, h.message, h.score, redact)),
        redact,
        env.signal,
        known,
      ),
      searchReceipt(
        archive,
        { ...searched, semantic: { used: true, model: sem.model } },
        sem.model,
        env.signal,
        sem.counts,
      ),
    ]);
    if (sem.dropped > 0)
      notes.push(`${sem.dropped} matching vector(s) belong to messages no longer in the archive and were skipped`);
    const { result: structured } = pageByOffset(
      { tool: 'semantic_search', args, budget: env.budget, noun: 'hits' },
      hits.map((h) => shortenHit(h)),
      (page, p) => ({
        hits: page,
        model: sem.model,
        receipt,
        ...(p.next_cursor ? { next_cursor: p.next_cursor } : {}),
        ...(notes.length || p.notes.length ? { notes: [...notes, ...p.notes] } : {}),
      }),
      shrinkMessage,
    );
    const text =
      `${hits.length} message${hits.length === 1 ? '' : 's'} closest in meaning to ${inline(query)} (model "${sem.model}", score = cosine similarity).\n` +
      `${receiptLine(receipt)}\n${UNTRUSTED_NOTE}\n\n${renderHits(structured.hits)}${renderNotes(structured.notes)}`;
    return { structured, text, resources: messageResourceLinks(structured.hits) };
  },
});
