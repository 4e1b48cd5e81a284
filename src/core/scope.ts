/** A tool call's scope (conversation, source, sender) resolved against the archive, or one line saying what exists. */
import type { AsyncArchive, ConversationRow, SenderMatch } from '../archive/types';
import { ToolError } from './errors';
import { inline } from './text';

export interface ScopeArgs {
  conversation?: string;
  conversation_id?: number;
  source?: string;
  /** Resolved within the conversation/source scope. */
  sender?: string;
}

/** Asks the person to pick one option (MCP elicitation); undefined when they declined or the client cannot ask. */
export type Chooser = (question: {
  message: string;
  field: string;
  options: { value: string; title: string }[];
}) => Promise<string | undefined>;

export interface Scope {
  conversation?: ConversationRow;
  /** As the archive spells it. */
  source?: string;
  sender?: string;
}

/** Validates a source against the archive's sources (case-insensitive) and returns the stored spelling. */
export async function resolveSource(
  archive: AsyncArchive,
  source: string | undefined,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (source === undefined || source.trim() === '') return undefined;
  const wanted = source.trim().toLowerCase();
  const known = Object.keys((await archive.summary(signal)).sources).sort();
  const match = known.find((s) => s.toLowerCase() === wanted);
  if (match !== undefined) return match;
  throw new ToolError(
    `unknown source ${inline(source)}; this archive has ${known.length ? known.map((s) => `"${s}"`).join(', ') : 'no messages yet'}`,
  );
}

/** By id, or by exact name (+ source when several sources have it); errors name the closest conversations. */
export async function resolveScope(
  archive: AsyncArchive,
  args: ScopeArgs,
  signal?: AbortSignal,
  choose?: Chooser,
): Promise<Scope> {
  const scope = await resolveConversationScope(archive, args, signal, choose);
  const sender = await resolveSenderFilter(archive, args.sender, scope, signal);
  return sender === undefined ? scope : { ...scope, sender };
}

async function resolveConversationScope(
  archive: AsyncArchive,
  args: ScopeArgs,
  signal?: AbortSignal,
  choose?: Chooser,
): Promise<Scope> {
  const source = await resolveSource(archive, args.source, signal);
  const name = args.conversation;
  if (args.conversation_id !== undefined) {
    const c = await archive.conversationById(args.conversation_id, signal);
    if (!c)
      throw new ToolError(`conversation id ${args.conversation_id} not found — use list_conversations to see the ids`);
    if (source !== undefined && c.source !== source)
      throw new ToolError(
        `conversation id ${c.id} (${inline(c.name)}) is from source "${c.source}", not "${source}"; drop source or fix conversation_id`,
      );
    if (name !== undefined && name.trim() !== '' && name !== c.name && name.trim() !== c.name.trim())
      throw new ToolError(
        `conversation id ${c.id} is named ${inline(c.name)}, not ${inline(name)}; pass only one of conversation and conversation_id`,
      );
    return { conversation: c, source };
  }
  if (name === undefined || name.trim() === '') return { source };
  const r = await archive.resolveConversation(name, source, signal);
  if (r.kind === 'found') return { conversation: r.conversation, source };
  if (r.kind === 'ambiguous') {
    const cands = [...r.candidates].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : a.id - b.id));
    // A client that can ask the person: which one did they mean? (Declining keeps the error below.)
    const title = (c: ConversationRow) =>
      `${c.name} — ${c.source}, ${c.messageCount} messages${c.lastTs ? `, last ${c.lastTs.slice(0, 10)}` : ''}`;
    const options = cands.map((c) => ({ value: String(c.id), title: title(c) }));
    const message = `"${name}" is the name of ${cands.length} conversations. Which one do you mean?`;
    const picked = await choose?.({ message, field: 'conversation', options });
    const chosen = cands.find((c) => picked !== undefined && String(c.id) === picked);
    if (chosen) return { conversation: chosen, source: source ?? chosen.source };
    const list = cands.map((c) => `${c.source} (conversation_id ${c.id}, ${c.messageCount} messages)`).join(', ');
    throw new ToolError(
      `conversation ${inline(name)} exists in several sources: ${list} — pass source (${[...new Set(cands.map((c) => `"${c.source}"`))].join(' or ')}) or conversation_id to choose one`,
    );
  }
  const where = source ? ` in source "${source}"` : '';
  const sugg = r.suggestions.slice(0, 5).map((c) => `${inline(c.name)} (${c.source}, conversation_id ${c.id})`);
  throw new ToolError(
    `conversation ${inline(name)} not found${where}.` +
      (sugg.length ? ` Closest names: ${sugg.join(', ')}.` : '') +
      ' Use list_conversations to see every conversation (names match exactly), or pass conversation_id.',
  );
}

const senderList = (xs: SenderMatch[]) =>
  xs.map((s) => `${inline(s.name)} (${s.messages} message${s.messages === 1 ? '' : 's'})`).join(', ');

/** The stored sender to filter on (undefined: no sender filter); throws a ToolError naming candidates otherwise. */
async function resolveSenderFilter(
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
      `sender ${inline(name)} matches several senders${where}: ${senderList(r.candidates)} — pass the exact spelling of one`,
    );
  let msg = `no sender ${inline(name)}${where}.`;
  if (r.elsewhere.length)
    msg += ` ${senderList(r.elsewhere)} ${r.elsewhere.length === 1 ? 'has' : 'have'} messages outside this scope — drop the conversation/source filter to search them.`;
  if (r.suggestions.length) msg += ` Closest senders: ${senderList(r.suggestions)}.`;
  if (r.inScope?.length) msg += ` Senders there: ${senderList(r.inScope)}.`;
  msg +=
    ' Senders match ignoring case and accents; "Me" (or "me") is the archive owner; use a name exactly as results show it.';
  throw new ToolError(msg);
}
