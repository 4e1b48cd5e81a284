import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ServerContext } from '../core/context';
import { errorMessage, ToolError } from '../core/errors';
import { discloseToolCall } from './disclosure';
import { SERVER_INSTRUCTIONS } from './instructions';
import { registerResources } from './resources';
import { annotationsFor, type ToolDefinition, type ToolEnv } from './tool';
import { TOOLS } from './tools';

export const SERVER_NAME = 'msgbrowse';

/**
 * Builds one MCP server over `ctx`: the seven read-only tools, the conversation/message resource templates,
 * logging, and instructions. Cheap (no I/O): called once per session by the HTTP transport.
 */
export function createMcpServer(ctx: ServerContext): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: ctx.version },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, logging: {} },
      instructions: SERVER_INSTRUCTIONS,
    },
  );
  for (const def of TOOLS) registerTool(server, ctx, def as unknown as ToolDefinition);
  registerResources(server, ctx);
  return server;
}

function registerTool(server: McpServer, ctx: ServerContext, def: ToolDefinition): void {
  server.registerTool(
    def.name,
    {
      title: def.title,
      description: def.description,
      inputSchema: def.inputSchema,
      outputSchema: def.outputSchema,
      annotations: annotationsFor(def.title),
    },
    async (args: z.output<typeof def.inputSchema>, extra): Promise<CallToolResult> => {
      const env: ToolEnv = {
        ctx,
        archive: () => ctx.archive(),
        signal: extra.signal,
        warn: (message) => {
          ctx.log?.('warn', `${def.name}: ${message}`);
          server.server
            .sendLoggingMessage({ level: 'warning', logger: SERVER_NAME, data: `${def.name}: ${message}` }, extra.sessionId)
            .catch(() => undefined);
        },
        progress: (progress, total, message) => {
          const progressToken = extra._meta?.progressToken;
          if (progressToken === undefined) return;
          extra
            .sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total, message } })
            .catch(() => undefined);
        },
      };
      let result: CallToolResult;
      try {
        const out = await def.handler(args, env);
        result = {
          content: [{ type: 'text', text: out.text }, ...(out.resources ?? [])],
          structuredContent: out.structured as Record<string, unknown>,
        };
      } catch (e) {
        const message = errorMessage(e);
        if (!(e instanceof ToolError)) ctx.log?.(extra.signal.aborted ? 'debug' : 'warn', `${def.name} failed: ${message}`);
        result = { content: [{ type: 'text', text: message }], isError: true };
      }
      // The one place every tool result leaves for the model: the disclosure ledger hears about it here.
      discloseToolCall(server, ctx, def.name, args, result);
      return result;
    },
  );
}
