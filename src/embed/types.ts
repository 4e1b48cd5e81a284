/** The OpenAI-compatible embeddings endpoint, with msgbrowse's keys and defaults (see config.ts). */
export interface EmbedConfig {
  baseUrl: string;
  /** Empty disables semantic search. */
  model: string;
  apiKey?: string;
  timeoutMs?: number;
}

/** Turns one query into one vector: the only network call the server makes. */
export interface Embedder {
  readonly model: string;
  embed(text: string, signal?: AbortSignal): Promise<Float32Array>;
}
