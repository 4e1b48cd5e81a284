import { z } from 'zod';
import { DEFAULT_EMBED_TIMEOUT_MS, normalizeEmbedConfig, NO_EMBED_MODEL_REASON } from './config';
import { EmbedError } from './errors';
import type { EmbedConfig, Embedder } from './types';

/** Queries longer than this many characters (code points) are cut before embedding. */
const MAX_QUERY_CHARS = 6500;
/** Upper bound on a response body; one query vector is far smaller. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

const Item = z.object({ embedding: z.array(z.number().finite()), index: z.number().int().nonnegative().optional() });
const ResponseSchema = z.object({ data: z.array(Item).optional(), model: z.string().optional() });

/** `POST {baseUrl}/embeddings` with `{model, input: [text]}` and an optional bearer key. */
export class OpenAIEmbedder implements Embedder {
  readonly model: string;
  readonly url: string;
  private readonly config: EmbedConfig;

  constructor(config: EmbedConfig) {
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
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new EmbedError('not_configured', `the embeddings base URL must be http(s), got "${this.config.baseUrl}"`);
    this.model = this.config.model;
    this.url = parsed.toString();
  }

  async embed(text: string, signal?: AbortSignal): Promise<Float32Array> {
    if (signal?.aborted) throw aborted();
    const timeoutMs = this.config.timeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS;
    const timer = new AbortController();
    const timeoutHandle = setTimeout(() => timer.abort(), timeoutMs);
    const onAbort = () => timer.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input: [truncateChars(text, MAX_QUERY_CHARS)] }),
        signal: timer.signal,
        redirect: 'error',
      });
      const body = await readCapped(res, MAX_RESPONSE_BYTES);
      if (!res.ok) throw this.httpError(res.status, body);
      return this.parse(body);
    } catch (e) {
      if (e instanceof EmbedError) throw e;
      throw this.transportError(e, signal, timer.signal, timeoutMs);
    } finally {
      clearTimeout(timeoutHandle);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private transportError(e: unknown, caller: AbortSignal | undefined, own: AbortSignal, timeoutMs: number): EmbedError {
    if (caller?.aborted) return aborted();
    if (own.aborted)
      return new EmbedError(
        'timeout',
        `the embeddings endpoint POST ${this.url} did not answer within ${Math.round(timeoutMs / 100) / 10}s — check that it is running, or raise MSGBROWSE_LLM_TIMEOUT`,
      );
    const code = errorCode(e);
    return new EmbedError(
      'unreachable',
      `cannot reach the embeddings endpoint POST ${this.url}${code ? ` (${code})` : ''} — start an OpenAI-compatible ` +
        `embeddings server there, or set MSGBROWSE_LLM_BASE_URL (CLI) or the msgbrowse.embeddings.baseUrl setting (VS Code)`,
    );
  }

  private httpError(status: number, body: string): EmbedError {
    const excerpt = firstChars(body.replace(/\s+/g, ' ').trim(), 300);
    if ([400, 404, 422].includes(status) && /model/i.test(body))
      return new EmbedError(
        'model_rejected',
        `the embeddings endpoint ${this.url} rejected model "${this.model}" (HTTP ${status}: ${excerpt}) — set ` +
          `MSGBROWSE_LLM_EMBED_MODEL (CLI) or the msgbrowse.embeddings.model setting (VS Code) to a model the endpoint serves`,
        status,
      );
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
    const bad = (what: string) => new EmbedError('bad_response', `the embeddings endpoint ${this.url} ${what}`);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw bad(`did not return JSON: ${firstChars(body, 300)}`);
    }
    const parsed = ResponseSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw bad(
        `returned an unexpected response (${issue.path.join('.') || 'body'}: ${issue.message}); expected {"data":[{"embedding":[numbers…]}]}`,
      );
    }
    const data = parsed.data.data ?? [];
    if (data.length !== 1) throw bad(`returned ${data.length} embeddings for 1 input`);
    const item = data[0];
    if (item.index !== undefined && item.index !== 0) throw bad(`returned embedding index ${item.index} for 1 input`);
    if (item.embedding.length === 0) throw bad(`returned an empty embedding for model "${this.model}"`);
    return Float32Array.from(item.embedding);
  }
}

/** Cuts `s` to at most `maxChars` code points, never splitting a surrogate pair (msgbrowse's byte cut can, §11.15). */
export function truncateChars(s: string, maxChars: number): string {
  if (maxChars <= 0) return '';
  if (s.length <= maxChars) return s; // code points ≤ UTF-16 units
  let count = 0;
  let i = 0;
  while (i < s.length && count < maxChars) {
    const c = s.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    i += pair ? 2 : 1;
    count++;
  }
  return s.slice(0, i);
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
