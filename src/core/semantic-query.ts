import type {
  AsyncArchive,
  HitExtrasRows,
  MessageFilter,
  MessageRow,
  ScopeCounts,
  ScopeFilter,
} from '../archive/types';
import { isArchiveError } from '../archive/errors';
import { dimensionMismatchError, isEmbedError } from '../embed/errors';
import type { VectorFilter } from '../search/types';
import type { BuildProgressInfo, SemanticReady, SemanticState, ServerContext } from './context';
import { errorMessage } from './errors';
import { SharedQueryEmbedder } from './query-embeddings';

/** The filters the semantic half takes: the index's own, plus has_attachment / has_link (resolved to message ids). */
export type SemanticFilter = VectorFilter & Pick<MessageFilter, 'hasAttachment' | 'hasLink'>;

/** has_attachment / has_link become the message ids the index keeps or skips (the archive knows which they are). */
async function vectorFilter(archive: AsyncArchive, f: SemanticFilter, signal: AbortSignal): Promise<VectorFilter> {
  const { hasAttachment, hasLink, ...rest } = f;
  if (hasAttachment === undefined && hasLink === undefined) return rest;
  const only: number[][] = [];
  const skip: number[] = [...(rest.skipMessageIds ?? [])];
  for (const [want, kind] of [
    [hasAttachment, 'attachment'],
    [hasLink, 'link'],
  ] as const) {
    if (want === undefined) continue;
    const ids = await archive.messageIdsWith(kind, signal);
    if (want) only.push(ids);
    else skip.push(...ids);
  }
  if (rest.onlyMessageIds) only.push([...rest.onlyMessageIds]);
  const out: VectorFilter = { ...rest, ...(skip.length ? { skipMessageIds: skip } : {}) };
  if (only.length) {
    let keep = new Set(only[0]);
    for (const ids of only.slice(1)) {
      const next = new Set(ids);
      keep = new Set([...keep].filter((id) => next.has(id)));
    }
    out.onlyMessageIds = [...keep];
  }
  return out;
}

export interface SemanticHitRow {
  messageId: number;
  score: number;
  message: MessageRow;
}

export type SemanticOutcome =
  /**
   * `extras`: the hits' reactions and attachments, read with their messages; `counts`: those of the caller's
   * `receiptScope` for `model`, read in the same archive call (absent without one).
   */
  | { ok: true; model: string; hits: SemanticHitRow[]; dropped: number; extras: HitExtrasRows; counts?: ScopeCounts }
  /**
   * `unavailable`: not configured / no vectors / the index is still building (`building` set, only with
   * `wait: false`); `failed`: configured but this query failed; `timeout`: the embeddings endpoint did not answer
   * within `embedBudgetMs` (the request goes on in the background).
   */
  | {
      ok: false;
      kind: 'unavailable' | 'failed' | 'timeout';
      reason: string;
      model?: string;
      building?: BuildProgressInfo;
    };

export interface SemanticRunOptions {
  /** Wait for a vector index that is still building (default true); false answers `index building: N%` at once. */
  wait?: boolean;
  /** Stop waiting for the query embedding after this many ms (default: the embedder's own timeout). */
  embedBudgetMs?: number;
  /**
   * With `wait: false`, for a caller that will wait for the build and ask again (semantic_search): while the index
   * builds, request the query's vector now, so the call after the build finds it embedded (the embedder shares
   * and keeps answers per query text).
   */
  embedWhileBuilding?: boolean;
  /** The semantic state the caller already asked for (with the same `wait`); default: ask `ctx.semantic`. */
  state?: Promise<SemanticState>;
  /**
   * The scope the caller's receipt counts (search-receipt.ts `receiptScope`): counted, for the model the outcome
   * reports, in the archive call that reads the hits' messages (semantic_search). Absent: nothing is counted.
   */
  receiptScope?: ScopeFilter;
}

/** The model a search with a ready index reports. */
function readyModel(state: SemanticReady): string {
  return state.index.model || state.embedder.model;
}

/** The model a search with this state reports (and whose vectors its receipt counts): what runSemantic says. */
export function semanticModelOf(state: SemanticState): string | undefined {
  return state.available ? readyModel(state) : state.model;
}

const TIMED_OUT = Symbol('timed out');

/** `p`, or TIMED_OUT once `ms` have passed (p's own outcome is then left to run on, handled). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  p.catch(() => {});
  try {
    return await Promise.race([
      p,
      new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * The semantic half: embed the query with the configured model, exact-cosine top-k over the stored vectors,
 * hydrate hits with their messages. Never throws except on cancellation; failures come back as reasons.
 */
export async function runSemantic(
  ctx: ServerContext,
  archive: AsyncArchive,
  query: string,
  k: number,
  filter: SemanticFilter,
  signal: AbortSignal,
  opts: SemanticRunOptions = {},
): Promise<SemanticOutcome> {
  let model: string | undefined;
  try {
    const state = await (opts.state ?? ctx.semantic(signal, { wait: opts.wait ?? true }));
    if (!state.available) {
      if (opts.embedWhileBuilding && state.building && state.embedder) state.embedder.embed(query).catch(() => {});
      return {
        ok: false,
        kind: 'unavailable',
        reason: state.reason,
        ...(state.model ? { model: state.model } : {}),
        ...(state.building ? { building: state.building } : {}),
      };
    }
    const { embedder, index } = state;
    model = readyModel(state);
    const pending = embedder.embed(query, signal);
    const budget = opts.embedBudgetMs;
    const vec = budget === undefined ? await pending : await within(pending, budget);
    if (vec === TIMED_OUT) {
      if (embedder instanceof SharedQueryEmbedder) embedder.release(query);
      return {
        ok: false,
        kind: 'timeout',
        model,
        reason: `the embeddings endpoint did not answer within ${seconds(budget!)} (timed out; the request goes on in the background and a later search retries)`,
      };
    }
    if (vec.length !== index.dim) throw dimensionMismatchError(embedder.model, vec.length, index.dim);
    if (!vec.some((x) => x !== 0)) {
      return {
        ok: false,
        kind: 'failed',
        model,
        reason: `the embeddings endpoint returned an all-zero vector for this query (model "${embedder.model}")`,
      };
    }
    const found = await index.search(vec, k, await vectorFilter(archive, filter, signal), signal);
    // The hits' messages, their extras and the receipt's counts: one archive call (none for no hits and no receipt).
    const read =
      found.length || opts.receiptScope
        ? await archive.hitMessagesBundle(
            found.map((h) => h.messageId),
            opts.receiptScope,
            model,
            signal,
          )
        : { messages: [], extras: { reactions: [], attachments: [] } };
    const byId = new Map(read.messages.map((m) => [m.id, m]));
    const hits: SemanticHitRow[] = [];
    for (const h of found) {
      const m = byId.get(h.messageId);
      if (m) hits.push({ messageId: h.messageId, score: h.score, message: m });
    }
    return {
      ok: true,
      model,
      hits,
      dropped: found.length - hits.length,
      extras: read.extras,
      ...(read.counts ? { counts: read.counts } : {}),
    };
  } catch (e) {
    if (signal.aborted) throw e;
    // Embedding and vector-index errors carry actionable messages of their own.
    const reason =
      isEmbedError(e) || isArchiveError(e)
        ? e.message
        : e instanceof Error && e.message
          ? e.message.split('\n')[0]
          : errorMessage(e);
    return { ok: false, kind: 'failed', model, reason };
  }
}
