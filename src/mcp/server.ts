/** Builds one MCP server over a context: tools, resources, prompts, completions, icons, logging, instructions. */
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  McpServer,
  ProtocolErrorCode,
  type CallToolResult,
  type InputRequests,
  type InputRequiredResult,
  type JSONRPCMessage,
  type ServerContext as RequestContext,
  type Transport,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { type Chooser, errorMessage, type ServerContext, ToolError } from '../core';
import { usableBudget } from './answer-budget';
import { appToolMeta, registerAppView } from './app-view';
import { registerCompletions } from './completions';
import { discloseToolCall } from './disclosure';
import { SERVER_ICONS, toolIcons } from './icons';
import { SERVER_INSTRUCTIONS } from './instructions';
import { registerPrompts } from './prompts';
import { registerResources } from './resources';
import { registerSubscriptions } from './subscriptions';
import { annotationsFor, type ToolDefinition, type ToolEnv } from './tool';
import { TOOLS } from './tools';

export const SERVER_NAME = 'msgbrowse';
// Kept equal to the name: VS Code derives our tool names from the title (`mcp_msgbrowse_search_messages`).
export const SERVER_TITLE = 'msgbrowse';
export const SERVER_DESCRIPTION =
  'Search, read and cite your own Signal, iMessage and WhatsApp history from a local msgbrowse archive (read-only): hybrid search, transcripts, context, media, links, journal days, on this day and people — every message with a citation link.';

/** What a server did, for diagnostics and tests: a request it answered or a notification it sent. */
export interface McpTrafficEvent {
  direction: 'in' | 'out';
  method: string;
  /** The resource URI (subscribe, unsubscribe, updated) or the prompt name (prompts/get, completion/complete). */
  subject?: string;
  client?: string;
}

export interface McpServerOptions {
  /** Hears every prompt, completion and resource request answered and every resource notification sent. */
  observe?: (e: McpTrafficEvent) => void;
}

const OBSERVED = new Set([
  'initialize',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'resources/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** Exactly what is implemented: tools and prompts are fixed at build time, resources change (subscriptions.ts). */
const CAPABILITIES = {
  tools: { listChanged: false },
  prompts: { listChanged: false },
  resources: { subscribe: true, listChanged: true },
  completions: {},
  logging: {},
};

/**
 * Cache hints for 2026-07-28 clients (2025-era answers never carry them): the tools, prompts and templates are fixed
 * while a server runs, so a client may keep them a while; conversations and messages change with every import, so
 * the resource listing and reads keep the SDK's default (not cached).
 */
const STATIC_LIST = { ttlMs: 10 * 60_000, cacheScope: 'private' } as const;
const CACHE_HINTS = {
  'tools/list': STATIC_LIST,
  'prompts/list': STATIC_LIST,
  'resources/templates/list': STATIC_LIST,
  'server/discover': STATIC_LIST,
};

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
      capabilities: CAPABILITIES,
      instructions: SERVER_INSTRUCTIONS,
      cacheHints: CACHE_HINTS,
      inputRequired: { roundTimeoutMs: ELICIT_TIMEOUT_MS },
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
  tapTraffic(server, observe);
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

type Incoming = {
  id?: string | number;
  method?: string;
  params?: { uri?: string; name?: string; ref?: { name?: string; uri?: string }; requestId?: string | number };
};

// Every transport passes through here, so the SDK's handlers need no patching: a tools/call no tool can take gets
// -32602 with one actionable line (the SDK: -32602 with a zod issue dump); `observe` hears answers.
function tapTraffic(server: McpServer, observe: McpServerOptions['observe']): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    const asked = new Map<string | number, { method: string; subject?: string }>();
    const onmessage = transport.onmessage;
    transport.onmessage = (msg, extra) => {
      const problem = toolCallProblem(msg);
      if (problem !== undefined) {
        const id = (msg as { id: string | number }).id;
        void transport
          .send({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InvalidParams, message: problem } })
          .catch(() => undefined);
        return;
      }
      const { id, method, params: p } = msg as Incoming;
      if (id !== undefined && method && observe && OBSERVED.has(method))
        asked.set(id, { method, subject: p?.uri ?? p?.name ?? p?.ref?.name ?? p?.ref?.uri });
      else if (method === 'notifications/cancelled' && p?.requestId !== undefined) asked.delete(p.requestId);
      onmessage?.(msg, extra);
    };
    if (!observe) return; // only observed requests are matched with their answers
    const send = transport.send.bind(transport);
    transport.send = (msg, options) => {
      const { id, method, result } = msg as { id?: string | number; method?: string; result?: unknown };
      const request = id !== undefined && method === undefined ? asked.get(id) : undefined;
      if (id === undefined || !request) return send(msg, options);
      asked.delete(id);
      try {
        if (result) observe({ direction: 'in', ...request, client: server.server.getClientVersion()?.name });
      } catch {
        // Observing is for the ledger and tests; the answer goes out regardless.
      }
      return send(msg, options);
    };
  };
}

