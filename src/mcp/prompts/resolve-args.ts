/** Turning prompt arguments into archive things, with errors that say what exists instead. */
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { type AsyncArchive, type ConversationRow, errorMessage, inline, ProtocolError, parseDay } from '../../core';

/** A conversation from a completed value: `name`, or `name (source)` as completions write duplicated names. */
export async function conversationArg(
  archive: AsyncArchive,
  value: string,
  signal?: AbortSignal,
): Promise<ConversationRow> {
  const v = value.trim();
  let r = await archive.resolveConversation(v, undefined, signal);
  if (r.kind !== 'found') {
    const m = /^(.*\S)\s+\(([^()]+)\)$/.exec(v);
    if (m) {
      const withSource = await archive.resolveConversation(m[1], m[2].trim().toLowerCase(), signal);
      if (withSource.kind === 'found') r = withSource;
    }
  }
  if (r.kind === 'found') return r.conversation;
  if (r.kind === 'ambiguous')
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `${inline(v)} names ${r.candidates.length} conversations; pick one of: ${r.candidates.map((c) => `${c.name} (${c.source})`).join(', ')}`,
    );
  const close = r.suggestions.slice(0, 5).map((c) => `${c.name} (${c.source})`);
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `no conversation named ${inline(v)}${close.length ? `; closest: ${close.join(', ')}` : ''}`,
  );
}

/** An optional YYYY-MM-DD argument (undefined when blank). */
export function dayArg(value: string | undefined, field: string): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  try {
    parseDay(value.trim(), field);
  } catch (e) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, errorMessage(e));
  }
  return value.trim();
}

export function requiredArg(value: string | undefined, field: string): string {
  if (value === undefined || value.trim() === '')
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${field} is required`);
  return value.trim();
}
