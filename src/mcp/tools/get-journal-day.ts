import { z } from 'zod';
import { inline, JournalDigestSchema, MessageHitSchema, quote, readJournalDay } from '../../core';
import { decodeDayCursor, encodeDayCursor } from '../cursor';
import { renderHits, renderNotes, UNTRUSTED_NOTE } from '../render';
import { notesField, positiveInt, strictInput, text } from '../tool-schemas';
import { answerBytes, keysetPage, shrinkFields } from '../answer-budget';
import { defineTool, RESULT_GUIDANCE } from '../tool';

const getJournalDayInput = strictInput('get_journal_day', {
  day: text('day', 40).describe("the calendar day, YYYY-MM-DD, in the archive's own wall-clock time"),
  limit: positiveInt('limit')
    .optional()
    .describe(
      'max messages per page (default 50, max 500; larger values are clamped); a page also ends where the answer budget does',
    ),
  cursor: text('cursor')
    .optional()
    .describe("next_cursor from a previous get_journal_day result, to read the day's following messages"),
});

const getJournalDayOutput = z.object({
  day: z.string(),
  message_count: z
    .number()
    .int()
    .describe('messages that day (non-system, with text), counted from the messages themselves'),
  conversation_count: z.number().int().describe('distinct conversations with messages that day'),
  source_counts: z.record(z.string(), z.number().int()).describe('messages per source'),
  top_senders: z
    .array(z.object({ name: z.string(), count: z.number().int() }))
    .describe('up to 5 senders by messages, the owner ("Me") excluded'),
  digest: JournalDigestSchema.nullable().describe(
    "msgbrowse's journal digest of the day; null when there is none (see notes)",
  ),
  messages: z.array(MessageHitSchema).describe("the day's messages by conversation, then time"),
  next_cursor: z.string().optional().describe("pass as cursor to get the day's next messages; absent on the last page"),
  notes: notesField,
});

export const getJournalDay = defineTool({
  name: 'get_journal_day',
  title: 'Read a journal day',
  description:
    "One calendar day of the archive: how many messages, in how many conversations and sources, who wrote most, msgbrowse's journal digest of the day (summary, mood, people, themes, highlights; flagged stale when messages changed since it was written), and the day's messages by conversation then time, each cited. " +
    'A day without messages is an error that names the nearest days that have some. Long days are paged: pass next_cursor back as cursor.' +
    RESULT_GUIDANCE,
  inputSchema: getJournalDayInput,
  outputSchema: getJournalDayOutput,
  async handler(args, env) {
    const from = args.cursor === undefined ? undefined : decodeDayCursor(args.cursor);
    const answer = await readJournalDay(args, from, env);
    const { day, stats, rows, notes } = answer;
    let { digest } = answer;
    // The digest comes on every page: at most half of one, its longest parts cut (the note goes before the stale one).
    if (digest && answerBytes(digest) > env.budget / 2) {
      digest = shrinkFields(digest, env.budget / 2);
      notes.splice(
        notes.length - (digest.stale ? 1 : 0),
        0,
        'the digest is longer than half an answer: its longest parts are cut',
      );
    }
    const structured = keysetPage(
      answer,
      env.budget,
      (i) => encodeDayCursor({ day, conversationId: rows[i].conversationId, tsUnix: rows[i].tsUnix, id: rows[i].id }),
      (messages, p) => ({
        day,
        message_count: stats.messageCount,
        conversation_count: stats.conversationCount,
        source_counts: stats.sourceCounts,
        top_senders: stats.topSenders,
        digest,
        messages,
        ...p,
      }),
    );
    const { messages, next_cursor: nextCursor } = structured;
    const sources = Object.entries(stats.sourceCounts)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ');
    const senders = stats.topSenders.map((s) => `${inline(s.name, 60)} (${s.count})`).join(', ');
    const digestText = digest
      ? `\n\nDigest${digest.stale ? ' (stale)' : ''}, mood ${digest.mood || 'not recorded'}, by ${inline(digest.model, 60)}:\n${quote(digest.summary, '')}`
      : '';
    const text =
      `${day}: ${stats.messageCount} message${stats.messageCount === 1 ? '' : 's'} in ${stats.conversationCount} conversation${stats.conversationCount === 1 ? '' : 's'} (${sources})` +
      (senders ? `; most from ${senders}` : '') +
      `.${digestText}\n${UNTRUSTED_NOTE}\n\n${renderHits(messages, { numbered: false })}` +
      (nextCursor
        ? `\n\nMore messages follow: call get_journal_day with day "${day}" and cursor "${nextCursor}".`
        : '') +
      renderNotes(structured.notes);
    return { structured, text };
  },
});
