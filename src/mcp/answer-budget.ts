/**
 * The answer budget: what a client passes inline to its model. VS Code's agent writes a tool result whose compact
 * `structuredContent` JSON is longer than `github.copilot.chat.agent.largeToolResultsToDisk.thresholdBytes` (8 KiB) to a file and
 * gives the model only its path, so every tool fills its answer with whole items up to the budget and continues by
 * cursor. Long message bodies are shortened in lists so one message cannot eat a page.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ToolError } from '../core/errors';
import type { MessageHit } from '../core/results';

/** VS Code's default threshold, and the CLI's default `--max-result-bytes`. */
export const DEFAULT_ANSWER_BUDGET = 8192;
/** Below this a page cannot hold one message with its citation; smaller budgets are raised to it. */
export const MIN_ANSWER_BUDGET = 2048;
/** A message body longer than this is shortened in a list answer (get_context's target is the exception). */
export const LIST_TEXT_MAX = 1000;
export const SHORTENED = ' … [shortened]';

/** What the model receives of a result: its compact JSON, in UTF-8 bytes. */
export function answerBytes(structured: unknown): number {
  return Buffer.byteLength(JSON.stringify(structured), 'utf8');
}

export function budgetLabel(budget: number): string {
  return budget % 1024 === 0 ? `${budget / 1024} KiB` : `${budget} bytes`;
}

/**
 * How many of `items`, from the first, fit: the largest k whose `build(k)` is within `budget`. `build` must grow
 * with k below `items.length` (the last page may drop a cursor or a note, so it is tried on its own first).
 */
