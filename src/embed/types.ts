/** Configuration of the OpenAI-compatible embeddings endpoint (same keys and defaults as msgbrowse). */
export interface EmbedConfig {
  /** `MSGBROWSE_LLM_BASE_URL`, default `http://127.0.0.1:4000/v1`, trailing `/` trimmed. */
  baseUrl: string;
  /** `MSGBROWSE_LLM_EMBED_MODEL`, default `local-embed`; empty disables semantic search. Trimmed. */
  model: string;
  /** `MSGBROWSE_LLM_API_KEY`; empty means no Authorization header. */
  apiKey?: string;
  /** Request timeout in ms (default 60 000). */
  timeoutMs?: number;
}

/** Turns one query string into one vector. The only network call the server ever makes. */
export interface Embedder {
  readonly model: string;
  embed(text: string, signal?: AbortSignal): Promise<Float32Array>;
}
