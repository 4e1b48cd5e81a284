/**
 * The disclosure hook at the MCP boundary: after every tool call and resources/read (successful or failed), tells
 * `ctx.disclose` what went to the model — the client (its clientInfo from initialize), the tool or resource, the
 * arguments, and every message the result names (found generically in structuredContent / JSON resource contents,
 * so new tools are covered without edits). The hook never fails or delays a call.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import {
  collectDisclosedMessages,
  type DisclosedMessage,
  type Disclosure,
  errorMessage,
  type ServerContext,
} from '../core';

function clientOf(server: McpServer): Disclosure['client'] {
  const c = server.server.getClientVersion();
  return c?.name ? { name: c.name, ...(c.version ? { version: c.version } : {}) } : undefined;
}

function emit(server: McpServer, ctx: ServerContext, d: Omit<Disclosure, 'time' | 'client'>): void {
  if (!ctx.disclose) return;
  try {
    ctx.disclose({ time: new Date().toISOString(), client: clientOf(server), ...d });
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
    try {
      const result = await read(uri, ...rest);
      emit(server, ctx, {
        kind: 'resource',
        name,
        arguments: { uri: uri.href },
        ok: true,
        messages: resourceMessages(result),
      });
      return result;
    } catch (e) {
      emit(server, ctx, {
        kind: 'resource',
        name,
        arguments: { uri: uri.href },
        ok: false,
        error: errorMessage(e),
        messages: [],
      });
      throw e;
    }
  };
}
