import { ToolError } from './errors';
import { messageHits } from './hit-extras';
import { content, redactsFor } from './hits';
import { calendarDateAt, digestOf, isoDay, localToday, onThisDay } from './journal-days';
import { clampLimit, parseDay } from './request';
import type { OnThisDayYear } from './results';
import type { CallEnv } from './message-search';

const JOURNAL_DAY_DEFAULT_LIMIT = 50;
const JOURNAL_DAY_MAX_LIMIT = 500;
const ON_THIS_DAY_DEFAULT_PER_YEAR = 3;
const ON_THIS_DAY_MAX_PER_YEAR = 10;
const ON_THIS_DAY_DEFAULT_LIMIT = 12;
const ON_THIS_DAY_MAX_LIMIT = 50;

/** Where a day's page continues (what get_journal_day's cursor carries), in the day's transcript order. */
export type DayPosition = { day: string; conversationId: number; tsUnix: number; id: number };

const NO_DIGEST = 'no journal digest for this day: `msgbrowse journal` writes digests';
const STALE_DIGEST_NOTE =
  'the digest is stale: it was written when the day had a different number of messages; `msgbrowse journal` rewrites it';

export async function readJournalDay(
  args: { day: string; limit?: number },
  from: DayPosition | undefined,
  env: CallEnv,
) {
  const notes: string[] = [];
  const limit = clampLimit('limit', args.limit, JOURNAL_DAY_DEFAULT_LIMIT, JOURNAL_DAY_MAX_LIMIT, notes);
  const day = args.day.trim();
  const dayStartUnix = parseDay(day, 'day');
  if (from && from.day !== day)
    throw new ToolError(
      `this cursor belongs to day ${from.day}, not ${day}; pass the same day with its cursor, or omit cursor`,
    );
  const archive = await env.archive();
  const info = await archive.journalDay(day, dayStartUnix, env.signal);
  if (info.messageCount === 0) {
    const near = [info.earlier && `${info.earlier} (earlier)`, info.later && `${info.later} (later)`].filter(Boolean);
    const hint = near.length
      ? `the nearest days with messages are ${near.join(' and ')}`
      : 'the archive has no messages on any day';
    throw new ToolError(`no messages on ${day} (only non-system messages with text count); ${hint}`);
  }
  const redact = redactsFor(env.ctx);
  let digest = digestOf(info);
  if (digest && info.touchesHidden) {
    // The digest also summarises a conversation kept from models: answer exactly as for a day without one (a
    // different note would tell the model that hidden conversations were active that day).
    digest = null;
    notes.push(NO_DIGEST);
  } else if (digest) {
    digest = {
      ...digest,
      summary: content(digest.summary, redact),
      people: digest.people.map((p) => content(p, redact)),
      themes: digest.themes.map((t) => content(t, redact)),
      mood: content(digest.mood, redact),
      highlights: digest.highlights.map((h) => ({ ...h, text: content(h.text, redact) })),
    };
    if (digest.stale) notes.push(STALE_DIGEST_NOTE);
  } else if (!info.digestsSupported) {
    notes.push(
      'this archive has no journal digests: it has no journal_digests table (msgbrowse writes it since schema v11; `msgbrowse journal` fills it)',
    );
  } else notes.push(NO_DIGEST);
  const after = from && { conversationId: from.conversationId, tsUnix: from.tsUnix, id: from.id };
  const page = await archive.dayMessages({ dayStartUnix, limit, ...(after ? { after } : {}) }, env.signal);
  const hits = await messageHits(env.ctx, archive, page.messages, env.signal);
  const { messageCount, conversationCount, sourceCounts, topSenders } = info;
  const stats = { messageCount, conversationCount, sourceCounts, topSenders };
  return { day, stats, digest, rows: page.messages, hits, more: page.hasMore, notes };
}

/** on_this_day: the same month and day in earlier years, looking back from `date` (default: today, local). */
export async function readOnThisDay(
  args: { date?: string; per_year?: number; limit?: number },
  env: CallEnv,
): Promise<{ day: string; years: OnThisDayYear[]; notes: string[] }> {
  const notes: string[] = [];
  const perYear = clampLimit('per_year', args.per_year, ON_THIS_DAY_DEFAULT_PER_YEAR, ON_THIS_DAY_MAX_PER_YEAR, notes);
  const limit = clampLimit('limit', args.limit, ON_THIS_DAY_DEFAULT_LIMIT, ON_THIS_DAY_MAX_LIMIT, notes);
  const date =
    args.date !== undefined && args.date.trim() !== '' ? calendarDateAt(parseDay(args.date, 'date')) : localToday();
  const archive = await env.archive();
  const onProgress = (done: number, total: number, message: string) => env.progress?.(done, total, message);
  const req = { date, perYear, limit, redact: redactsFor(env.ctx), onProgress };
  const r = await onThisDay(env.ctx.citation, archive, req, env.signal);
  return { day: isoDay(date.year, date.month, date.day), years: r.years, notes: [...notes, ...r.notes] };
}
