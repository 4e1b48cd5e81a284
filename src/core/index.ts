export { createRuntime, DEFAULT_ANSWER_BUDGET, inThreadOpener, workerOpener } from './runtime';
export { defaultCacheDir, isBesideArchive, CACHE_DIR_NAME } from './cache-dir';
export { defaultVectorIndexBuilder } from './vector-index-source';
export { SharedTask, isAbortError } from './shared-task';
export {
  readConversationPage,
  shapeConversationPage,
  type ConversationPageView,
  type PageMessage,
  type ReactionGroup,
} from './read-page';
export type * from './types';
export {
  collectDisclosedMessages,
  ledgerBesideArchive,
  LedgerWriter,
  LEDGER_FILE_NAME,
  readLedger,
  type DisclosedMessage,
  type Disclosure,
  type DisclosureEntry,
  type LedgerContents,
} from './ledger';
export {
  parseExclusions,
  isHiddenConversation,
  matchExclusions,
  modelFacing,
  unmatchedExclusionLines,
  type ExclusionMatch,
} from './privacy';
export { missingParts, schemaNotice } from './compatibility';
export { ARCHIVE_FILE_NAME } from '../archive/file-name';
export {
  type AsyncArchive,
  type ConversationRow,
  type MessageRow,
  type ContactRow,
  ATTACHMENT_KINDS,
  type AttachmentKind,
  type ArchiveParts,
} from '../archive/types';
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
export { contactFacts, contactInfos } from './contact-info';
export type { ServerContext, LogLevel, CitationFormat } from './context';
export { ToolError, ProtocolError, errorMessage } from './errors';
export { withHitExtras, knownExtras } from './hit-extras';
export { conversationInfo, hitFromMessage, redactsFor, content } from './hits';
export { hybridSearch, type HybridSearchResult } from './hybrid-search';
export {
  isoDay,
  localToday,
  digestOf,
  calendarDateAt,
  onThisDay,
  type CalendarDate,
  type OnThisDayResult,
} from './journal-days';
export { cleanQuery } from './query';
export * from './results';
export { readingNotes, receiptLine, receiptScope, searchReceipt, isWholeArchive } from './search-receipt';
export { runSemantic, type SemanticOutcome } from './semantic-query';
export { resolveSenderFilter } from './sender-resolve';
export { abortError } from './shared-task';
export { inline, linkLabel, quote, cleanBody } from './text';
export { embedConfigFromEnv } from '../embed/config';
export { DEFAULT_EMBED_BASE_URL, DEFAULT_EMBED_MODEL } from '../embed/index';
export type { EmbedConfig } from '../embed/types';
export { clampLimit, parseDay, parseDayRange, type DayRange } from './request';
export { resolveScope, resolveSource, type Chooser, type Scope, type ScopeArgs } from './scope';
export {
  type CallEnv,
  SEARCH_MAX_LIMIT,
  type SearchArgs,
  searchMessages,
  semanticSearch,
} from './message-search';
export { type ContextAnswer, readContext } from './context-read';
export { type ConversationAnswer, readConversation, type TranscriptPosition } from './conversation-read';
export { type DayPosition, type JournalDayAnswer, readJournalDay, readOnThisDay } from './journal-read';
export { findContacts, readContact } from './contact-read';
export { listConversations, listLinks, listMedia, parseDomainFilter } from './list-read';
