/**
 * The answer budget: what a client passes inline to its model. VS Code's agent writes a tool result whose compact
 * `structuredContent` JSON is longer than `github.copilot.chat.agent.largeToolResultsToDisk.thresholdBytes` (8 KiB) to a file and
 * gives the model only its path, so every tool fills its answer with whole items up to the budget and continues by
 * cursor. Long message bodies are shortened in lists so one message cannot eat a page.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type MessageHit, ToolError } from '../core';

/** VS Code's default threshold, and the CLI's default `--max-result-bytes`. */
export const DEFAULT_ANSWER_BUDGET = 8192;
/** Below this a page cannot hold one message with its citation; smaller budgets are raised to it. */
export const MIN_ANSWER_BUDGET = 2048;
/** Above this a stdio line passes the SDK client's 10 MiB read limit; larger budgets are lowered to it. */
export const MAX_ANSWER_BUDGET = 10_000_000;
/** A message body longer than this is shortened in a list answer (get_context's target is the exception). */
export const LIST_TEXT_MAX = 1000;
/** How every shortened text ends (followed by its whole length and where to read it whole). */
export const SHORTENED = ' … [shortened: ';

/** What the model receives of a result: its compact JSON, in UTF-8 bytes. */
export function answerBytes(structured: unknown): number {
  return Buffer.byteLength(JSON.stringify(structured), 'utf8');
}

export function budgetLabel(budget: number): string {
  return budget % 1024 === 0 ? `${budget / 1024} KiB` : `${budget} bytes`;
}

/** A budget a page can be made to: within MIN_ANSWER_BUDGET and MAX_ANSWER_BUDGET. */
export function usableBudget(bytes: number | undefined): number {
  return Math.min(MAX_ANSWER_BUDGET, Math.max(MIN_ANSWER_BUDGET, Math.floor(bytes ?? DEFAULT_ANSWER_BUDGET)));
}

/**
 * How many of `items`, from the first, fit: the largest k whose `build(k)` is within `budget`. `build` must grow
 * with k below `items.length` (the last page may drop a cursor or a note, so it is tried on its own first).
 */
