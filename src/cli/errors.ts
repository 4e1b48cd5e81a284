/** How a CLI failure reaches the user: one line on stderr, with an exit code. */

/** A user-facing failure: printed as one line, exit code attached. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Any error (or thrown value) as a single line of text. */
export function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s*\n\s*/g, ' ').trim();
}
