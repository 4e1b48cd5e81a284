export type { EmbedConfig, Embedder } from './types';
export {
  DEFAULT_EMBED_BASE_URL,
  DEFAULT_EMBED_MODEL,
  DEFAULT_EMBED_TIMEOUT_MS,
  NO_EMBED_MODEL_REASON,
  embedConfigFromEnv,
  normalizeEmbedConfig,
  semanticEnabled,
  parseGoDuration,
  modelAvailabilityProblem,
} from './config';
export type { EnvLike } from './config';
export { EmbedError, isEmbedError, dimensionMismatchError } from './errors';
export type { EmbedErrorCode } from './errors';
export { OpenAIEmbedder, MAX_QUERY_CHARS } from './openai-client';
export type { OpenAIEmbedderOptions } from './openai-client';
export { truncateChars } from './truncate';
