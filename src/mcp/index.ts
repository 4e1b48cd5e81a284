export { createMcpServer, SERVER_NAME } from './server';
export { SERVER_INSTRUCTIONS } from './instructions';
export type { ServerContext, CitationFormat, SemanticState, SemanticReady, SemanticUnavailable, LogLevel } from '../core/context';
export { TOOLS, listConversations, getConversation, searchMessages, semanticSearch, getContext, listMedia, listLinks, normalizeDomain } from './tools';
export type { ToolDefinition, ToolOutput, ToolEnv, ResourceLinkItem } from './tool';
export type { MessageHit, ConversationInfo, MediaItem, LinkItem } from './schemas';
export { MessageHitSchema, ConversationInfoSchema, MediaItemSchema, LinkItemSchema } from './schemas';
export { messageLink, conversationLink, messageResourceUri, conversationResourceUri, MESSAGE_RESOURCE_TEMPLATE, CONVERSATION_RESOURCE_TEMPLATE } from '../core/citation';
export { ToolError, errorMessage } from '../core/errors';
export { parseDay, parseDayRange } from './dates';
export { encodeCursor, decodeCursor } from './cursor';

import type { z } from 'zod';
import type { listConversationsOutput } from './tools/list-conversations';
import type { getConversationOutput } from './tools/get-conversation';
import type { searchMessagesOutput } from './tools/search-messages';
import type { semanticSearchOutput } from './tools/semantic-search';
import type { getContextOutput } from './tools/get-context';
import type { listMediaOutput } from './tools/list-media';
import type { listLinksOutput } from './tools/list-links';

export type ListConversationsResult = z.infer<typeof listConversationsOutput>;
export type GetConversationResult = z.infer<typeof getConversationOutput>;
export type SearchMessagesResult = z.infer<typeof searchMessagesOutput>;
export type SemanticSearchResult = z.infer<typeof semanticSearchOutput>;
export type GetContextResult = z.infer<typeof getContextOutput>;
export type ListMediaResult = z.infer<typeof listMediaOutput>;
export type ListLinksResult = z.infer<typeof listLinksOutput>;