/** How long a question to the person (elicitation) may stay open before the tool call fails. */
const ELICIT_TIMEOUT_MS = 5 * 60_000;

/**
 * Whether the client can show a form (MCP elicitation, form mode; an empty capability object means form): declared
 * at initialize (2025 era) or in the request's `_meta` envelope (2026-07-28).
 */
function canElicit(server: McpServer, extra: RequestContext): boolean {
  const envelope = extra.mcpReq.envelope as Record<string, { elicitation?: unknown } | undefined> | undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.server.getClientCapabilities();
  const e = caps?.elicitation as { form?: unknown; url?: unknown } | undefined;
  return !!e && (e.form !== undefined || e.url === undefined);
}

/** Thrown by a tool's `choose` to ask its question: the call returns `input_required` and is made again with the answer. */
class QuestionAsked extends Error {
  constructor(readonly requests: InputRequests) {
    super('input required');
  }
}

/**
 * A tool's `choose`, written once for both eras as `input_required` (MRTR): a 2026-07-28 client answers and calls again;
 * for a 2025-era client the SDK asks it with `elicitation/create` and re-runs the tool. Undefined when declined.
 */
function askChoice(extra: RequestContext): Chooser {
  return async (q) => {
    const key = `choose_${q.field}`;
    const answer = inputResponse(extra.mcpReq.inputResponses, key);
    if (answer.kind === 'elicit') {
      const v = answer.action === 'accept' ? answer.content?.[q.field] : undefined;
      return typeof v === 'string' ? v : undefined;
    }
    const requestedSchema = {
      type: 'object' as const,
      properties: {
        [q.field]: {
          type: 'string' as const,
          title: q.field[0].toUpperCase() + q.field.slice(1),
          oneOf: q.options.map((o) => ({ const: o.value, title: o.title })),
        },
      },
      required: [q.field],
    };
    throw new QuestionAsked({ [key]: inputRequired.elicit({ mode: 'form', message: q.message, requestedSchema }) });
  };
}

function toolEnv(server: McpServer, ctx: ServerContext, tool: string, extra: RequestContext): ToolEnv {
  return {
    ctx,
    budget: usableBudget(ctx.answerBudget),
    archive: () => ctx.archive(),
    signal: extra.mcpReq.signal,
    warn: (message) => {
      ctx.log?.('warn', `${tool}: ${message}`);
      server.server
        .sendLoggingMessage({ level: 'warning', logger: SERVER_NAME, data: `${tool}: ${message}` }, extra.sessionId)
        .catch(() => undefined);
    },
    choose: canElicit(server, extra) ? askChoice(extra) : undefined,
    progress: (progress, total, message) => {
      const progressToken = extra.mcpReq._meta?.progressToken;
      if (progressToken === undefined) return;
      extra.mcpReq
        .notify({ method: 'notifications/progress', params: { progressToken, progress, total, message } })
        .catch(() => undefined);
    },
  };
}

function registerTool(server: McpServer, ctx: ServerContext, def: ToolDefinition): void {
  const config = {
    title: def.title,
    description: def.description,
    inputSchema: def.inputSchema,
    outputSchema: def.outputSchema,
    annotations: annotationsFor(def.title),
    icons: toolIcons(def.name),
    _meta: appToolMeta(def.name),
  };
  server.registerTool(
    def.name,
    config,
    async (args: z.output<typeof def.inputSchema>, extra): Promise<CallToolResult | InputRequiredResult> => {
      let result: CallToolResult;
      try {
        const out = await def.handler(args, toolEnv(server, ctx, def.name, extra));
        result = {
          content: [{ type: 'text', text: out.text }, ...(out.resources ?? [])],
          structuredContent: out.structured as Record<string, unknown>,
        };
      } catch (e) {
        if (e instanceof QuestionAsked) return inputRequired({ inputRequests: e.requests });
        const message = errorMessage(e);
        if (!(e instanceof ToolError))
          ctx.log?.(extra.mcpReq.signal.aborted ? 'debug' : 'warn', `${def.name} failed: ${message}`);
        result = { content: [{ type: 'text', text: message }], isError: true };
      }
      // The one place every tool result leaves for the model: the disclosure ledger hears about it here.
      discloseToolCall(server, ctx, def.name, args, result);
      return result;
    },
  );
}
