import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { errorMessage, type ServerContext, ToolError } from '../core';
import { usableBudget } from './answer-budget';
import { appToolMeta, registerAppView } from './app-view';
import { discloseToolCall } from './disclosure';
import { SERVER_INSTRUCTIONS } from './instructions';
import { registerCompletions } from './completions';
import { PROMPT_ICONS, RESOURCE_ICONS, SERVER_ICONS, toolIcons, type Icon } from './icons';
import { registerPrompts } from './prompts';
import { registerResources } from './resources';
import { registerSubscriptions } from './subscriptions';
import { annotationsFor, type ToolDefinition, type ToolEnv } from './tool';
import { TOOLS } from './tools';

export const SERVER_NAME = 'msgbrowse';
/**
 * Kept equal to the name: VS Code derives the names it gives our tools from the server's title
 * (`mcp_msgbrowse_search_messages`), and prompts, settings and other clients rely on those.
 */
export const SERVER_TITLE = 'msgbrowse';
export const SERVER_DESCRIPTION =
  'Search, read and cite your own Signal, iMessage and WhatsApp history from a local msgbrowse archive (read-only): hybrid search, transcripts, context, media, links, journal days, on this day and people — every message with a citation link.';

/**
 * Builds one MCP server over `ctx`: the read-only tools, the conversation/message resource templates (live:
 * subscriptions.ts), the prompts and their completions, icons, logging, and instructions. Cheap (no I/O): called
 * once per session by the HTTP transport.
 */
/** What a server did, for diagnostics and tests: a request it answered or a notification it sent. */
export interface McpTrafficEvent {
  direction: 'in' | 'out';
  method: string;
  /** The resource URI (subscribe, unsubscribe, updated) or the prompt name (prompts/get, completion/complete). */
  subject?: string;
  /** The client's name, as it introduced itself. */
  client?: string;
}

export interface McpServerOptions {
  /** Hears every prompt, completion and resource request answered and every resource notification sent. */
  observe?: (e: McpTrafficEvent) => void;
}

/** The requests `observe` hears about. */
const OBSERVED = [
  'initialize',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'resources/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
];

export function createMcpServer(ctx: ServerContext, opts: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    {
      name: SERVER_NAME,
      title: SERVER_TITLE,
      version: ctx.version,
      description: SERVER_DESCRIPTION,
      icons: SERVER_ICONS,
    },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: false },
        completions: {},
        logging: {},
      },
      instructions: SERVER_INSTRUCTIONS,
    },
  );
  for (const def of TOOLS) registerTool(server, ctx, def as unknown as ToolDefinition);
  const observe = opts.observe;
  const watch = registerSubscriptions(
    server,
    ctx,
    observe &&
      ((method, uri) =>
        observe({ direction: 'out', method, subject: uri, client: server.server.getClientVersion()?.name })),
  );
  registerResources(server, ctx, watch);
  registerAppView(server);
  registerPrompts(server, ctx);
  registerCompletions(server, ctx);
  withIcons(server, 'tools/list', 'tools', (t) => toolIcons(t.name));
  withIcons(server, 'prompts/list', 'prompts', () => PROMPT_ICONS);
  withIcons(server, 'resources/templates/list', 'resourceTemplates', () => RESOURCE_ICONS);
  if (observe) for (const method of OBSERVED) observeRequests(server, method, observe);
  answerBadToolCalls(server);
  // Advertise exactly what is implemented: the SDK's registrations turn on listChanged for tools and prompts, which
  // never change here (the set is fixed at build time); resources do change (subscriptions.ts).
  server.server.registerCapabilities({
    tools: { listChanged: false },
    prompts: { listChanged: false },
    resources: { subscribe: true, listChanged: true },
    completions: {},
    logging: {},
  });
  return server;
}

/** Why a tools/call's params cannot be a call at all (the SDK's schema would refuse them), or undefined. */
function toolCallProblem(msg: JSONRPCMessage): string | undefined {
  const m = msg as { method?: string; id?: unknown; params?: unknown };
  if (m.method !== 'tools/call' || m.id === undefined) return undefined;
  const p = m.params as { name?: unknown; arguments?: unknown } | undefined;
  if (!p || typeof p !== 'object' || Array.isArray(p))
    return 'tools/call needs params {"name": "<tool>", "arguments": {…}}';
  if (typeof p.name !== 'string')
    return 'tools/call needs the tool name as a string in params.name (tools/list lists them)';
  const a = p.arguments;
  if (a === undefined || (typeof a === 'object' && a !== null && !Array.isArray(a))) return undefined;
  const got = a === null ? 'null' : Array.isArray(a) ? 'a list' : `a ${typeof a} (${JSON.stringify(a).slice(0, 40)})`;
  return `arguments of ${p.name.slice(0, 60)} must be an object of named parameters, e.g. {"query": "Lisbon"}; got ${got}`;
}

