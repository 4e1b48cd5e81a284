export {
  DEFAULT_EMBED_BASE_URL,
  DEFAULT_EMBED_MODEL,
  NO_EMBED_MODEL_REASON,
  embedConfigFromEnv,
  parseGoDuration,
  modelAvailabilityProblem,
} from './config';
export { EmbedError, dimensionMismatchError } from './errors';
export { OpenAIEmbedder, truncateChars } from './openai-client';
