import type { EmbedConfig } from './types';

export const DEFAULT_EMBED_BASE_URL = 'http://127.0.0.1:4000/v1';
export const DEFAULT_EMBED_MODEL = 'local-embed';
export const DEFAULT_EMBED_TIMEOUT_MS = 60_000;

/** Why semantic search is off when no model is configured (shown to models and users verbatim). */
export const NO_EMBED_MODEL_REASON =
  'no embedding model configured — set MSGBROWSE_LLM_EMBED_MODEL (CLI) or the msgbrowse.embeddings.model setting (VS Code)';

export type EnvLike = Record<string, string | undefined>;

/**
 * Reads the embeddings configuration from the environment exactly as msgbrowse does
 * (`MSGBROWSE_LLM_BASE_URL`, `MSGBROWSE_LLM_EMBED_MODEL`, `MSGBROWSE_LLM_API_KEY`, `MSGBROWSE_LLM_TIMEOUT`):
 * an unset variable takes the default; an empty `MSGBROWSE_LLM_EMBED_MODEL` disables semantic search.
 */
export function embedConfigFromEnv(env: EnvLike = process.env): EmbedConfig {
  const base = env.MSGBROWSE_LLM_BASE_URL;
  const model = env.MSGBROWSE_LLM_EMBED_MODEL;
  const key = env.MSGBROWSE_LLM_API_KEY?.trim();
  return normalizeEmbedConfig({
    baseUrl: base === undefined || base.trim() === '' ? DEFAULT_EMBED_BASE_URL : base,
    model: model === undefined ? DEFAULT_EMBED_MODEL : model,
    apiKey: key ? key : undefined,
    timeoutMs: parseGoDuration(env.MSGBROWSE_LLM_TIMEOUT),
  });
}

/** Trims the model and URL, drops trailing `/` from the base URL, and applies the timeout default. */
export function normalizeEmbedConfig(c: EmbedConfig): EmbedConfig {
  const timeout =
    c.timeoutMs !== undefined && Number.isFinite(c.timeoutMs) && c.timeoutMs > 0
      ? c.timeoutMs
      : DEFAULT_EMBED_TIMEOUT_MS;
  const apiKey = c.apiKey?.trim();
  return {
    baseUrl: c.baseUrl.trim().replace(/\/+$/, ''),
    model: c.model.trim(),
    apiKey: apiKey ? apiKey : undefined,
    timeoutMs: timeout,
  };
}

/** True when a model is configured (an empty model disables semantic search). */
export function semanticEnabled(c: EmbedConfig): boolean {
  return c.model.trim() !== '';
}

/**
 * Parses a Go duration (`60s`, `1m30s`, `1500ms`) or a plain number of seconds, as msgbrowse's
 * `llm.timeout`. Returns undefined (the default applies) for empty, invalid or non-positive values.
 */
export function parseGoDuration(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) {
    const s = Number(v);
    return s > 0 ? s * 1000 : undefined;
  }
  const unitMs: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(v)) !== null) {
    total += Number(m[1]) * unitMs[m[2]];
    pos = re.lastIndex;
  }
  if (pos !== v.length || total <= 0) return undefined;
  return total;
}

/**
 * Checks that the archive holds vectors for `model`. Returns a reason (for `semantic: {used:false, reason}`)
 * or undefined when it does.
 */
export function modelAvailabilityProblem(
  model: string,
  stored: readonly { model: string; count: number; dim: number }[],
): string | undefined {
  if (model.trim() === '') return NO_EMBED_MODEL_REASON;
  const hit = stored.find((s) => s.model === model && s.count > 0);
  if (hit) return undefined;
  if (stored.length === 0) {
    return `the archive has no message embeddings yet (run \`msgbrowse embed\` with model "${model}" to create them)`;
  }
  const list = stored.map((s) => `"${s.model}" (${s.count} vectors, dim ${s.dim})`).join(', ');
  return `the archive has no embeddings for model "${model}"; it has ${list} — set MSGBROWSE_LLM_EMBED_MODEL (CLI) or msgbrowse.embeddings.model (VS Code) to one of those`;
}
