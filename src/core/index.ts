export {
  createRuntime,
  DEFAULT_ANSWER_BUDGET,
  inThreadOpener,
  MAX_ANSWER_BUDGET,
  MIN_ANSWER_BUDGET,
  workerOpener,
} from './runtime';
export { defaultCacheDir, isBesideArchive } from './cache-dir';
export { defaultVectorIndexBuilder } from './semantic-backend';
export { SharedTask, isAbortError } from './shared-task';
export { readConversationPage, shapeConversationPage, type ConversationPageView, type PageMessage } from './read-page';
export type * from './types';
export {
  collectDisclosedMessages,
  ledgerBesideArchive,
  LedgerWriter,
  LEDGER_FILE_NAME,
  type DisclosedMessage,
  type Disclosure,
  type DisclosureEntry,
  type LedgerContents,
} from './ledger';
export {
  parseExclusions,
  isHiddenConversation,
  matchExclusions,
  unmatchedExclusionLines,
  type ExclusionMatch,
} from './privacy';
export { missingParts, schemaNotice } from './compatibility';
export { ARCHIVE_FILE_NAME } from '../archive/file-name';
export type { AsyncArchive, ConversationRow, MessageRow } from '../archive/types';
export { prewarmEngine, compiledEngineModule } from '../archive/wasm-engine';
export {
  type CitationCheck,
  checkCitations,
  type CitationCheckSummary,
  summarizeChecks,
  type CitationStatus,
  type QuoteVerdict,
} from './citation-check';
export {
  CONVERSATION_RESOURCE_TEMPLATE,
  MESSAGE_RESOURCE_TEMPLATE,
  MESSAGE_RESOURCE_TEMPLATE_BARE,
  messageResourceUri,
  conversationResourceUri,
  parseResourceId,
  messageLink,
} from './citation-format';
export { parseCitationHash, resolveCitation, citationHash } from './citation-resolve';
export { openCitation, type OpenedCitation } from './citation-open';
export { rankCompletions } from './completion-rank';
export type { ServerContext, LogLevel, CitationFormat } from './context';
export { ToolError, ProtocolError, errorMessage } from './errors';
export { messageHits, withHitExtras } from './hit-extras';
export { conversationInfo, redactsFor } from './hits';
export { hybridSearch, type HybridSearchResult } from './hybrid-search';
export { isoDay, localToday, calendarDateAt, onThisDay, type CalendarDate, type OnThisDayResult } from './journal-days';
export * from './results';
export { receiptLine } from './search-receipt';
export { inline, linkLabel, quote, cleanBody } from './text';
export { embedConfigFromEnv } from '../embed/config';
export { DEFAULT_EMBED_BASE_URL, DEFAULT_EMBED_MODEL } from '../embed/index';
export type { EmbedConfig } from '../embed/types';
export { cleanQuery, parseDay, parseDayRange } from './request';
export type { Chooser } from './scope';
export { type CallEnv, searchMessages, semanticSearch } from './message-search';
export { type ContextAnswer, readContext } from './context-read';
export { readConversation, type TranscriptPosition } from './conversation-read';
export { type DayPosition, readJournalDay, readOnThisDay } from './journal-read';
export { findContacts, readContact } from './contact-read';
export { listConversations, listLinks, listMedia, parseDomainFilter } from './list-read';
