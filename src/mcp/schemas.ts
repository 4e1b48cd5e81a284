/** Zod schemas shared by the tools: the single source of truth for inputs and outputs. */
import { z } from 'zod';

// ---------- inputs ----------

export const MAX_TEXT = 500;
export const MAX_QUERY = 2000;

export function text(field: string, max = MAX_TEXT) {
  return z.string({ error: (iss) => (iss.input === undefined ? `${field} is required` : `${field} must be a string`) }).max(max, { error: `${field} is too long (at most ${max} characters)` });
}

export function positiveInt(field: string) {
  return z
    .number({ error: (iss) => (iss.input === undefined ? `${field} is required` : `${field} must be an integer`) })
    .int({ error: `${field} must be an integer` })
    .min(1, { error: `${field} must be at least 1` });
}

export const dateParam = (which: 'start' | 'end') =>
  text(which, 40).describe(`${which === 'start' ? 'earliest' : 'latest'} date inclusive, YYYY-MM-DD (a calendar day in the archive's own wall-clock time)`);

/** Conversation scope used by most tools: a name (exact, as listed by list_conversations) or an id, plus a source. */
export const conversationScopeShape = {
  conversation: text('conversation').optional().describe('conversation name (person or group) as shown by list_conversations'),
  conversation_id: positiveInt('conversation_id').optional().describe('conversation id from list_conversations or a previous result (unambiguous)'),
  source: text('source', 40).optional().describe('message source: signal, imessage or whatsapp'),
};

/**
 * A closed object schema: unknown fields are rejected with a message that lists the allowed ones.
 */
export function strictInput<S extends z.ZodRawShape>(tool: string, shape: S) {
  const allowed = Object.keys(shape).join(', ') || '(none)';
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `unknown parameter${iss.keys.length > 1 ? 's' : ''} ${iss.keys.map((k) => JSON.stringify(k)).join(', ')} for ${tool}; allowed: ${allowed}`
        : undefined,
  });
}

// ---------- outputs ----------

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

export const notesField = z.array(z.string()).optional().describe('adjustments made to the request (e.g. clamped limits)');
