import type { EmbedConfig } from './types';

export const DEFAULT_EMBED_BASE_URL = 'http://127.0.0.1:4000/v1';
export const DEFAULT_EMBED_MODEL = 'local-embed';
export const DEFAULT_EMBED_TIMEOUT_MS = 60_000;

/** Why semantic search is off when no model is configured (shown to models and users verbatim). */
export const NO_EMBED_MODEL_REASON =
  'no embedding model configured — set MSGBROWSE_LLM_EMBED_MODEL (CLI) or the msgbrowse.embeddings.model setting (VS Code)';

/** The embeddings configuration from the environment as msgbrowse reads it; an empty embed model disables search. */
export function embedConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EmbedConfig {
  return normalizeEmbedConfig({
    baseUrl: env.MSGBROWSE_LLM_BASE_URL?.trim() || DEFAULT_EMBED_BASE_URL,
    model: env.MSGBROWSE_LLM_EMBED_MODEL ?? DEFAULT_EMBED_MODEL,
    apiKey: env.MSGBROWSE_LLM_API_KEY,
    timeoutMs: parseGoDuration(env.MSGBROWSE_LLM_TIMEOUT),
  });
}

/** Trims the model, key and URL, drops trailing `/` from the base URL, and applies the timeout default. */
export function normalizeEmbedConfig(c: EmbedConfig): EmbedConfig {
  const t = c.timeoutMs;
  return {
    baseUrl: c.baseUrl.trim().replace(/\/+$/, ''),
    model: c.model.trim(),
    apiKey: c.apiKey?.trim() || undefined,
    timeoutMs: t !== undefined && t > 0 && Number.isFinite(t) ? t : DEFAULT_EMBED_TIMEOUT_MS,
  };
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration (`60s`, `1m30s`) or plain seconds, as msgbrowse's `llm.timeout`; undefined when empty or invalid. */
export function parseGoDuration(value: string | undefined): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) > 0 ? Number(v) * 1000 : undefined;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(v)) !== null) {
    total += Number(m[1]) * UNIT_MS[m[2]];
    pos = re.lastIndex;
  }
  return pos === v.length && total > 0 ? total : undefined;
}

/** Why the archive cannot serve `model` (for `semantic: {used:false, reason}`), or undefined when it can. */
export function modelAvailabilityProblem(
  model: string,
  stored: readonly { model: string; count: number; dim: number }[],
): string | undefined {
  if (model.trim() === '') return NO_EMBED_MODEL_REASON;
  if (stored.some((s) => s.model === model && s.count > 0)) return undefined;
  if (stored.length === 0)
    return `the archive has no message embeddings yet (run \`msgbrowse embed\` with model "${model}" to create them)`;
  const list = stored.map((s) => `"${s.model}" (${s.count} vectors, dim ${s.dim})`).join(', ');
  return `the archive has no embeddings for model "${model}"; it has ${list} — set MSGBROWSE_LLM_EMBED_MODEL (CLI) or msgbrowse.embeddings.model (VS Code) to one of those`;
}
