/**
 * The MCP App view (the `io.modelcontextprotocol/ui` extension, "MCP Apps"): one HTML resource,
 * `ui://msgbrowse/thread`, that hosts with Apps support (VS Code chat) render inline under a tool result — the cited
 * messages in their thread. The tools whose results are messages declare it through `_meta.ui.resourceUri`; clients
 * without Apps ignore that field and see exactly the text and `structuredContent` they always saw.
 *
 * The document is built by esbuild.js from `media/app/` into `dist/thread-app.html` (view script and CSS inlined, a
 * CSP meta tag allowing no network at all); it is read here, once, beside the running bundle (dist/) or from the
 * repo's dist/ when run from src/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { registerAppResource, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ProtocolError } from '../core';

export const THREAD_VIEW_URI = 'ui://msgbrowse/thread';
export const THREAD_VIEW_MIME = RESOURCE_MIME_TYPE;
export const THREAD_VIEW_FILE = 'thread-app.html';

/** The tools whose results are messages: their results are shown in the thread view. */
export const THREAD_VIEW_TOOLS: readonly string[] = [
  'search_messages',
  'semantic_search',
  'get_context',
  'get_conversation',
  'get_journal_day',
  'on_this_day',
];

/**
 * The view's sandbox: no network of any kind (no connect, resource, frame or base-URI domains). Everything it shows
 * comes from the tool result the host hands it; "Show more context" goes through the host (tools/call).
 */
export const THREAD_VIEW_CSP = {
  connectDomains: [] as string[],
  resourceDomains: [] as string[],
  frameDomains: [] as string[],
};

/**
 * The `_meta` a tool declares (undefined for a tool without the view): `ui.resourceUri`, plus the flat
 * `ui/resourceUri` key older hosts read — both, as ext-apps' own `registerAppTool` writes them.
 */
export function appToolMeta(toolName: string): Record<string, unknown> | undefined {
  if (!THREAD_VIEW_TOOLS.includes(toolName)) return undefined;
  return { ui: { resourceUri: THREAD_VIEW_URI }, [RESOURCE_URI_META_KEY]: THREAD_VIEW_URI };
}

/** Where the built document may sit: beside the running bundle (dist/), or the repo's dist/ when run from src/. */
function candidates(): string[] {
  return [path.join(__dirname, THREAD_VIEW_FILE), path.resolve(__dirname, '../../dist', THREAD_VIEW_FILE)];
}

let cached: string | undefined;

/** The view's HTML document (read once per process). */
export function threadViewHtml(): string {
  if (cached !== undefined) return cached;
  for (const file of candidates()) {
    if (fs.existsSync(file)) return (cached = fs.readFileSync(file, 'utf8'));
  }
  throw new ProtocolError(
    ErrorCode.InternalError,
    `the conversation view is not built (${THREAD_VIEW_FILE} missing: run node esbuild.js)`,
  );
}

/** Registers `ui://msgbrowse/thread` (listed in resources/list, read with its CSP metadata). */
export function registerAppView(server: McpServer): void {
  registerAppResource(
    server,
    'thread-view',
    THREAD_VIEW_URI,
    {
      title: 'Conversation view',
      description:
        'The messages of a msgbrowse tool result in their thread (an MCP App: rendered inline by hosts that support MCP Apps).',
      mimeType: RESOURCE_MIME_TYPE,
      _meta: { ui: { csp: THREAD_VIEW_CSP, prefersBorder: true } },
    },
    async () => ({
      contents: [
        {
          uri: THREAD_VIEW_URI,
          mimeType: RESOURCE_MIME_TYPE,
          text: threadViewHtml(),
          _meta: { ui: { csp: THREAD_VIEW_CSP, prefersBorder: true } },
        },
      ],
    }),
  );
}
