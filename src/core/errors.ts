import { ArchiveError } from '../archive/errors';
import { EmbedError } from '../embed/errors';

/** An expected failure with a message written for the model: what was wrong and what to do instead. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** A refused protocol request with its JSON-RPC code; not the SDK's McpError, whose prefix a client's would double. */
export class ProtocolError extends ToolError {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** One actionable line for anything a handler throws: known errors keep their message, others lose the stack. */
export function errorMessage(e: unknown): string {
  if (e instanceof ToolError || e instanceof ArchiveError || e instanceof EmbedError) return e.message;
  if (e instanceof Error && e.name === 'AbortError') return 'the request was cancelled';
  const msg = e instanceof Error ? e.message : String(e);
  return `internal error: ${msg.split('\n')[0] || 'unknown failure'} — please report this; other calls still work`;
}
