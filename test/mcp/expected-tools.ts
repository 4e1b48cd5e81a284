/**
 * The tools a client must see, in msgbrowse's registration order — written out here, not read from src/mcp/tools, so
 * the tests that compare tools/list against it (CLI, fuzz, the real VS Code host) catch a tool lost or renamed.
 * (scripts/test-inspector.mjs keeps its own copy: it is the independent judge.)
 */
export const EXPECTED_TOOLS = [
  'list_conversations',
  'get_conversation',
  'search_messages',
  'semantic_search',
  'get_context',
  'list_media',
  'list_links',
  'get_journal_day',
  'on_this_day',
  'search_contacts',
  'get_contact',
] as const;
export type ExpectedTool = (typeof EXPECTED_TOOLS)[number];
