import { z } from 'zod';
import { normalizeEmbedConfig, NO_EMBED_MODEL_REASON } from './config';
import { EmbedError } from './errors';
import { truncateChars } from './truncate';
import type { EmbedConfig, Embedder } from './types';

/** Queries longer than this many characters (code points) are cut before embedding. */
export const MAX_QUERY_CHARS = 6500;
/** Upper bound on a response body; one query vector is far smaller. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

const ResponseSchema = z.object({
  data: z
    .array(
      z.object({
        embedding: z.array(z.number().finite()),
        index: z.number().int().nonnegative().optional(),
      }),
    )
    .optional(),
  model: z.string().optional(),
});

export interface OpenAIEmbedderOptions {
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Max characters of query sent (default 6500). */
  maxChars?: number;
}

/**
 * OpenAI-compatible embeddings client: `POST {baseUrl}/embeddings` with `{model, input: [text]}` and an optional
 * bearer key. The only network call the server makes.
 */
export class OpenAIEmbedder implements Embedder {
  readonly model: string;
  readonly url: string;
  private readonly config: EmbedConfig;
  private readonly fetchImpl: typeof fetch;
  private readonly maxChars: number;

  constructor(config: EmbedConfig, opts: OpenAIEmbedderOptions = {}) {
    this.config = normalizeEmbedConfig(config);
    if (this.config.model === '')
      throw new EmbedError('not_configured', `semantic search is unavailable: ${NO_EMBED_MODEL_REASON}`);
    let parsed: URL;
    try {
      parsed = new URL(`${this.config.baseUrl}/embeddings`);
    } catch {
      throw new EmbedError(
        'not_configured',
        `the embeddings base URL "${this.config.baseUrl}" is not a valid URL — set MSGBROWSE_LLM_BASE_URL (CLI) or the msgbrowse.embeddings.baseUrl setting (VS Code) to e.g. http://127.0.0.1:4000/v1`,
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new EmbedError('not_configured', `the embeddings base URL must be http(s), got "${this.config.baseUrl}"`);
    }
    this.model = this.config.model;
    this.url = parsed.toString();
    this.fetchImpl = opts.fetch ?? fetch;
    this.maxChars = opts.maxChars ?? MAX_QUERY_CHARS;
  }

  async embed(text: string, signal?: AbortSignal): Promise<Float32Array> {
    if (signal?.aborted) throw aborted();
    const input = truncateChars(text, this.maxChars);
    const timeoutMs = this.config.timeoutMs ?? 60_000;
    const timer = new AbortController();
    const timeoutHandle = setTimeout(() => timer.abort(), timeoutMs);
    const onAbort = () => timer.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    try {
      let res: Response;
      try {
        res = await this.fetchImpl(this.url, {
          method: 'POST',
          headers,
          body: JSON.stringify({ model: this.model, input: [input] }),
          signal: timer.signal,
          redirect: 'error',
        });
      } catch (e) {
        throw this.transportError(e, signal, timer.signal, timeoutMs);
      }
      let body: string;
      try {
        body = await readCapped(res, MAX_RESPONSE_BYTES);
      } catch (e) {
        if (e instanceof EmbedError) throw e;
        throw this.transportError(e, signal, timer.signal, timeoutMs);
      }
      if (!res.ok) throw this.httpError(res.status, body);
      return this.parse(body);
    } finally {
      clearTimeout(timeoutHandle);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private transportError(e: unknown, caller: AbortSignal | undefined, own: AbortSignal, timeoutMs: number): EmbedError {
    if (caller?.aborted) return aborted();
    if (own.aborted) {
      return new EmbedError(
        'timeout',
        `the embeddings endpoint POST ${this.url} did not answer within ${Math.round(timeoutMs / 100) / 10}s — check that it is running, or raise MSGBROWSE_LLM_TIMEOUT`,
      );
    }
    const code = errorCode(e);
    return new EmbedError(
      'unreachable',
      `cannot reach the embeddings endpoint POST ${this.url}${code ? ` (${code})` : ''} — start an OpenAI-compatible ` +
        `embeddings server there, or set MSGBROWSE_LLM_BASE_URL (CLI) or the msgbrowse.embeddings.baseUrl setting (VS Code)`,
    );
  }

  private httpError(status: number, body: string): EmbedError {
    const excerpt = firstChars(body.replace(/\s+/g, ' ').trim(), 300);
    const mentionsModel = /model/i.test(body);
    if ((status === 404 && mentionsModel) || ((status === 400 || status === 422) && mentionsModel)) {
      return new EmbedError(
        'model_rejected',
        `the embeddings endpoint ${this.url} rejected model "${this.model}" (HTTP ${status}: ${excerpt}) — set ` +
          `MSGBROWSE_LLM_EMBED_MODEL (CLI) or the msgbrowse.embeddings.model setting (VS Code) to a model the endpoint serves`,
        status,
      );
    }
    const auth =
      status === 401 || status === 403
        ? ' — check MSGBROWSE_LLM_API_KEY (CLI) or the msgbrowse.embeddings API key setting (VS Code)'
        : '';
    return new EmbedError(
      'http',
      `the embeddings endpoint POST ${this.url} returned HTTP ${status}: ${excerpt || '(empty body)'}${auth}`,
      status,
    );
  }

  private parse(body: string): Float32Array {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new EmbedError(
        'bad_response',
        `the embeddings endpoint ${this.url} did not return JSON: ${firstChars(body, 300)}`,
      );
    }
    const parsed = ResponseSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new EmbedError(
        'bad_response',
        `the embeddings endpoint ${this.url} returned an unexpected response (${issue.path.join('.') || 'body'}: ${issue.message}); expected {"data":[{"embedding":[numbers…]}]}`,
      );
    }
    const data = parsed.data.data ?? [];
    if (data.length !== 1) {
      throw new EmbedError(
        'bad_response',
        `the embeddings endpoint ${this.url} returned ${data.length} embeddings for 1 input`,
      );
    }
    const item = data[0];
    if (item.index !== undefined && item.index !== 0) {
      throw new EmbedError(
        'bad_response',
        `the embeddings endpoint ${this.url} returned embedding index ${item.index} for 1 input`,
      );
    }
    if (item.embedding.length === 0) {
      throw new EmbedError(
        'bad_response',
        `the embeddings endpoint ${this.url} returned an empty embedding for model "${this.model}"`,
      );
    }
    return Float32Array.from(item.embedding);
  }
}

function aborted(): EmbedError {
  return new EmbedError('aborted', 'query embedding was cancelled');
}

function errorCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

function firstChars(s: string, n: number): string {
  const t = truncateChars(s, n);
  return t.length < s.length ? `${t}…` : t;
}

async function readCapped(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new EmbedError('bad_response', `the embeddings response exceeded ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
