/** Reading a request's plain arguments: calendar days and counts, with one actionable line for a bad value. */
import { ToolError } from './errors';

const DAY = 86_400;

/**
 * Parses a `YYYY-MM-DD` calendar date (surrounding spaces ignored, as everywhere) to the Unix second of its 00:00:00
 * UTC (wall-clock-as-UTC).
 */
export function parseDay(raw: string, field: string): number {
  const value = raw.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m)
    throw new ToolError(
      `${field} must be a date in YYYY-MM-DD form (e.g. 2022-03-01), got ${JSON.stringify(clip(value))}`,
    );
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  // Date.UTC maps years 0–99 to 1900+; setUTCFullYear avoids that for the round-trip check.
  back.setUTCFullYear(y, mo - 1, d);
  if (mo < 1 || mo > 12 || back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) {
    throw new ToolError(`${field} ${JSON.stringify(value)} is not a real calendar date`);
  }
  return Math.floor(back.getTime() / 1000);
}

export interface DayRange {
  /** Inclusive lower bound (00:00:00 of start), undefined when no start. */
  startUnix?: number;
  /** Inclusive upper bound (23:59:59 of end), undefined when no end. */
  endUnix?: number;
}

/** Validates `start`/`end` (inclusive calendar days in the archive's wall-clock time) and start ≤ end. */
export function parseDayRange(start: string | undefined, end: string | undefined): DayRange {
  const s = start === undefined || start.trim() === '' ? undefined : parseDay(start, 'start');
  const e = end === undefined || end.trim() === '' ? undefined : parseDay(end, 'end') + DAY - 1;
  if (s !== undefined && e !== undefined && s > e) {
    throw new ToolError(`start ${start?.trim()} is after end ${end?.trim()}; give start on or before end`);
  }
  return { startUnix: s, endUnix: e };
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

/** Clamps a requested count to [min, max] and records a note when it had to (instead of silently resetting). */
export function clampLimit(
  field: string,
  requested: number | undefined,
  def: number,
  max: number,
  notes: string[],
): number {
  if (requested === undefined) return def;
  if (requested > max) {
    notes.push(`${field} ${requested} is above the maximum ${max}; used ${max}`);
    return max;
  }
  return requested;
}
