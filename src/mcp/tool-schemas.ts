/** The tools' shared input fields, with the messages every bad input gets (result items: core/results.ts). */
import { z } from 'zod';

export const MAX_QUERY = 2000;

export function text(field: string, max = 500) {
  return z
    .string({ error: (iss) => (iss.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .max(max, { error: `${field} is too long (at most ${max} characters)` });
}

export function positiveInt(field: string) {
  return (
    z
      .number({ error: (iss) => (iss.input === undefined ? `${field} is required` : `${field} must be an integer`) })
      // Beyond 2^53 a number is no exact integer any more: say "too large", not "not an integer" (2**60 is one).
      .max(Number.MAX_SAFE_INTEGER, {
        error: `${field} is too large: give a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`,
        abort: true,
      })
      .int({ error: `${field} must be an integer` })
      .min(1, { error: `${field} must be at least 1` })
  );
}

export const dateParam = (which: 'start' | 'end') =>
  text(which, 40).describe(
    `${which === 'start' ? 'earliest' : 'latest'} date inclusive, YYYY-MM-DD (a calendar day in the archive's own wall-clock time)`,
  );

export const conversationScopeShape = {
  conversation: text('conversation')
    .optional()
    .describe('conversation name (person or group) as shown by list_conversations'),
  conversation_id: positiveInt('conversation_id')
    .optional()
    .describe('conversation id from list_conversations or a previous result (unambiguous)'),
  source: text('source', 40).optional().describe('message source: signal, imessage or whatsapp'),
};

/** A closed object schema: unknown fields are rejected with a message that lists the allowed ones. */
export function strictInput<S extends z.ZodRawShape>(tool: string, shape: S) {
  const allowed = Object.keys(shape).join(', ') || '(none)';
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `unknown parameter${iss.keys.length > 1 ? 's' : ''} ${iss.keys.map((k) => JSON.stringify(k)).join(', ')} for ${tool}; allowed: ${allowed}`
        : undefined,
  });
}

export const notesField = z
  .array(z.string())
  .optional()
  .describe(
    'what to know about this answer: adjustments made to the request (e.g. clamped limits), which part of the whole a page holds',
  );

/** The `cursor` argument of a tool that pages by offset (answer-budget.ts pageByOffset). */
export const cursorField = (tool: string) =>
  text('cursor', 200)
    .optional()
    .describe(`next_cursor from the previous ${tool} result, with the same other arguments, to read the next page`);

export const nextCursorField = z
  .string()
  .optional()
  .describe('present when more follows: pass it as cursor, with the same other arguments, for the next page');

/** list_links' and list_media's `limit` over every page, and `has_more` for what lies beyond it. */
export const listLimitField = (noun: string) =>
  positiveInt('limit')
    .optional()
    .describe(`max ${noun} in total, over every page (default 200, max 1000; larger values are clamped)`);

export const listHasMoreField = (noun: string) =>
  z
    .boolean()
    .describe(
      `more ${noun} match than this page holds: next_cursor reads on up to limit; beyond it, raise limit or narrow the filters`,
    );

/** The filters both searches take, in their schema order. */
export const searchFiltersShape = {
  ...conversationScopeShape,
  sender: text('sender')
    .optional()
    .describe(
      'only messages from this sender, as shown in results (case and accents ignored; "Me" or "me" is the archive owner); an unknown name is an error listing the closest senders',
    ),
  start: dateParam('start').optional(),
  end: dateParam('end').optional(),
  has_attachment: z
    .boolean()
    .optional()
    .describe('true: only messages with an attachment (image, video, file); false: only messages without one'),
  has_link: z.boolean().optional().describe('true: only messages containing a link; false: only messages without one'),
};
