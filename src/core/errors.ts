import { isArchiveError } from '../archive/errors';
import { isEmbedError } from '../embed/errors';

/** An expected failure with a message written for the model: what was wrong and what to do instead. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/**
 * A refused request of the protocol (a resource, prompt or completion) with its JSON-RPC error code. Its message is the
 * plain sentence (the SDK's McpError puts "MCP error <code>:" in front, which a client's own McpError then doubles).
 */
export class ProtocolError extends ToolError {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/**
 * Maps anything thrown by a handler to a one-line actionable message. Known errors (ours, the archive's,
 * the embeddings client's) keep their message; anything else is reported without a stack trace.
 */
export function errorMessage(e: unknown): string {
  if (e instanceof ToolError || isArchiveError(e) || isEmbedError(e)) return e.message;
  if (e instanceof Error && e.name === 'AbortError') return 'the request was cancelled';
  const msg = e instanceof Error ? e.message : String(e);
  return `internal error: ${msg.split('\n')[0] || 'unknown failure'} — please report this; other calls still work`;
}
