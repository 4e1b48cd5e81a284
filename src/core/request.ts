/** Reading a request's plain arguments: query, calendar days and counts, with one actionable line for a bad value. */
import { ToolError } from './errors';

const DAY = 86_400;

/** A `YYYY-MM-DD` day (spaces around ignored) as the Unix second of its 00:00:00 wall-clock-as-UTC. */
export function parseDay(raw: string, field: string): number {
  const value = raw.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    throw new ToolError(`${field} must be a date in YYYY-MM-DD form (e.g. 2022-03-01), got ${JSON.stringify(shown)}`);
  }
  const [y, mo, d] = m.slice(1).map(Number);
  // Not Date.UTC, which maps years 0–99 to 1900+. A day or month out of range rolls over, so it no longer round-trips.
  const back = new Date(0);
  back.setUTCFullYear(y, mo - 1, d);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d)
    throw new ToolError(`${field} ${JSON.stringify(value)} is not a real calendar date`);
  return Math.floor(back.getTime() / 1000);
}

/** Inclusive bounds: 00:00:00 of start, 23:59:59 of end; undefined when not given. */
export type DayRange = { startUnix?: number; endUnix?: number };

/** Validates `start`/`end` (inclusive calendar days in the archive's wall-clock time) and start ≤ end. */
export function parseDayRange(start: string | undefined, end: string | undefined): DayRange {
  const s = start === undefined || start.trim() === '' ? undefined : parseDay(start, 'start');
  const e = end === undefined || end.trim() === '' ? undefined : parseDay(end, 'end') + DAY - 1;
  if (s !== undefined && e !== undefined && s > e)
    throw new ToolError(`start ${start?.trim()} is after end ${end?.trim()}; give start on or before end`);
  return { startUnix: s, endUnix: e };
}

/** A requested count, capped at `max` with a note saying so (never silently). */
export function clampLimit(field: string, requested: number | undefined, def: number, max: number, notes: string[]) {
  if (requested === undefined) return def;
  if (requested > max) {
    notes.push(`${field} ${requested} is above the maximum ${max}; used ${max}`);
    return max;
  }
  return requested;
}

/** Control characters become spaces; invisible ones (\p{Cf}) are dropped, as msgbrowse's previews drop them. */
export function cleanQuery(q: string): string {
  const c = q
    .replace(/\p{Cf}/gu, '')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .trim();
  if (c === '')
    throw new ToolError('query is required: give the words (or, for semantic_search, a description) to search for');
  return c;
}
