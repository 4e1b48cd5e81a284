/** The MCP protocol adapter: a server over the core, its tools (declarative, zod) and resources. */
export { createMcpServer, type McpServerOptions, type McpTrafficEvent } from './server';
export { listenWatch, serverSink } from './subscriptions';
export { usableBudget } from './answer-budget';
export { MAX_QUERY } from './tool-schemas';
export { TOOLS } from './tools';
export { encodeCursor, decodeCursor } from './cursor';
export { clientConfigs, type Launch } from './client-configs';