export function fitCount(count: number, budget: number, itemBytes: (i: number) => number, build: (k: number) => unknown): number {
  if (count === 0) return 0;
  // Items add at least their own bytes: the first k whose own bytes pass the budget bounds the search.
  let upper = 0;
  for (let sum = 0; upper < count && sum <= budget; upper++) sum += itemBytes(upper) + 1;
  if (upper === count && answerBytes(build(count)) <= budget) return count;
  let lo = 0;
  let hi = Math.min(upper, count - 1);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (answerBytes(build(mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A message's text as a list shows it: at most `max` characters, cut at a word, marked, with `text_length` set. */
export function shortenHit<H extends MessageHit>(hit: H, max = LIST_TEXT_MAX): H {
  const chars = [...hit.text];
  if (chars.length <= max) return hit;
  let cut = chars.slice(0, max).join('');
  const space = cut.search(/\s\S*$/);
  if (space > max * 0.8) cut = cut.slice(0, space);
  return { ...hit, text: cut + SHORTENED, text_length: chars.length };
}

/** Fewer characters of an already shortened (or long) message, for a page that cannot hold it otherwise. */
function shrinkHit<H extends MessageHit>(hit: H, room: number): H {
  const full = hit.text_length ?? [...hit.text].length;
  const base = answerBytes({ ...hit, text: SHORTENED, text_length: full });
  const keep = Math.max(0, Math.floor((room - base) / 4)); // four bytes per character at most in UTF-8
  return shortenHit({ ...hit, text: hit.text.endsWith(SHORTENED) ? hit.text.slice(0, -SHORTENED.length) : hit.text, text_length: undefined }, keep);
}

// ---------- pages continued by offset (rankings and lists) ----------

const OffsetCursorSchema = z.strictObject({
  v: z.literal(1),
  t: z.string(),
  a: z.string(),
  o: z.number().int().positive(),
  /** The last item shown: its identity (a message's hash), and its content (anything else that changed). */
  k: z.string(),
  c: z.string(),
});

const digest = (v: unknown, chars: number) => createHash('sha256').update(JSON.stringify(v) ?? '').digest('base64url').slice(0, chars);

/** What stays the same of an item when the archive changes under it: a message's hash (ids change on re-import). */
function identity(item: unknown): unknown {
  const o = item as { hash?: unknown; message?: { hash?: unknown } | null } | null;
  return typeof o?.hash === 'string' ? o.hash : typeof o?.message?.hash === 'string' ? `${JSON.stringify({ ...o, message: undefined })}${o.message.hash}` : item;
}

/** The arguments a cursor belongs to: everything but the cursor, keys sorted, strings trimmed. */
function argsDigest(args: Record<string, unknown>): string {
  const canonical = Object.keys(args)
    .filter((k) => k !== 'cursor' && args[k] !== undefined)
    .sort()
    .map((k) => [k, typeof args[k] === 'string' ? (args[k] as string).trim() : args[k]]);
  return digest(canonical, 10);
}

export interface PageRequest {
  /** The tool, named in the cursor and in the notes. */
  tool: string;
  /** The call's arguments (with `cursor` when continuing). */
  args: Record<string, unknown> & { cursor?: string };
  budget: number;
  /** What the items are called in the note ("hits", "conversations"). */
  noun: string;
}

export interface Page<T> {
  items: T[];
  /** Set when more items follow: the value to return as `next_cursor`. */
  next_cursor?: string;
  /** What the model should know about this page (where it is in the whole, why it is cut, a changed archive). */
  notes: string[];
}

function decodeOffsetCursor(req: PageRequest): { offset: number; key: string; content: string } | undefined {
  const cursor = req.args.cursor;
  if (cursor === undefined) return undefined;
  const bad = () =>
    new ToolError(`cursor is not valid: pass the next_cursor of a previous ${req.tool} result unchanged, with the same arguments (or omit cursor to start from the first)`);
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw bad();
  let parsed;
  try {
    parsed = OffsetCursorSchema.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw bad();
  }
  if (!parsed.success || parsed.data.t !== req.tool) throw bad();
  if (parsed.data.a !== argsDigest(req.args)) {
    throw new ToolError(`this cursor belongs to a ${req.tool} call with other arguments: repeat the arguments of the call that returned it, with the cursor (or omit cursor to start over)`);
  }
  return { offset: parsed.data.o, key: parsed.data.k, content: parsed.data.c };
}

/**
 * One page of `all` (the whole ordered answer, recomputed on every call): from where the request's cursor left off,
 * as many whole items as `build` can hold within the budget. `build(items, page)` makes the structured result.
 * A cursor names the last item it followed: when the archive changed under it, the page resumes after that item
 * (found by its message hash when it is a message) or, when it is gone, at the same position, and a note says so.
 */
export function pageByOffset<T, R>(req: PageRequest, all: readonly T[], build: (items: T[], page: Page<T>) => R, shrink?: (item: T, room: number) => T): { result: R; page: Page<T> } {
  const from = decodeOffsetCursor(req);
  const notes: string[] = [];
  let start = 0;
  if (from) {
    start = Math.min(from.offset, all.length);
    if (digest(all[from.offset - 1], 8) !== from.content) {
      const found = all.findIndex((x) => digest(identity(x), 8) === from.key);
      if (found >= 0) start = found + 1;
      notes.push(
        `the archive changed since the previous page; ${found >= 0 ? `continuing after the last ${req.noun.replace(/s$/, '')} shown` : `continuing at position ${start + 1}`}` +
          ` — ${req.noun} may repeat or be missing; omit cursor to start over`,
      );
    }
  }
  const rest = all.slice(start);
  const sizes: number[] = [];
  const itemBytes = (i: number) => (sizes[i] ??= answerBytes(rest[i]));
  const pageOf = (k: number): Page<T> => {
    const items = rest.slice(0, k);
    const end = start + k;
    if (end >= all.length) {
      if (start === 0) return { items, notes };
      return { items, notes: [...notes, k ? `${req.noun} ${start + 1}–${end} of ${all.length}: the last page` : `no more ${req.noun}: all ${all.length} were on earlier pages`] };
    }
    const lastShown = all[end - 1];
    const next = Buffer.from(JSON.stringify({ v: 1, t: req.tool, a: argsDigest(req.args), o: end, k: digest(identity(lastShown), 8), c: digest(lastShown, 8) })).toString('base64url');
    return {
      items,
      next_cursor: next,
      notes: [...notes, `${req.noun} ${start + 1}–${end} of ${all.length} (the answer budget is ${budgetLabel(req.budget)}): repeat the call with cursor = next_cursor for the next`],
    };
  };
  let k = fitCount(rest.length, req.budget, itemBytes, (n) => build(rest.slice(0, n), pageOf(n)));
  if (k === 0 && rest.length > 0) {
    // One item larger than a page: fewer characters of its text, or (nothing to shorten) the item as it is.
    const alone = build([], pageOf(1));
    if (shrink) rest[0] = shrink(rest[0], req.budget - answerBytes(alone));
    k = 1;
  }
  const page = pageOf(k);
  return { result: build(page.items, page), page };
}

/** `shrink` for message items: fewer characters of the text. */
export function shrinkMessage<H extends MessageHit>(hit: H, room: number): H {
  return shrinkHit(hit, room);
}

/** The note of a page the budget cut short of what was asked for, continued by a keyset cursor. */
export function keptNote(kept: number, read: number, noun: string, budget: number): string {
  return `${kept} of the ${read} ${noun} read are shown (the answer budget is ${budgetLabel(budget)}): pass next_cursor as cursor for the following ones`;
}

/**
 * Fits a page whose continuation the tool makes itself (a keyset cursor after the last item kept): as many of `items`
 * as `build(k)` can hold. Returns k (at least 1 when there are items: its text shortened to fit, if need be).
 */
export function fitPage<T>(items: T[], budget: number, build: (k: number) => unknown, shrink?: (item: T, room: number) => T): number {
  const sizes: number[] = [];
  const k = fitCount(items.length, budget, (i) => (sizes[i] ??= answerBytes(items[i])), build);
  if (k > 0 || items.length === 0) return k;
  if (shrink) items[0] = shrink(items[0], budget - answerBytes(build(0)));
  return 1;
}
