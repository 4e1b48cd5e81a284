/** Errors of the embeddings client. Messages say what failed, where, and how to fix it. */
type EmbedErrorCode =
  | 'not_configured'
  | 'unreachable'
  | 'timeout'
  | 'aborted'
  | 'http'
  | 'model_rejected'
  | 'bad_response'
  | 'dimension_mismatch';

export class EmbedError extends Error {
  constructor(
    readonly code: EmbedErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'EmbedError';
  }
}

/** The query's length differs from the stored vectors': the endpoint serves another model than the archive's. */
export function dimensionMismatchError(model: string, queryDim: number, storedDim: number): EmbedError {
  return new EmbedError(
    'dimension_mismatch',
    `embedding dimension mismatch: the endpoint returned a ${queryDim}-dimensional vector for model "${model}", ` +
      `but the archive stores ${storedDim}-dimensional vectors for that model — the endpoint serves a different model ` +
      `than the one that embedded the archive; point MSGBROWSE_LLM_BASE_URL / MSGBROWSE_LLM_EMBED_MODEL (CLI) or the ` +
      `msgbrowse.embeddings.* settings (VS Code) at the model used by \`msgbrowse embed\``,
  );
}
