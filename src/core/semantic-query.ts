import type { AsyncArchive, MessageRow } from '../archive/types';
import { isArchiveError } from '../archive/errors';
import { dimensionMismatchError, isEmbedError } from '../embed/errors';
import type { VectorFilter } from '../search/types';
import type { ServerContext } from './context';
import { errorMessage } from './errors';

export interface SemanticHitRow {
  messageId: number;
  score: number;
  message: MessageRow;
}

export type SemanticOutcome =
  | { ok: true; model: string; hits: SemanticHitRow[]; dropped: number }
  /** `unavailable`: not configured / no vectors; `failed`: configured but this query failed. */
  | { ok: false; kind: 'unavailable' | 'failed'; reason: string; model?: string };

/**
 * The semantic half: embed the query with the configured model, exact-cosine top-k over the stored vectors,
 * hydrate hits with their messages. Never throws except on cancellation; failures come back as reasons.
 */
export async function runSemantic(
  ctx: ServerContext,
  archive: AsyncArchive,
  query: string,
  k: number,
  filter: VectorFilter,
  signal: AbortSignal,
): Promise<SemanticOutcome> {
  let model: string | undefined;
  try {
    const state = await ctx.semantic(signal);
    if (!state.available) return { ok: false, kind: 'unavailable', reason: state.reason, ...(state.model ? { model: state.model } : {}) };
    const { embedder, index } = state;
    model = index.model || embedder.model;
    const vec = await embedder.embed(query, signal);
    if (vec.length !== index.dim) throw dimensionMismatchError(embedder.model, vec.length, index.dim);
    if (!vec.some((x) => x !== 0)) {
      return { ok: false, kind: 'failed', model, reason: `the embeddings endpoint returned an all-zero vector for this query (model "${embedder.model}")` };
    }
    const found = await index.search(vec, k, filter, signal);
    const rows = found.length ? await archive.messagesByIds(found.map((h) => h.messageId), signal) : [];
    const byId = new Map(rows.map((m) => [m.id, m]));
    const hits: SemanticHitRow[] = [];
    for (const h of found) {
      const m = byId.get(h.messageId);
      if (m) hits.push({ messageId: h.messageId, score: h.score, message: m });
    }
    return { ok: true, model, hits, dropped: found.length - hits.length };
  } catch (e) {
    if (signal.aborted) throw e;
    // Embedding and vector-index errors carry actionable messages of their own.
    const reason = isEmbedError(e) || isArchiveError(e) ? e.message : e instanceof Error && e.message ? e.message.split('\n')[0] : errorMessage(e);
    return { ok: false, kind: 'failed', model, reason };
  }
}
