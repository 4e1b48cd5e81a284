/** Free-text query hygiene shared by the search tools. */
import { ToolError } from './errors';

/** Control characters become spaces; invisible ones (\p{Cf}) are dropped, as msgbrowse's previews drop them. */
export function cleanQuery(q: string): string {
  const c = q
    .replace(/\p{Cf}/gu, '')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .trim();
  if (c === '')
    throw new ToolError('query is required: give the words (or, for semantic_search, a description) to search for');
  return c;
}
