// `completion/complete` for every prompt argument and resource-template variable that names an archive thing. One
// handler, not the SDK's per-field completers, so totals stay exact when the candidates are millions (message ids).
import { type CompleteResult, type McpServer, ProtocolErrorCode } from '@modelcontextprotocol/server';
import {
  type AsyncArchive,
  CONVERSATION_RESOURCE_TEMPLATE,
  type ConversationRow,
  errorMessage,
  MESSAGE_RESOURCE_TEMPLATE,
  MESSAGE_RESOURCE_TEMPLATE_BARE,
  ProtocolError,
  rankCompletions,
  type ServerContext,
} from '../core';
import { PROMPTS } from './prompts';

const MAX_COMPLETIONS = 100;

export type CompletionKind = 'conversation' | 'sender' | 'source' | 'person' | 'conversation_id' | 'message_id';

/** A conversation name completes to `name`, or `name (source)` when the name exists in several sources. */
function conversationLabels(rows: readonly ConversationRow[]): string[] {
  const count = new Map<string, number>();
  for (const c of rows) count.set(c.name, (count.get(c.name) ?? 0) + 1);
  return rows.map((c) => ((count.get(c.name) ?? 0) > 1 ? `${c.name} (${c.source})` : c.name));
}

/** Ranked values for one kind; `total` counts every match. */
async function completeKind(
  kind: CompletionKind,
  archive: AsyncArchive,
  typed: string,
  signal?: AbortSignal,
): Promise<{ values: string[]; total: number }> {
  const ranked = (all: string[]) => {
    const r = rankCompletions(all, typed);
    return { values: r.slice(0, MAX_COMPLETIONS), total: r.length };
  };
  switch (kind) {
    case 'conversation': {
      // Most active first among equally good matches: the conversations people mean most often.
      const rows = await archive.listConversations(undefined, signal);
      return ranked(conversationLabels([...rows].sort((a, b) => b.lastUnix - a.lastUnix || a.id - b.id)));
    }
    case 'sender':
      return ranked(await archive.senderNames(signal));
    case 'source':
      return ranked(Object.keys((await archive.summary(signal)).sources).sort());
    case 'person': {
      const people = await archive.searchContacts('', Number.MAX_SAFE_INTEGER, signal);
      const names = people.items.map((c) => c.name);
      // Archives before contacts (schema v1): the conversation names are the people.
      return ranked(names.length ? names : conversationLabels(await archive.listConversations(undefined, signal)));
    }
    case 'conversation_id': {
      const rows = await archive.listConversations(undefined, signal);
      return ranked([...rows].sort((a, b) => a.id - b.id).map((c) => String(c.id)));
    }
    case 'message_id': {
      const t = typed.trim();
      if (t === '') return { values: [], total: 0 };
      const { ids, total } = await archive.messageIdsWithPrefix(t, MAX_COMPLETIONS, signal);
      return { values: ids.map(String), total };
    }
  }
}

/** Which kind completes each resource-template variable. */
const TEMPLATE_VARIABLES: Record<string, Record<string, CompletionKind>> = {
  [CONVERSATION_RESOURCE_TEMPLATE]: { id: 'conversation_id' },
  [MESSAGE_RESOURCE_TEMPLATE]: { id: 'message_id' },
  [MESSAGE_RESOURCE_TEMPLATE_BARE]: { id: 'message_id' },
};

export function registerCompletions(server: McpServer, ctx: ServerContext): void {
  const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);
  server.server.setRequestHandler('completion/complete', async (req, extra): Promise<CompleteResult> => {
    const { ref, argument } = req.params;
    let kind: CompletionKind | undefined;
    if (ref.type === 'ref/prompt') {
      const p = PROMPTS.find((x) => x.name === ref.name);
      if (!p) throw invalid(`no prompt named ${JSON.stringify(ref.name)}; prompts/list shows them`);
      if (!(argument.name in p.args)) {
        const args = Object.keys(p.args).join(', ');
        throw invalid(`prompt ${p.name} has no argument ${JSON.stringify(argument.name)}; its arguments: ${args}`);
      }
      kind = p.args[argument.name].complete;
    } else {
      const vars = TEMPLATE_VARIABLES[ref.uri];
      if (!vars) throw invalid(`no resource template ${JSON.stringify(ref.uri)}; resources/templates/list shows them`);
      kind = vars[argument.name];
    }
    if (!kind) return { completion: { values: [], total: 0, hasMore: false } };
    try {
      const { values, total } = await completeKind(
        kind,
        await ctx.archive(),
        argument.value ?? '',
        extra.mcpReq.signal,
      );
      return { completion: { values, total, hasMore: total > values.length } };
    } catch (e) {
      throw new ProtocolError(ProtocolErrorCode.InternalError, `completion failed: ${errorMessage(e)}`);
    }
  });
}
