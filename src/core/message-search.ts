/**
 * The two search use cases behind search_messages and semantic_search: each owns the whole request (query cleaned,
 * scope resolved, days parsed, count clamped), the search, the hits' extras and the receipt of what was searched.
 */
import type { AsyncArchive } from '../archive/types';
import type { ServerContext } from './context';
import { ToolError } from './errors';
import { knownExtras, withHitExtras } from './hit-extras';
import { hitFromMessage, redactsFor } from './hits';
import { type HybridFilter, hybridSearch } from './hybrid-search';
import { cleanQuery } from './query';
import { clampLimit, parseDayRange } from './request';
import type { MessageHit, SearchReceipt, SemanticStatusItem } from './results';
import { type Chooser, resolveScope, type ScopeArgs } from './scope';
import { isWholeArchive, readingNotes, receiptScope, searchReceipt } from './search-receipt';
import { runSemantic, type SemanticOutcome } from './semantic-query';
import { abortError } from './shared-task';

export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;
export const SEMANTIC_DEFAULT_K = 20;
export const SEMANTIC_MAX_K = 100;
/** semantic_search waits for an index build expected to end within this many ms (with progress); longer is an error. */
export const SEMANTIC_BUILD_WAIT_MS = 3000;
const POLL_MS = 250;

export interface SearchArgs extends ScopeArgs {
  query: string;
  start?: string;
  end?: string;
  has_attachment?: boolean;
  has_link?: boolean;
}

/** What a use case needs from the call it serves. */
export interface CallEnv {
  ctx: ServerContext;
  archive(): Promise<AsyncArchive>;
  signal: AbortSignal;
  /** Asks the person to pick among same-named conversations (MCP elicitation), when the client can. */
  choose?: Chooser;
  /** Progress while a call waits (an index build), when the client asked for it. */
  progress?(progress: number, total: number, message: string): void;
}

export interface SearchAnswer {
  /** The query as searched (invisible characters removed). */
  query: string;
  hits: MessageHit[];
  receipt: SearchReceipt;
  /** What the model should know about how its request was read. */
  notes: string[];
}

/** The request read: query, days, scope, the filter both halves apply and the receipt's terms. */
async function readRequest(args: SearchArgs, env: CallEnv) {
  const query = cleanQuery(args.query);
  const notes = /\p{Cf}/u.test(args.query)
    ? ['invisible characters (zero-width spaces or joiners) were removed from the query']
    : [];
  const range = parseDayRange(args.start, args.end);
  const archive = await env.archive();
  const scope = await resolveScope(archive, args, env.signal, env.choose);
  const filter: HybridFilter = {
    conversationId: scope.conversation?.id,
    source: scope.source,
    sender: scope.sender,
    ...range,
    ...(args.has_attachment !== undefined ? { hasAttachment: args.has_attachment } : {}),
    ...(args.has_link !== undefined ? { hasLink: args.has_link } : {}),
  };
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
  return { query, notes, archive, filter, searched };
}

/** search_messages: keyword and semantic halves fused; `warning` when the semantic half failed for this query. */
export async function searchMessages(
  args: SearchArgs & { limit?: number },
  env: CallEnv,
): Promise<SearchAnswer & { semantic: SemanticStatusItem; warning?: string }> {
  const notes: string[] = [];
  const limit = clampLimit('limit', args.limit, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, notes);
  const { query, notes: read, archive, filter, searched } = await readRequest(args, env);
  const found = await hybridSearch(
    env.ctx,
    archive,
    { query, limit, filter, redact: redactsFor(env.ctx), receiptScope: receiptScope(searched) },
    env.signal,
  );
  const { hits, semantic, plan } = found;
  const receipt = await searchReceipt(
    archive,
    { ...searched, plan, semantic },
    semantic.model,
    env.signal,
    found.counts,
  );
  return {
    query,
    hits,
    semantic,
    receipt,
    notes: [...notes, ...read, ...readingNotes(plan)],
    ...(found.semanticFailure ? { warning: found.semanticFailure } : {}),
  };
}

/** semantic_search: the k messages closest in meaning; waits for a short index build, says how long a long one takes. */
export async function semanticSearch(
  args: SearchArgs & { k?: number },
  env: CallEnv,
): Promise<SearchAnswer & { model: string }> {
  const notes: string[] = [];
  const k = clampLimit('k', args.k, SEMANTIC_DEFAULT_K, SEMANTIC_MAX_K, notes);
  const { query, notes: read, archive, filter, searched } = await readRequest(args, env);
  notes.push(...read);
  const counted = receiptScope(searched);
  const sem = await untilBuilt(env, archive, counted, () =>
    runSemantic(env.ctx, archive, query, k, filter, env.signal, {
      wait: false,
      embedWhileBuilding: true,
      receiptScope: counted,
    }),
  );
  const redact = redactsFor(env.ctx);
  const known = knownExtras([
    { hashes: sem.hits.map((h) => h.message.hash), ids: sem.hits.map((h) => h.messageId), rows: sem.extras },
  ]);
  const [hits, receipt] = await Promise.all([
    withHitExtras(
      archive,
      sem.hits.map((h) => hitFromMessage(env.ctx.citation, h.message, h.score, redact)),
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
  return { query, hits, model: sem.model, receipt, notes };
}

type SemanticHits = Extract<SemanticOutcome, { ok: true }>;

/** Runs `run` until the index is built (within SEMANTIC_BUILD_WAIT_MS, with progress); a failure is one line. */
async function untilBuilt(
  env: CallEnv,
  archive: AsyncArchive,
  counted: ReturnType<typeof receiptScope>,
  run: () => Promise<SemanticOutcome>,
): Promise<SemanticHits> {
  let sem = await run();
  if (!sem.ok && sem.building) {
    // The whole archive's counts do not depend on the index: read them while it builds.
    if (isWholeArchive(counted)) archive.scopeCounts(counted, undefined).catch(() => {});
    const eta = sem.building.etaMs;
    if (eta !== undefined && eta > SEMANTIC_BUILD_WAIT_MS) throw buildingError(sem.building);
  }
  const deadline = Date.now() + SEMANTIC_BUILD_WAIT_MS;
  while (!sem.ok && sem.building) {
    const b = sem.building;
    const left = deadline - Date.now();
    if (left <= 0) throw buildingError(b);
    env.progress?.(b.percent, 100, `index building: ${b.percent}%`);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([b.done, new Promise((r) => (timer = setTimeout(r, Math.min(POLL_MS, left))))]);
    clearTimeout(timer);
    if (env.signal.aborted) throw abortError();
    sem = await run();
  }
  if (!sem.ok) {
    throw new ToolError(
      sem.kind === 'unavailable'
        ? `semantic search is unavailable: ${sem.reason}`
        : `semantic search failed: ${sem.reason}`,
    );
  }
  return sem;
}

function buildingError(b: NonNullable<Extract<SemanticOutcome, { ok: false }>['building']>): ToolError {
  const s = b.etaMs !== undefined ? Math.ceil(b.etaMs / 1000) : undefined;
  const eta =
    s === undefined ? 'time left not known yet' : `about ${s < 90 ? `${s} s` : `${Math.round(s / 60)} min`} left`;
  return new ToolError(
    `the vector index is still building (${b.percent}%, ${eta}); semantic_search answers once it is ready — ` +
      'search_messages answers now with keyword results',
  );
}
