/** The `sender` filter of every tool, resolved within the call's scope: no match is an error naming who is there. */
import type { AsyncArchive, SenderMatch } from '../archive/types';
import { ToolError } from './errors';
import type { Scope } from './scope';
import { inline } from './text';

const list = (xs: SenderMatch[]) =>
  xs.map((s) => `${inline(s.name)} (${s.messages} message${s.messages === 1 ? '' : 's'})`).join(', ');

/** The stored sender to filter on (undefined: no sender filter); throws a ToolError naming candidates otherwise. */
export async function resolveSenderFilter(
  archive: AsyncArchive,
  sender: string | undefined,
  scope: Omit<Scope, 'sender'>,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const name = sender?.trim();
  if (name === undefined || name === '') return undefined;
  const r = await archive.resolveSender(name, { conversationId: scope.conversation?.id, source: scope.source }, signal);
  if (r.kind === 'found') return r.sender;
  const c = scope.conversation;
  const where = c
    ? ` in conversation ${inline(c.name)} (${c.source}, conversation_id ${c.id})`
    : scope.source
      ? ` in source "${scope.source}"`
      : ' in this archive';
  if (r.kind === 'ambiguous')
    throw new ToolError(
      `sender ${inline(name)} matches several senders${where}: ${list(r.candidates)} — pass the exact spelling of one`,
    );
  let msg = `no sender ${inline(name)}${where}.`;
  if (r.elsewhere.length)
    msg += ` ${list(r.elsewhere)} ${r.elsewhere.length === 1 ? 'has' : 'have'} messages outside this scope — drop the conversation/source filter to search them.`;
  if (r.suggestions.length) msg += ` Closest senders: ${list(r.suggestions)}.`;
  if (r.inScope?.length) msg += ` Senders there: ${list(r.inScope)}.`;
  msg +=
    ' Senders match ignoring case and accents; "Me" (or "me") is the archive owner; use a name exactly as results show it.';
  throw new ToolError(msg);
}
