// The MCP App view `ui://msgbrowse/thread`: hosts with MCP Apps render a message tool's result inline; other clients
// ignore `_meta.ui` and see the same text and structuredContent. The document is esbuild.js's build of `media/app/`
// (script and CSS inlined, a CSP allowing no network).
import fs from 'node:fs';
import path from 'node:path';
import { registerAppResource, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { type McpServer, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { ProtocolError } from '../core';

export const THREAD_VIEW_URI = 'ui://msgbrowse/thread';
const THREAD_VIEW_FILE = 'thread-app.html';

export const THREAD_VIEW_TOOLS: readonly string[] = [
  'search_messages',
  'semantic_search',
  'get_context',
  'get_conversation',
  'get_journal_day',
  'on_this_day',
];

// No network of any kind: everything the view shows comes from the tool result; "Show more context" is a tools/call.
const VIEW_META = { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] }, prefersBorder: true } };

/** `ui.resourceUri`, plus the flat key older hosts read (as ext-apps' own `registerAppTool` writes both). */
export function appToolMeta(toolName: string): Record<string, unknown> | undefined {
  if (!THREAD_VIEW_TOOLS.includes(toolName)) return undefined;
  return { ui: { resourceUri: THREAD_VIEW_URI }, [RESOURCE_URI_META_KEY]: THREAD_VIEW_URI };
}

let cached: string | undefined;

/** The document, read once: beside the running bundle (dist/), or the repo's dist/ when run from src/. */
function threadViewHtml(): string {
  if (cached !== undefined) return cached;
  for (const file of [
    path.join(__dirname, THREAD_VIEW_FILE),
    path.resolve(__dirname, '../../dist', THREAD_VIEW_FILE),
  ]) {
    if (fs.existsSync(file)) return (cached = fs.readFileSync(file, 'utf8'));
  }
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `the conversation view is not built (${THREAD_VIEW_FILE} missing: run node esbuild.js)`,
  );
}

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
      _meta: VIEW_META,
    },
    async () => ({
      contents: [{ uri: THREAD_VIEW_URI, mimeType: RESOURCE_MIME_TYPE, text: threadViewHtml(), _meta: VIEW_META }],
    }),
  );
}
