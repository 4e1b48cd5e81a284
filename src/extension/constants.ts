/** Identifiers fixed by package.json; citation URIs and MCP server ids contain them. */
export const EXTENSION_ID = 'msgbrowse.msgbrowse-vscode';
/** `contributes.mcpServerDefinitionProviders[0].id`. */
export const MCP_PROVIDER_ID = 'msgbrowse';
/** Label of the definition; VS Code's server id is `<extension id>/<label>`. */
export const MCP_SERVER_LABEL = 'msgbrowse';
export const MCP_SERVER_ID = `${EXTENSION_ID}/${MCP_SERVER_LABEL}`;
/** Name of the per-session secret header VS Code sends with every MCP request. */
export const SECRET_HEADER = 'x-msgbrowse-secret';
export const VIEWER_VIEW_TYPE = 'msgbrowse.conversation';
export const CONFIG_SECTION = 'msgbrowse';
export const SECRET_API_KEY = 'msgbrowse.embeddings.apiKey';