/**
 * A tools/call whose params no tool can take (arguments that are no object, a name that is no string) is answered
 * -32602 with one actionable line, where the SDK answers -32603 with its validation dump.
 */
function answerBadToolCalls(server: McpServer): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    const onmessage = transport.onmessage;
    transport.onmessage = (msg, extra) => {
      const problem = toolCallProblem(msg);
      if (problem === undefined) return onmessage?.(msg, extra);
      void transport
        .send({
          jsonrpc: '2.0',
          id: (msg as { id: string | number }).id,
          error: { code: ErrorCode.InvalidParams, message: problem },
        })
        .catch(() => undefined);
    };
  };
}

type RequestHandler = (req: unknown, extra: unknown) => Promise<Record<string, unknown>>;

function requestHandlers(server: McpServer): Map<string, RequestHandler> {
  return (server.server as unknown as { _requestHandlers: Map<string, RequestHandler> })._requestHandlers;
}

function observeRequests(server: McpServer, method: string, observe: (e: McpTrafficEvent) => void): void {
  const handlers = requestHandlers(server);
  const inner = handlers.get(method);
  if (!inner) throw new Error(`no ${method} handler to observe`);
  handlers.set(method, async (req, extra) => {
    const result = await inner(req, extra);
    const p = (req as { params?: { uri?: string; name?: string; ref?: { name?: string; uri?: string } } }).params;
    observe({
      direction: 'in',
      method,
      subject: p?.uri ?? p?.name ?? p?.ref?.name ?? p?.ref?.uri,
      client: server.server.getClientVersion()?.name,
    });
    return result;
  });
}

/**
 * The SDK's McpServer (1.32) does not pass `icons` through tools/list, prompts/list or resources/templates/list:
 * its list results are decorated here, after it built them (the schema of every item already allows `icons`).
 */
function withIcons(
  server: McpServer,
  method: string,
  key: string,
  iconsOf: (item: { name: string }) => readonly Icon[],
): void {
  const handlers = requestHandlers(server);
  const inner = handlers.get(method);
  if (!inner) throw new Error(`no ${method} handler to decorate`);
  handlers.set(method, async (req, extra) => {
    const result = await inner(req, extra);
    const items = result[key] as { name: string; icons?: Icon[] }[] | undefined;
    return { ...result, [key]: items?.map((item) => ({ ...item, icons: [...iconsOf(item)] })) };
  });
}

/** How long a question to the person (elicitation) may stay open before the tool answers with the candidates. */
const ELICIT_TIMEOUT_MS = 5 * 60_000;

/** Whether the client can show a form (MCP elicitation, form mode; an empty capability object means form). */
function canElicit(server: McpServer): boolean {
  const e = server.server.getClientCapabilities()?.elicitation as { form?: unknown; url?: unknown } | undefined;
  return !!e && (e.form !== undefined || e.url === undefined);
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
      _meta: appToolMeta(def.name),
    },
    async (args: z.output<typeof def.inputSchema>, extra): Promise<CallToolResult> => {
      const env: ToolEnv = {
        ctx,
        budget: usableBudget(ctx.answerBudget),
        archive: () => ctx.archive(),
        signal: extra.signal,
        warn: (message) => {
          ctx.log?.('warn', `${def.name}: ${message}`);
          server.server
            .sendLoggingMessage(
              { level: 'warning', logger: SERVER_NAME, data: `${def.name}: ${message}` },
              extra.sessionId,
            )
            .catch(() => undefined);
        },
        choose: canElicit(server)
          ? async (q, signal) => {
              const r = await server.server
                .elicitInput(
                  {
                    mode: 'form',
                    message: q.message,
                    requestedSchema: {
                      type: 'object',
                      properties: {
                        [q.field]: {
                          type: 'string',
                          title: q.field[0].toUpperCase() + q.field.slice(1),
                          oneOf: q.options.map((o) => ({ const: o.value, title: o.title })),
                        },
                      },
                      required: [q.field],
                    },
                  },
                  // On the call's own stream: over HTTP a client need not hold the session's GET stream open.
                  { signal: signal ?? extra.signal, timeout: ELICIT_TIMEOUT_MS, relatedRequestId: extra.requestId },
                )
                .catch((e: unknown) => {
                  ctx.log?.(
                    'debug',
                    `${def.name}: elicitation failed (${errorMessage(e)}); answering with the candidates instead`,
                  );
                  return undefined;
                });
              const v = r?.action === 'accept' ? r.content?.[q.field] : undefined;
              return typeof v === 'string' ? v : undefined;
            }
          : undefined,
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
        if (!(e instanceof ToolError))
          ctx.log?.(extra.signal.aborted ? 'debug' : 'warn', `${def.name} failed: ${message}`);
        result = { content: [{ type: 'text', text: message }], isError: true };
      }
      // The one place every tool result leaves for the model: the disclosure ledger hears about it here.
      discloseToolCall(server, ctx, def.name, args, result);
      return result;
    },
  );
}
