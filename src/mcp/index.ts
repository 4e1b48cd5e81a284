/** The MCP protocol adapter: a server over the core, its tools (declarative, zod) and resources. */
export { createMcpServer, SERVER_NAME, type McpTrafficEvent } from './server';
export { SERVER_INSTRUCTIONS } from './instructions';
export { TOOLS, parseDomainFilter } from './tools';
export type { ToolDefinition, ToolOutput, ToolEnv, ResourceLinkItem } from './tool';
export { encodeCursor, decodeCursor } from './cursor';
