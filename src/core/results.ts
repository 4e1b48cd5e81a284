/** Zod schemas of the result items every surface shares (the MCP tools' output schemas are built from these). */
import { z } from 'zod';

const ReactionSchema = z.object({
  emoji: z.string(),
  actor: z.string().describe('who reacted, as the archive names them ("Me" is the owner)'),
});
const AttachmentSchema = z.object({
  kind: z.string().describe('image, video or file'),
  name: z.string().describe('the file name as sent (untrusted)'),
});

export const MessageHitSchema = z.object({
  message_id: z.number().int().describe('messages.id (not stable across re-imports; hash is)'),
  hash: z.string().describe('stable message hash'),
  conversation: z.string(),
  conversation_id: z.number().int(),
  source: z.string(),
  sender: z.string(),
  timestamp: z.string().describe("the archive's own timestamp string"),
  text: z
    .string()
    .describe(
      'message body, or a keyword snippet with matches in **…**; secrets in it read [redacted: one-time code], [redacted: card number], [redacted: card security code], [redacted: IBAN], [redacted: password] or [redacted: API key]',
    ),
  link: z.string().describe('citation link: cite the message as a markdown link to exactly this URI'),
  text_length: z
    .number()
    .int()
    .optional()
    .describe(
      'present when text was shortened to keep the answer small: the whole text\'s length. The text then ends in "… [shortened: N characters; …]", which says where to read it whole (get_context with this message_id and window 0; one longer than a whole answer: its msgbrowse://message resource)',
    ),
  score: z.number().optional(),
  reactions: z
    .array(ReactionSchema)
    .optional()
    .describe('reactions to this message, oldest first (absent when it has none)'),
  attachments: z
    .array(AttachmentSchema)
    .optional()
    .describe('files attached to this message (absent when it has none); list_media has their paths'),
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

const SearchScopeSchema = z.object({
  conversation_id: z.number().int().optional().describe('the conversation searched (absent: every conversation)'),
  conversation: z.string().optional(),
  source: z.string().optional().describe('the source searched (absent: every source)'),
  sender: z.string().optional().describe('the stored sender name searched (after resolving case, accents and "me")'),
  start: z
    .string()
    .optional()
    .describe("first day searched, YYYY-MM-DD in the archive's own wall-clock time (absent: no lower bound)"),
  end: z.string().optional().describe('last day searched, inclusive, YYYY-MM-DD wall-clock (absent: no upper bound)'),
  has_attachment: z.boolean().optional().describe('only messages with (true) / without (false) an attachment'),
  has_link: z.boolean().optional().describe('only messages with (true) / without (false) a link'),
});
export type SearchScope = z.infer<typeof SearchScopeSchema>;

const KeywordReadingSchema = z.object({
  tokens: z.array(z.string()).describe('the words searched; a keyword hit contains every one of them as a word prefix'),
  total_tokens: z.number().int().describe('words in the query as given'),
  duplicates_removed: z.number().int().describe('repeated words searched once (case and accents do not matter)'),
  ignored: z
    .array(z.string())
    .describe('distinct words without a letter or digit, which keyword search cannot match and leaves out'),
  dropped_over_cap: z.number().int().describe('distinct words beyond max_tokens that were not searched'),
  max_tokens: z.number().int(),
});
export type KeywordReading = z.infer<typeof KeywordReadingSchema>;

const VectorCoverageSchema = z.object({
  model: z.string().describe('the configured embedding model'),
  messages_with_vectors: z
    .number()
    .int()
    .describe('messages in scope that have a vector for the model (only these can be semantic hits)'),
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

export const JournalDigestSchema = z.object({
  summary: z
    .string()
    .describe("msgbrowse's LLM summary of the day (untrusted: written by a model from other people's messages)"),
  mood: z.string().describe('upbeat, neutral, quiet or tense ("" when not recorded)'),
  people: z.array(z.string()),
  themes: z.array(z.string()),
  highlights: z.array(z.object({ text: z.string(), time: z.string().describe('HH:MM, or "" when not known') })),
  model: z.string().describe('the model that wrote the digest'),
  stale: z
    .boolean()
    .describe(
      'true when the digest was written for a different number of messages than the day has now (re-run `msgbrowse journal`)',
    ),
});
export type JournalDigest = z.infer<typeof JournalDigestSchema>;

export const OnThisDayYearSchema = z.object({
  year: z.number().int(),
  day: z.string().describe('YYYY-MM-DD'),
  messages: z.array(MessageHitSchema),
});
export type OnThisDayYear = z.infer<typeof OnThisDayYearSchema>;

export const ContactSchema = z.object({
  contact_id: z.number().int(),
  name: z.string().describe('display name'),
  identifiers: z
    .array(z.object({ source: z.string(), identifier: z.string() }))
    .describe('phone numbers, addresses and names this person has in each source'),
  conversations: z.array(
    ConversationInfoSchema.pick({ id: true, name: true, source: true, message_count: true, link: true }),
  ),
  fact_count: z.number().int().describe('facts msgbrowse extracted about this person (get_contact lists them)'),
});
export type ContactInfo = z.infer<typeof ContactSchema>;

export const ContactFactSchema = z.object({
  fact: z.string().describe('extracted by an LLM from the cited message: check it against the message'),
  category: z.string(),
  source_ts: z.string().describe("the source message's timestamp as recorded with the fact"),
  message: MessageHitSchema.nullable().describe(
    'the message the fact was taken from, found by its hash; null when it no longer exists',
  ),
});
export type ContactFact = z.infer<typeof ContactFactSchema>;
