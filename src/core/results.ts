/**
 * Zod schemas of the result items every surface shares — MCP tools, the palette, the viewer, hovers: the single
 * source of truth for their shape (the tools' output schemas are built from these).
 */
import { z } from 'zod';

export const MessageHitSchema = z.object({
  message_id: z.number().int().describe('messages.id (not stable across re-imports; hash is)'),
  hash: z.string().describe('stable message hash'),
  conversation: z.string(),
  conversation_id: z.number().int(),
  source: z.string(),
  sender: z.string(),
  timestamp: z.string().describe("the archive's own timestamp string"),
  text: z.string().describe('message body, or a keyword snippet with matches in **…**; secrets in it read [redacted: one-time code], [redacted: card number], [redacted: IBAN] or [redacted: password]'),
  link: z.string().describe('citation link: cite the message as a markdown link to exactly this URI'),
  score: z.number().optional(),
});
export type MessageHit = z.infer<typeof MessageHitSchema>;

export const ConversationInfoSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  source: z.string(),
  message_count: z.number().int(),
  first_timestamp: z.string().optional(),
  last_timestamp: z.string().optional(),
  images: z.number().int(),
  files: z.number().int(),
  videos: z.number().int(),
  links: z.number().int(),
  link: z.string().describe('link to open the conversation'),
});
export type ConversationInfo = z.infer<typeof ConversationInfoSchema>;

export const MediaItemSchema = z.object({
  conversation: z.string(),
  conversation_id: z.number().int(),
  source: z.string(),
  kind: z.string(),
  name: z.string(),
  path: z.string(),
  timestamp: z.string(),
  message_id: z.number().int(),
  link: z.string().describe('citation link of the message carrying the attachment'),
});
export type MediaItem = z.infer<typeof MediaItemSchema>;

export const LinkItemSchema = z.object({
  url: z.string(),
  domain: z.string(),
  count: z.number().int().describe('occurrences of this URL within the filtered scope'),
  conversation: z.string(),
  conversation_id: z.number().int(),
  source: z.string(),
  timestamp: z.string().describe('timestamp of the earliest occurrence'),
  message_id: z.number().int().describe('message of the earliest occurrence'),
  link: z.string().describe('citation link of the earliest occurrence'),
});
export type LinkItem = z.infer<typeof LinkItemSchema>;

export const SemanticStatusSchema = z.object({
  used: z.boolean(),
  model: z.string().optional(),
  reason: z.string().optional().describe('why the semantic half was not used'),
});
export type SemanticStatusItem = z.infer<typeof SemanticStatusSchema>;

export const SearchScopeSchema = z.object({
  conversation_id: z.number().int().optional().describe('the conversation searched (absent: every conversation)'),
  conversation: z.string().optional(),
  source: z.string().optional().describe('the source searched (absent: every source)'),
  sender: z.string().optional().describe('the stored sender name searched (after resolving case, accents and "me")'),
  start: z.string().optional().describe("first day searched, YYYY-MM-DD in the archive's own wall-clock time (absent: no lower bound)"),
  end: z.string().optional().describe("last day searched, inclusive, YYYY-MM-DD wall-clock (absent: no upper bound)"),
});
export type SearchScope = z.infer<typeof SearchScopeSchema>;

export const KeywordReadingSchema = z.object({
  tokens: z.array(z.string()).describe('the words searched; a keyword hit contains every one of them as a word prefix'),
  total_tokens: z.number().int().describe('words in the query as given'),
  duplicates_removed: z.number().int().describe('repeated words searched once (case and accents do not matter)'),
  ignored: z.array(z.string()).describe('distinct words without a letter or digit, which keyword search cannot match and leaves out'),
  dropped_over_cap: z.number().int().describe('distinct words beyond max_tokens that were not searched'),
  max_tokens: z.number().int(),
});
export type KeywordReading = z.infer<typeof KeywordReadingSchema>;

export const VectorCoverageSchema = z.object({
  model: z.string().describe('the configured embedding model'),
  messages_with_vectors: z.number().int().describe('messages in scope that have a vector for the model (only these can be semantic hits)'),
});

/** What a search looked at: enough to tell "nobody said it" from "it was not searched". */
export const SearchReceiptSchema = z.object({
  scope: SearchScopeSchema,
  messages_in_scope: z.number().int().describe('messages the scope holds (before matching the query)'),
  vector_coverage: VectorCoverageSchema.optional().describe('absent when no embedding model is configured'),
  keyword: KeywordReadingSchema.optional().describe('how the query was read for keyword matching (search_messages)'),
  semantic: SemanticStatusSchema,
});
export type SearchReceipt = z.infer<typeof SearchReceiptSchema>;
