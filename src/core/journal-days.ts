/** Journal use cases: a day's digest (structured JSON read leniently) and "on this day" (msgbrowse's Home-card rule). */
import type { AsyncArchive, JournalDay } from '../archive/types';
import type { CitationFormat } from './context';
import { hitFromMessage } from './hits';
import { withHitExtras } from './hit-extras';
import type { JournalDigest, OnThisDayYear } from './results';

/** How far back "on this day" looks, as msgbrowse does. */
const ON_THIS_DAY_YEARS = 20;

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The digest of a day as served (null when it has none); a malformed `structured` column gives empty lists. */
export function digestOf(day: JournalDay): JournalDigest | null {
  const d = day.digest;
  if (!d) return null;
  let s: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(d.structured);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) s = parsed as Record<string, unknown>;
  } catch {
    // A digest written before structured output (or hand-edited): the summary alone.
  }
  const highlights = Array.isArray(s.highlights)
    ? s.highlights.flatMap((h: unknown) => {
        if (!h || typeof h !== 'object') return [];
        const o = h as Record<string, unknown>;
        return typeof o.text === 'string' ? [{ text: o.text, time: typeof o.time === 'string' ? o.time : '' }] : [];
      })
    : [];
  return {
    summary: d.body,
    mood: d.mood || (typeof s.mood === 'string' ? s.mood : ''),
    people: strings(s.people),
    themes: strings(s.themes),
    highlights,
    model: d.model,
    stale: d.messageCount > 0 && d.messageCount !== day.messageCount,
  };
}

export type CalendarDate = { year: number; month: number; day: number };

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
export const isoDay = (y: number, m: number, d: number): string => `${pad(y, 4)}-${pad(m)}-${pad(d)}`;

/** The calendar date of a day's 00:00 UTC in Unix seconds (the archive's wall-clock days). */
export function calendarDateAt(dayStartUnix: number): CalendarDate {
  const d = new Date(dayStartUnix * 1000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** Today on the local calendar (the default date of "on this day", as msgbrowse's Home card). */
export function localToday(now = new Date()): CalendarDate {
  return { year: now.getFullYear(), month: now.getMonth() + 1, day: now.getDate() };
}

type YearDay = { day: string; startUnix: number; year: number };

/** The same month and day in each earlier year from `lowest`, newest first; Feb 29 only in leap years. */
function onThisDayDays(date: CalendarDate, lowest: number): YearDay[] {
  const out: YearDay[] = [];
  for (let y = date.year - 1; y >= lowest; y--) {
    const t = new Date(0);
    t.setUTCFullYear(y, date.month - 1, date.day);
    if (t.getUTCMonth() !== date.month - 1) continue; // Feb 29 rolled over to Mar 1
    out.push({ day: isoDay(y, date.month, date.day), startUnix: Math.floor(t.getTime() / 1000), year: y });
  }
  return out;
}

interface OnThisDayRequest {
  date: CalendarDate;
  perYear: number;
  limit: number;
  redact?: boolean;
  /** Called before each earlier year is read, and once at the end (progress notifications). */
  onProgress?(done: number, total: number, message: string): void;
}

/** `notes` explain an empty or narrowed answer (never a silent empty list). */
export type OnThisDayResult = { years: OnThisDayYear[]; notes: string[] };

export async function onThisDay(
  fmt: CitationFormat,
  archive: AsyncArchive,
  req: OnThisDayRequest,
  signal?: AbortSignal,
): Promise<OnThisDayResult> {
  const notes: string[] = [];
  const { date } = req;
  const first = await archive.firstMessageYear(signal);
  if (first === undefined) return { years: [], notes: ['the archive has no messages'] };
  const lowest = Math.max(first, date.year - ON_THIS_DAY_YEARS);
  const days = onThisDayDays(date, lowest);
  if (date.month === 2 && date.day === 29)
    notes.push('February 29 exists only in leap years: the other years have no such day and were skipped');
  if (lowest > date.year - 1) {
    notes.push(
      `the archive's first message is from ${first}, so there is no earlier year than ${date.year} to look back on`,
    );
    return { years: [], notes };
  }
  // One day per archive call, so a wide look back reports progress (and cancels) between years.
  const years: OnThisDayYear[] = [];
  let left = req.limit;
  for (const [i, d] of days.entries()) {
    if (left <= 0) break;
    req.onProgress?.(i, days.length, `looking at ${d.day}`);
    const [g] = await archive.onThisDay({ days: [d], perDay: req.perYear, limit: left }, signal);
    if (!g) continue;
    const messages = g.messages.map((m) => hitFromMessage(fmt, m, undefined, req.redact));
    years.push({ year: d.year, day: g.day, messages });
    left -= g.messages.length;
  }
  req.onProgress?.(days.length, days.length, 'done');
  const hits = years.flatMap((y) => y.messages);
  await withHitExtras(archive, hits, req.redact === true, signal);
  if (!years.length)
    notes.push(
      `no messages on ${pad(date.month)}-${pad(date.day)} in any earlier year searched (${date.year - 1} back to ${lowest}); only non-system messages with text count`,
    );
  return { years, notes };
}
