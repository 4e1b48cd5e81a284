// Tells `ctx.disclose` what every tool call and resources/read sent the model: client, tool or resource, arguments and
// every message the result names (found generically, so new tools need no edits). It never fails or delays a call.
import type { McpServer, CallToolResult, ReadResourceResult } from '@modelcontextprotocol/server';
import {
  collectDisclosedMessages,
  type DisclosedMessage,
  type Disclosure,
  errorMessage,
  type ServerContext,
} from '../core';

function emit(server: McpServer, ctx: ServerContext, d: Omit<Disclosure, 'time' | 'client'>): void {
  if (!ctx.disclose) return;
  try {
    const c = server.server.getClientVersion();
    const client = c?.name ? { name: c.name, ...(c.version ? { version: c.version } : {}) } : undefined;
    ctx.disclose({ time: new Date().toISOString(), client, ...d });
  } catch (e) {
    ctx.log?.('warn', `disclosure ledger: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function discloseToolCall(
  server: McpServer,
  ctx: ServerContext,
  name: string,
  args: unknown,
  result: CallToolResult,
): void {
  if (!ctx.disclose) return;
  const error = result.isError
    ? result.content
        .map((c) => (c.type === 'text' ? c.text : ''))
        .join(' ')
        .trim()
    : undefined;
  emit(server, ctx, {
    kind: 'tool',
    name,
    arguments: args ?? {},
    ok: !result.isError,
    ...(error !== undefined ? { error } : {}),
    messages: collectDisclosedMessages(result.structuredContent),
  });
}

function resourceMessages(result: ReadResourceResult): DisclosedMessage[] {
  const parsed: unknown[] = [];
  for (const c of result.contents) {
    if (c.mimeType !== 'application/json' || !('text' in c) || typeof c.text !== 'string') continue;
    try {
      parsed.push(JSON.parse(c.text));
    } catch {
      /* not ours to judge */
    }
  }
  return collectDisclosedMessages(parsed);
}

/** Wraps a resource read callback so every read (and every refusal) is disclosed. */
export function disclosedRead<A extends unknown[]>(
  server: McpServer,
  ctx: ServerContext,
  name: string,
  read: (uri: URL, ...rest: A) => Promise<ReadResourceResult>,
): (uri: URL, ...rest: A) => Promise<ReadResourceResult> {
  return async (uri, ...rest) => {
    const disclose = (d: Pick<Disclosure, 'ok' | 'error' | 'messages'>) =>
      emit(server, ctx, { kind: 'resource', name, arguments: { uri: uri.href }, ...d });
    try {
      const result = await read(uri, ...rest);
      disclose({ ok: true, messages: resourceMessages(result) });
      return result;
    } catch (e) {
      disclose({ ok: false, error: errorMessage(e), messages: [] });
      throw e;
    }
  };
}
