import { getContact } from './get-contact';
import { getContext } from './get-context';
import { getConversation } from './get-conversation';
import { getJournalDay } from './get-journal-day';
import { listConversations } from './list-conversations';
import { listLinks } from './list-links';
import { listMedia } from './list-media';
import { onThisDay } from './on-this-day';
import { searchContacts } from './search-contacts';
import { searchMessages } from './search-messages';
import { semanticSearch } from './semantic-search';

/** Every tool: msgbrowse's seven in its registration order, then ours. Adding a tool is its file plus one entry here. */
export const TOOLS = [
  listConversations,
  getConversation,
  searchMessages,
  semanticSearch,
  getContext,
  listMedia,
  listLinks,
  getJournalDay,
  onThisDay,
  searchContacts,
  getContact,
] as const;
