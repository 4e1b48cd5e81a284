/** search_messages and semantic_search, each owning its whole request: arguments read, search, extras, receipt. */
import { isWholeArchive } from '../archive/index';
import type { AsyncArchive, MessageFilter } from '../archive/types';
import type { BuildProgressInfo, ServerContext } from './context';
import { ToolError } from './errors';
import { knownExtras, withHitExtras } from './hit-extras';
import { hitFromMessage, redactsFor } from './hits';
import { hybridSearch } from './hybrid-search';
import { clampLimit, cleanQuery, parseDayRange } from './request';
import type { MessageHit, SearchReceipt, SemanticStatusItem } from './results';
import { type Chooser, resolveScope, type ScopeArgs } from './scope';
import { readingNotes, receiptScope, searchReceipt } from './search-receipt';
import { runSemantic, type SemanticOutcome } from './semantic-query';
import { abortError } from './shared-task';

const SEARCH_DEFAULT_LIMIT = 20;
const SEARCH_MAX_LIMIT = 100;
const SEMANTIC_DEFAULT_K = 20;
const SEMANTIC_MAX_K = 100;
/** semantic_search waits for an index build expected to end within this many ms (with progress); longer is an error. */
const SEMANTIC_BUILD_WAIT_MS = 3000;
const POLL_MS = 250;

interface SearchArgs extends ScopeArgs {
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

interface SearchAnswer {
  /** As searched (invisible characters removed). */
  query: string;
  hits: MessageHit[];
  receipt: SearchReceipt;
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
  const flags = { hasAttachment: args.has_attachment, hasLink: args.has_link };
  const { conversation, source, sender } = scope;
  const filter: MessageFilter = { conversationId: conversation?.id, source, sender, ...range, ...flags };
  const searched = { conversation, source, sender, start: args.start, end: args.end, ...range, ...flags };
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
  const req = { query, limit, filter, redact: redactsFor(env.ctx), receiptScope: receiptScope(searched) };
  const found = await hybridSearch(env.ctx, archive, req, env.signal);
  const { hits, semantic, plan, counts } = found;
  const receipt = await searchReceipt(archive, { ...searched, plan, semantic }, semantic.model, env.signal, counts);
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
  const opts = { wait: false, embedWhileBuilding: true, receiptScope: counted };
  const sem = await untilBuilt(env, archive, counted, () =>
    runSemantic(env.ctx, archive, query, k, filter, env.signal, opts),
  );
  const redact = redactsFor(env.ctx);
  const found = sem.hits.map((h) => hitFromMessage(env.ctx.citation, h.message, h.score, redact));
  const semantic = { used: true, model: sem.model };
  const [hits, receipt] = await Promise.all([
    withHitExtras(archive, found, redact, env.signal, knownExtras([sem.known])),
    searchReceipt(archive, { ...searched, semantic }, sem.model, env.signal, sem.counts),
  ]);
  if (sem.dropped > 0)
    notes.push(`${sem.dropped} matching vector(s) belong to messages no longer in the archive and were skipped`);
  return { query, hits, model: sem.model, receipt, notes };
}

/** Runs `run` until the index is built (within SEMANTIC_BUILD_WAIT_MS, with progress); a failure is one line. */
async function untilBuilt(
  env: CallEnv,
  archive: AsyncArchive,
  counted: ReturnType<typeof receiptScope>,
  run: () => Promise<SemanticOutcome>,
): Promise<Extract<SemanticOutcome, { ok: true }>> {
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
  if (sem.ok) return sem;
  throw new ToolError(`semantic search ${sem.kind === 'unavailable' ? 'is unavailable' : 'failed'}: ${sem.reason}`);
}

function buildingError(b: BuildProgressInfo): ToolError {
  const s = b.etaMs !== undefined ? Math.ceil(b.etaMs / 1000) : undefined;
  const eta =
    s === undefined ? 'time left not known yet' : `about ${s < 90 ? `${s} s` : `${Math.round(s / 60)} min`} left`;
  return new ToolError(
    `the vector index is still building (${b.percent}%, ${eta}); semantic_search answers once it is ready — ` +
      'search_messages answers now with keyword results',
  );
}
