/** Free-text query hygiene shared by the search tools. */
import { ToolError } from './errors';

/** Invisible format characters: zero-width spaces and joiners, word joiners, soft hyphens, bidi marks, BOMs. */
const INVISIBLE_CHARS = /\p{Cf}/gu;

/**
 * Control characters (incl. NUL) become spaces, invisible characters are dropped (`Lis\u200bbon` is Lisbon, as
 * msgbrowse's previews drop them); surrounding whitespace is trimmed; empty → error.
 */
export function cleanQuery(q: string): string {
  // eslint-disable-next-line no-control-regex
  const c = q
    .replace(INVISIBLE_CHARS, '')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .trim();
  if (c === '')
    throw new ToolError('query is required: give the words (or, for semantic_search, a description) to search for');
  return c;
}
