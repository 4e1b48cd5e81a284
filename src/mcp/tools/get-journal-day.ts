import { z } from 'zod';
import {
  content,
  digestOf,
  hitFromMessage,
  inline,
  JournalDigestSchema,
  quote,
  redactsFor,
  ToolError,
  withHitExtras,
  parseDay,
  clampLimit,
} from '../../core';
import { decodeDayCursor, encodeDayCursor } from '../cursor';
import { renderHits, renderNotes, UNTRUSTED_NOTE } from '../render';
import { MessageHitSchema, notesField, positiveInt, strictInput, text } from '../tool-schemas';
import {
  answerBytes,
  fitPage,
  keptNote,
  OVERSIZE_NOTE,
  shortenHit,
  shrinkFields,
  shrinkMessage,
} from '../answer-budget';
import { defineTool, RESULT_GUIDANCE } from '../tool';

export const JOURNAL_DAY_DEFAULT_LIMIT = 50;
export const JOURNAL_DAY_MAX_LIMIT = 500;

export const getJournalDayInput = strictInput('get_journal_day', {
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

export const getJournalDayOutput = z.object({
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
    const notes: string[] = [];
    const limit = clampLimit('limit', args.limit, JOURNAL_DAY_DEFAULT_LIMIT, JOURNAL_DAY_MAX_LIMIT, notes);
    const dayStartUnix = parseDay(args.day.trim(), 'day');
    const day = args.day.trim();
    const cursor = args.cursor !== undefined ? decodeDayCursor(args.cursor) : undefined;
    if (cursor && cursor.day !== day)
      throw new ToolError(
        `this cursor belongs to day ${cursor.day}, not ${day}; pass the same day with its cursor, or omit cursor`,
      );
    const archive = await env.archive();
    const info = await archive.journalDay(day, dayStartUnix, env.signal);
    if (info.messageCount === 0) {
      const near = [
        info.earlier ? `${info.earlier} (earlier)` : undefined,
        info.later ? `${info.later} (later)` : undefined,
      ].filter(Boolean);
      throw new ToolError(
        `no messages on ${day} (only non-system messages with text count)` +
          (near.length
            ? `; the nearest days with messages are ${near.join(' and ')}`
            : '; the archive has no messages on any day'),
      );
    }
    const redact = redactsFor(env.ctx);
    let digest = digestOf(info);
    if (digest && info.touchesHidden) {
      // The digest also summarises a conversation kept from models: answer exactly as for a day without one (a
      // different note would tell the model that hidden conversations were active that day).
      digest = null;
      notes.push('no journal digest for this day: `msgbrowse journal` writes digests');
    } else if (digest) {
      digest = {
        ...digest,
        summary: content(digest.summary, redact),
        highlights: digest.highlights.map((h) => ({ ...h, text: content(h.text, redact) })),
      };
      if (answerBytes(digest) > env.budget / 2) {
        // It comes on every page of the day: at most half of one, its longest parts cut (after redaction).
        digest = shrinkFields(digest, env.budget / 2);
        notes.push('the digest is longer than half an answer: its longest parts are cut');
      }
      if (digest.stale)
        notes.push(
          'the digest is stale: it was written when the day had a different number of messages; `msgbrowse journal` rewrites it',
        );
    } else if (!info.digestsSupported) {
      notes.push(
        'this archive has no journal digests: it has no journal_digests table (msgbrowse writes it since schema v11; `msgbrowse journal` fills it)',
      );
    } else {
      notes.push('no journal digest for this day: `msgbrowse journal` writes digests');
    }
    const page = await archive.dayMessages(
      {
        dayStartUnix,
        limit,
        ...(cursor ? { after: { conversationId: cursor.conversationId, tsUnix: cursor.tsUnix, id: cursor.id } } : {}),
      },
      env.signal,
    );
    const fmt = env.ctx.citation;
    const read = await withHitExtras(
      archive,
      page.messages.map((m) => shortenHit(hitFromMessage(fmt, m, undefined, redact))),
      redact,
      env.signal,
    );
    let oversized = false;
    const build = (k: number) => {
      const last = page.messages[k - 1];
      const more = k < read.length || page.hasMore;
      const nextCursor =
        more && last
          ? encodeDayCursor({ day, conversationId: last.conversationId, tsUnix: last.tsUnix, id: last.id })
          : undefined;
      const cut = [
        ...(k < read.length ? [keptNote(k, read.length, 'messages', env.budget)] : []),
        ...(oversized ? [OVERSIZE_NOTE] : []),
      ];
      return {
        day,
        message_count: info.messageCount,
        conversation_count: info.conversationCount,
        source_counts: info.sourceCounts,
        top_senders: info.topSenders,
        digest,
        messages: read.slice(0, k),
        ...(nextCursor !== undefined ? { next_cursor: nextCursor } : {}),
        ...(notes.length || cut.length ? { notes: [...notes, ...cut] } : {}),
      };
    };
    const fit = fitPage(read, env.budget, build, shrinkMessage);
    oversized = fit.oversized;
    const structured = build(fit.kept);
    const messages = structured.messages;
    const nextCursor = structured.next_cursor;
    const sources = Object.entries(info.sourceCounts)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ');
    const senders = info.topSenders.map((s) => `${inline(s.name, 60)} (${s.count})`).join(', ');
    const digestText = digest
      ? `\n\nDigest${digest.stale ? ' (stale)' : ''}, mood ${digest.mood || 'not recorded'}, by ${inline(digest.model, 60)}:\n${quote(digest.summary, '')}`
      : '';
    const text =
      `${day}: ${info.messageCount} message${info.messageCount === 1 ? '' : 's'} in ${info.conversationCount} conversation${info.conversationCount === 1 ? '' : 's'} (${sources})` +
      (senders ? `; most from ${senders}` : '') +
      `.${digestText}\n${UNTRUSTED_NOTE}\n\n${renderHits(messages, { numbered: false })}` +
      (nextCursor
        ? `\n\nMore messages follow: call get_journal_day with day "${day}" and cursor "${nextCursor}".`
        : '') +
      renderNotes(structured.notes);
    return { structured, text };
  },
});
