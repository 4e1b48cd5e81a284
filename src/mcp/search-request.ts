import { type AsyncArchive, cleanQuery, type HybridFilter } from '../core';
import { parseDayRange } from './dates';
import { resolveScope, type Scope, type ScopeArgs } from './resolve';
import type { ToolEnv } from './tool';

export interface SearchArgs extends ScopeArgs {
  query: string;
  start?: string;
  end?: string;
  has_attachment?: boolean;
  has_link?: boolean;
}

export interface SearchRequest {
  query: string;
  /** What the model should know about how its request was read (invisible characters dropped). */
  notes: string[];
  range: ReturnType<typeof parseDayRange>;
  archive: AsyncArchive;
  scope: Scope;
  filter: HybridFilter;
}

export async function searchRequest(args: SearchArgs, env: ToolEnv): Promise<SearchRequest> {
  const query = cleanQuery(args.query);
  const notes = /\p{Cf}/u.test(args.query)
    ? ['invisible characters (zero-width spaces or joiners) were removed from the query']
    : [];
  const range = parseDayRange(args.start, args.end);
  const archive = await env.archive();
  const scope = await resolveScope(archive, args, env.signal, env.choose);
  const filter: HybridFilter = {
    conversationId: scope.conversation?.id,
    source: scope.source,
    sender: scope.sender,
    startUnix: range.startUnix,
    endUnix: range.endUnix,
    ...(args.has_attachment !== undefined ? { hasAttachment: args.has_attachment } : {}),
    ...(args.has_link !== undefined ? { hasLink: args.has_link } : {}),
  };
  return { query, notes, range, archive, scope, filter };
}
