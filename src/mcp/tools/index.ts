import { getContext } from './get-context';
import { getConversation } from './get-conversation';
import { listConversations } from './list-conversations';
import { listLinks } from './list-links';
import { listMedia } from './list-media';
import { searchMessages } from './search-messages';
import { semanticSearch } from './semantic-search';

/** Every tool, in msgbrowse's registration order: adding a tool is its file plus one entry here. */
export const TOOLS = [listConversations, getConversation, searchMessages, semanticSearch, getContext, listMedia, listLinks] as const;

export { parseDomainFilter } from './list-links';
