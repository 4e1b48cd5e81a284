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
  text: z.string().describe('message body, or a keyword snippet with matches in **…**'),
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
