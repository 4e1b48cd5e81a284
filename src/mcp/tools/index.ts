import { getContext } from './get-context';
import { getConversation } from './get-conversation';
import { listConversations } from './list-conversations';
import { listLinks } from './list-links';
import { listMedia } from './list-media';
import { searchMessages } from './search-messages';
import { semanticSearch } from './semantic-search';

/** The seven tools, in msgbrowse's registration order. */
export const TOOLS = [listConversations, getConversation, searchMessages, semanticSearch, getContext, listMedia, listLinks] as const;

export { listConversations, getConversation, searchMessages, semanticSearch, getContext, listMedia, listLinks };
export { parseDomainFilter } from './list-links';
