import type { AsyncArchive, MessageFilter, MessageRow, ScopeCounts, ScopeFilter } from '../archive/types';
import { ArchiveError } from '../archive/errors';
import { dimensionMismatchError, EmbedError } from '../embed/errors';
import type { VectorFilter, VectorHit } from '../search/types';
import type { BuildProgressInfo, SemanticReady, SemanticState, ServerContext } from './context';
import { errorMessage } from './errors';
import type { ExtrasPart } from './hit-extras';
import { SharedQueryEmbedder } from './query-embeddings';

/** The index's own filters, plus has_attachment / has_link (resolved to message ids). */
type SemanticFilter = VectorFilter & Pick<MessageFilter, 'hasAttachment' | 'hasLink'>;

async function vectorFilter(archive: AsyncArchive, f: SemanticFilter, signal: AbortSignal): Promise<VectorFilter> {
  const { hasAttachment, hasLink, ...rest } = f;
  if (hasAttachment === undefined && hasLink === undefined) return rest;
  const only: number[][] = [];
  const skip: number[] = [...(rest.skipMessageIds ?? [])];
  for (const kind of ['attachment', 'link'] as const) {
    const want = kind === 'attachment' ? hasAttachment : hasLink;
    if (want === undefined) continue;
    const ids = await archive.messageIdsWith(kind, signal);
    if (want) only.push(ids);
    else skip.push(...ids);
  }
  if (rest.onlyMessageIds) only.push([...rest.onlyMessageIds]);
  const out: VectorFilter = { ...rest, ...(skip.length ? { skipMessageIds: skip } : {}) };
  if (only.length) {
    const others = only.slice(1).map((ids) => new Set(ids));
    out.onlyMessageIds = [...new Set(only[0])].filter((id) => others.every((s) => s.has(id)));
  }
  return out;
}

type SemanticHitRow = { messageId: number; score: number; message: MessageRow };

export type SemanticOutcome =
  /** `known` (the hits' extras) and `counts` (of `receiptScope`, for `model`) are read with the hits. */
  | { ok: true; model: string; hits: SemanticHitRow[]; dropped: number; known: ExtrasPart; counts?: ScopeCounts }
  /** `unavailable`: not configured, no vectors, or still building (`building`, only with `wait: false`). */
  | {
      ok: false;
      kind: 'unavailable' | 'failed' | 'timeout';
      reason: string;
      model?: string;
      building?: BuildProgressInfo;
    };

type SemanticFailure = Extract<SemanticOutcome, { ok: false }>;

interface SemanticRunOptions {
  /** Wait for a vector index that is still building (default true); false answers `index building: N%` at once. */
  wait?: boolean;
  /** Stop waiting for the query embedding after this many ms (the request goes on in the background). */
  embedBudgetMs?: number;
  /** With `wait: false`: embed the query while the index builds, so the caller's retry after the build finds it. */
  embedWhileBuilding?: boolean;
  /** The semantic state the caller already asked for (with the same `wait`); default: ask `ctx.semantic`. */
  state?: Promise<SemanticState>;
  /** The scope the caller's receipt counts, read with the hits' messages; absent: nothing is counted. */
  receiptScope?: ScopeFilter;
}

function readyModel(state: SemanticReady): string {
  return state.index.model || state.embedder.model;
}

/** The model a search with this state reports (and whose vectors its receipt counts): what runSemantic says. */
export function semanticModelOf(state: SemanticState): string | undefined {
  return state.available ? readyModel(state) : state.model;
}

/** `p`, or undefined once `ms` have passed (p then runs on, its outcome handled). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  p.catch(() => {});
  try {
    return await Promise.race([
      p,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The query's vector, or why there is none (no answer within `budget` ms, an all-zero vector). */
async function queryVector(
  state: SemanticReady,
  query: string,
  signal: AbortSignal,
  budget?: number,
): Promise<Float32Array | SemanticFailure> {
  const { embedder, index } = state;
  const model = readyModel(state);
  const pending = embedder.embed(query, signal);
  const vec = budget === undefined ? await pending : await within(pending, budget);
  if (vec === undefined) {
    if (embedder instanceof SharedQueryEmbedder) embedder.release(query);
    const reason = `the embeddings endpoint did not answer within ${Number((budget! / 1000).toFixed(1))} s (timed out; the request goes on in the background and a later search retries)`;
    return { ok: false, kind: 'timeout', model, reason };
  }
  if (vec.length !== index.dim) throw dimensionMismatchError(embedder.model, vec.length, index.dim);
  if (!vec.some((x) => x !== 0)) {
    const reason = `the embeddings endpoint returned an all-zero vector for this query (model "${embedder.model}")`;
    return { ok: false, kind: 'failed', model, reason };
  }
  return vec;
}

/** The hits with their messages, extras and the receipt's counts: one archive call (none for no hits, no receipt). */
async function hydrate(
  archive: AsyncArchive,
  found: VectorHit[],
  model: string,
  receiptScope: ScopeFilter | undefined,
  signal: AbortSignal,
): Promise<SemanticOutcome> {
  const ids = found.map((h) => h.messageId);
  const read =
    found.length || receiptScope
      ? await archive.hitMessagesBundle(ids, receiptScope, model, signal)
      : { messages: [], extras: { reactions: [], attachments: [] } };
  const byId = new Map(read.messages.map((m) => [m.id, m]));
  const hits: SemanticHitRow[] = [];
  for (const h of found) {
    const m = byId.get(h.messageId);
    if (m) hits.push({ messageId: h.messageId, score: h.score, message: m });
  }
  const counts = read.counts ? { counts: read.counts } : {};
  const known = { hashes: hits.map((h) => h.message.hash), ids: hits.map((h) => h.messageId), rows: read.extras };
  return { ok: true, model, hits, dropped: found.length - hits.length, known, ...counts };
}

/** The semantic half: exact top-k of the query's embedding, hits with their messages; throws only on cancellation. */
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
      const { reason, building } = state;
      const more = { ...(state.model ? { model: state.model } : {}), ...(building ? { building } : {}) };
      return { ok: false, kind: 'unavailable', reason, ...more };
    }
    model = readyModel(state);
    const vec = await queryVector(state, query, signal, opts.embedBudgetMs);
    if ('ok' in vec) return vec;
    const found = await state.index.search(vec, k, await vectorFilter(archive, filter, signal), signal);
    return await hydrate(archive, found, model, opts.receiptScope, signal);
  } catch (e) {
    if (signal.aborted) throw e;
    return { ok: false, kind: 'failed', model, reason: failureReason(e) };
  }
}

function failureReason(e: unknown): string {
  // Embedding and vector-index errors carry actionable messages of their own.
  if (e instanceof EmbedError || e instanceof ArchiveError) return e.message;
  return e instanceof Error && e.message ? e.message.split('\n')[0] : errorMessage(e);
}
