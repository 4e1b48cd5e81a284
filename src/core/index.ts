export { createRuntime, inThreadOpener, workerOpener } from './runtime';
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
export { missingParts, schemaNotice, TESTED_SCHEMA_VERSION } from './compatibility';