export function fitCount(
  count: number,
  budget: number,
  itemBytes: (i: number) => number,
  build: (k: number) => unknown,
): number {
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

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * `text` cut to at most `max` characters (code points): at a grapheme boundary (an emoji sequence stays whole), at a
 * word when one ends near the cut, never inside a redaction label.
 */
export function cutText(text: string, max: number): string {
  let cut = '';
  let n = 0;
  for (const { segment } of graphemes.segment(text)) {
    const len = [...segment].length;
    if (n + len > max) break;
    cut += segment;
    n += len;
  }
  const space = cut.search(/\s\S*$/);
  if (space > max * 0.8) cut = cut.slice(0, space);
  const label = cut.lastIndexOf('[redacted');
  if (label >= 0 && cut.indexOf(']', label) < 0) cut = cut.slice(0, label);
  return cut.trimEnd();
}

/** Where a list item's message is read whole. */
const readWholeWith = (hit: MessageHit) => `get_context with message_id ${hit.message_id} and window 0 shows it whole`;

/** The text of a message item without the shortening marker. */
const unmarked = (hit: MessageHit) =>
  hit.text_length === undefined ? hit.text : hit.text.slice(0, Math.max(0, hit.text.lastIndexOf(SHORTENED)));

function shortened<H extends MessageHit>(hit: H, keep: number, readWhole: string): H {
  const full = hit.text_length ?? [...hit.text].length;
  return {
    ...hit,
    text: `${cutText(unmarked(hit), keep)}${SHORTENED}${full} characters; ${readWhole}]`,
    text_length: full,
  };
}

/**
 * A message's text as a list shows it: at most `max` characters, cut at a word, then a marker that says how long it
 * is whole and where to read it whole (`readWhole`; default get_context), and `text_length` set.
 */
export function shortenHit<H extends MessageHit>(hit: H, max = LIST_TEXT_MAX, readWhole = readWholeWith(hit)): H {
  if (hit.text_length === undefined && [...hit.text].length <= max) return hit;
  return shortened(hit, max, readWhole);
}

/**
 * A message item in at most `room` bytes (measured): as much of its text as fits, marked; when even none does (a
 * message with dozens of attachments or reactions), its other long parts too (shrinkFields).
 */
export function shrinkMessage<H extends MessageHit>(hit: H, room: number, readWhole = readWholeWith(hit)): H {
  if (answerBytes(hit) <= room) return hit;
  const at = (keep: number) => shortened(hit, keep, readWhole);
  if (answerBytes(at(0)) > room) {
    // Its lists are what is too long: cut those first; its text too only when it is long itself.
    const lists = shrinkFields(hit, room);
    return answerBytes(lists) <= room || [...unmarked(hit)].length <= LIST_TEXT_MAX / 4
      ? lists
      : shrinkFields(at(0), room);
  }
  let lo = 0;
  let hi = [...unmarked(hit)].length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (answerBytes(at(mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  return at(lo);
}

/**
 * What shrinkFields never touches: what a citation and the item's identity need, and a message's text (shortened only
 * with its marker, by shortenHit / shrinkMessage).
 */
const WHOLE_FIELDS = new Set([
  'message_id',
  'hash',
  'conversation_id',
  'link',
  'id',
  'contact_id',
  'conversation',
  'source',
  'sender',
  'timestamp',
  'text',
  'text_length',
  'count',
  'kind',
]);

/**
 * `item` in at most `room` bytes: its longest string or list (never a field of WHOLE_FIELDS) halved until it fits —
 * for an item that alone is larger than a page (a contact with a hundred identifiers, a 3,000-character URL). The
 * page's note says so.
 */
export function shrinkFields<T>(item: T, room: number): T {
  const v = structuredClone(item);
  for (let round = 0; round < 200 && answerBytes(v) > room; round++) {
    let best: { parent: Record<string, unknown> | unknown[]; key: string | number; size: number } | undefined;
    const visit = (parent: Record<string, unknown> | unknown[], key: string | number, x: unknown) => {
      if (typeof key === 'string' && WHOLE_FIELDS.has(key)) return;
      if ((typeof x === 'string' && x.length > 24) || (Array.isArray(x) && x.length > 0)) {
        const size = answerBytes(x);
        if (!best || size > best.size) best = { parent, key, size };
      }
      if (x && typeof x === 'object')
        for (const [k, y] of Object.entries(x))
          visit(x as Record<string, unknown>, Array.isArray(x) ? Number(k) : k, y);
    };
    for (const [k, y] of Object.entries(v as Record<string, unknown>)) visit(v as Record<string, unknown>, k, y);
    if (!best) break;
    const { parent, key } = best as { parent: Record<string | number, unknown>; key: string | number };
    const x = parent[key];
    parent[key] = Array.isArray(x)
      ? x.slice(0, x.length >> 1)
      : `${cutText(x as string, [...(x as string)].length >> 1)} …`;
  }
  return v;
}

/** The note of a page whose one item was larger than the page. */
const oversizeNote = (noun: string) =>
  `the ${noun.replace(/s$/, '')} here is larger than the answer budget: its longest parts are shortened (its citation is whole)`;

// ---------- pages continued by offset (rankings and lists) ----------

const OffsetCursorSchema = z.strictObject({
  v: z.literal(1),
  t: z.string(),
  a: z.string(),
  o: z.number().int().positive(),
  /** The last item shown: its identity (a message's hash), and its content (anything else that changed). */
  k: z.string(),
  c: z.string(),
  /** What the whole answer was made from besides the arguments (PageRequest.basis). */
  b: z.string().optional(),
});

const digest = (v: unknown, chars: number) =>
  createHash('sha256')
    .update(JSON.stringify(v) ?? '')
    .digest('base64url')
    .slice(0, chars);

/** What stays the same of an item when the archive changes under it: a message's hash (ids change on re-import). */
function identity(item: unknown): unknown {
  const o = item as { hash?: unknown; message?: { hash?: unknown } | null } | null;
  return typeof o?.hash === 'string'
    ? o.hash
    : typeof o?.message?.hash === 'string'
      ? `${JSON.stringify({ ...o, message: undefined })}${o.message.hash}`
      : item;
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
  /**
   * What the whole answer was made from besides the arguments, when that can change between pages: whether a
   * search's semantic half ran, the day "today" resolved to. A page whose basis changed says so.
   */
  basis?: { value: unknown; changed: string };
}

export interface Page<T> {
  items: T[];
  /** Set when more items follow: the value to return as `next_cursor`. */
  next_cursor?: string;
  /** What the model should know about this page (where it is in the whole, why it is cut, a changed archive). */
  notes: string[];
}

function decodeOffsetCursor(
  req: PageRequest,
): { offset: number; key: string; content: string; basis?: string } | undefined {
  const cursor = req.args.cursor;
  if (cursor === undefined) return undefined;
  const bad = () =>
    new ToolError(
      `cursor is not valid: pass the next_cursor of a previous ${req.tool} result unchanged, with the same arguments (or omit cursor to start from the first)`,
    );
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw bad();
  let parsed: ReturnType<typeof OffsetCursorSchema.safeParse>;
  try {
    parsed = OffsetCursorSchema.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw bad();
  }
  if (!parsed.success || parsed.data.t !== req.tool) throw bad();
  if (parsed.data.a !== argsDigest(req.args)) {
    throw new ToolError(
      `this cursor belongs to a ${req.tool} call with other arguments: repeat the arguments of the call that returned it, with the cursor (or omit cursor to start over)`,
    );
  }
  return { offset: parsed.data.o, key: parsed.data.k, content: parsed.data.c, basis: parsed.data.b };
}

/**
 * One page of `all` (the whole ordered answer, recomputed on every call): from where the request's cursor left off,
 * as many whole items as `build` can hold within the budget. `build(items, page)` makes the structured result.
 * A cursor names the last item it followed: when the archive changed under it, the page resumes after that item
 * (found by its message hash when it is a message) or, when it is gone, at the same position, and a note says so.
 */
export function pageByOffset<T, R>(
  req: PageRequest,
  all: readonly T[],
  build: (items: T[], page: Page<T>) => R,
  shrink?: (item: T, room: number) => T,
): { result: R; page: Page<T> } {
  const from = decodeOffsetCursor(req);
  const notes: string[] = [];
  let start = 0;
  const basis = req.basis ? digest(req.basis.value, 8) : undefined;
  if (from) {
    start = Math.min(from.offset, all.length);
    const changed =
      basis !== from.basis
        ? req.basis?.changed
        : digest(all[from.offset - 1], 8) !== from.content
          ? 'the archive changed since the previous page'
          : undefined;
    if (changed) {
      const found = all.findIndex((x) => digest(identity(x), 8) === from.key);
      // The last item shown is gone: one step back, so what moved into its place is not skipped.
      start = found >= 0 ? found + 1 : Math.max(0, start - 1);
      notes.push(
        `${changed}; ${found >= 0 ? `continuing after the last ${req.noun.replace(/s$/, '')} shown` : `continuing at position ${start + 1}`}` +
          ` — ${req.noun} may repeat or be missing; omit cursor to start over`,
      );
    }
  }
  const rest = all.slice(start);
  const sizes: number[] = [];
  const itemBytes = (i: number) => (sizes[i] ??= answerBytes(rest[i]));
  let oversize = false;
  const pageOf = (k: number): Page<T> => {
    const items = rest.slice(0, k);
    const end = start + k;
    const own = oversize ? [...notes, oversizeNote(req.noun)] : notes;
    if (end >= all.length) {
      if (start === 0) return { items, notes: own };
      return {
        items,
        notes: [
          ...own,
          k
            ? `${req.noun} ${start + 1}–${end} of ${all.length}: the last page`
            : `no more ${req.noun}: all ${all.length} were on earlier pages`,
        ],
      };
    }
    const lastShown = rest[k - 1];
    const next = Buffer.from(
      JSON.stringify({
        v: 1,
        t: req.tool,
        a: argsDigest(req.args),
        o: end,
        k: digest(identity(lastShown), 8),
        c: digest(all[end - 1], 8),
        ...(basis ? { b: basis } : {}),
      }),
    ).toString('base64url');
    return {
      items,
      next_cursor: next,
      notes: [
        ...own,
        `${req.noun} ${start + 1}–${end} of ${all.length} (the answer budget is ${budgetLabel(req.budget)}): repeat the call with cursor = next_cursor for the next`,
      ],
    };
  };
  let k = fitCount(rest.length, req.budget, itemBytes, (n) => build(rest.slice(0, n), pageOf(n)));
  if (k === 0 && rest.length > 0) {
    // One item larger than a page: shrunk to what the page leaves it.
    oversize = true;
    rest[0] = fitAlone(rest[0], req.budget, shrink, (item) => build([item], pageOf(1)));
    k = 1;
  }
  const page = pageOf(k);
  return { result: build(page.items, page), page };
}

/**
 * `item` alone on a page of `budget` bytes (`page(item)` makes that page): the tool's own shrink first (a message's
 * text), then its longest parts, measured on the page itself until it fits.
 */
function fitAlone<T>(
  item: T,
  budget: number,
  shrink: ((item: T, room: number) => T) | undefined,
  page: (item: T) => unknown,
): T {
  let room = budget - (answerBytes(page(item)) - answerBytes(item));
  let out = item;
  for (let round = 0; round < 8; round++) {
    const own = shrink ? shrink(item, room) : item;
    out = answerBytes(own) <= room ? own : shrinkFields(own, room);
    const over = answerBytes(page(out)) - budget;
    if (over <= 0) break;
    room -= over;
  }
  return out;
}

/** The note of a page the budget cut short of what was asked for, continued by a keyset cursor. */
export function keptNote(kept: number, read: number, noun: string, budget: number): string {
  return `${kept} of the ${read} ${noun} read are shown (the answer budget is ${budgetLabel(budget)}): pass next_cursor as cursor for the following ones`;
}

/**
 * Fits a page whose continuation the tool makes itself (a keyset cursor after the last item kept): as many of `items`
 * as `build(k)` can hold. Returns k (at least 1 when there are items: shrunk to fit, if need be, and then `oversized`
 * is true: the tool adds OVERSIZE_NOTE to its notes, and the room for it was kept).
 */
export function fitPage<T>(
  items: T[],
  budget: number,
  build: (k: number) => unknown,
  shrink?: (item: T, room: number) => T,
): { kept: number; oversized: boolean } {
  const sizes: number[] = [];
  const kept = fitCount(items.length, budget, (i) => (sizes[i] ??= answerBytes(items[i])), build);
  if (kept > 0 || items.length === 0) return { kept, oversized: false };
  // Room is kept for the note the tool then adds.
  const note = answerBytes(OVERSIZE_NOTE) + 1;
  items[0] = fitAlone(items[0], budget - note, shrink, (item) => ((items[0] = item), build(1)));
  return { kept: 1, oversized: true };
}

/** The note a keyset tool adds when fitPage had to shrink its one item. */
export const OVERSIZE_NOTE = oversizeNote('messages');
