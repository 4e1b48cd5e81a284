// What a client passes inline to its model: VS Code writes a result whose compact structuredContent JSON passes its
// threshold to a file, so every answer fills with whole items up to the budget and continues by cursor.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DEFAULT_ANSWER_BUDGET, MAX_ANSWER_BUDGET, MIN_ANSWER_BUDGET, type MessageHit, ToolError } from '../core';
import { decodeOpaque, encodeOpaque } from './cursor';

/** A message body longer than this is shortened in a list answer (get_context's target is the exception). */
const LIST_TEXT_MAX = 1000;
const SHORTENED = ' … [shortened: ';

/** What the model receives of a result: its compact JSON, in UTF-8 bytes. */
export function answerBytes(structured: unknown): number {
  return Buffer.byteLength(JSON.stringify(structured), 'utf8');
}

export function budgetLabel(budget: number): string {
  return budget % 1024 === 0 ? `${budget / 1024} KiB` : `${budget} bytes`;
}

export function usableBudget(bytes: number | undefined): number {
  return Math.min(MAX_ANSWER_BUDGET, Math.max(MIN_ANSWER_BUDGET, Math.floor(bytes ?? DEFAULT_ANSWER_BUDGET)));
}

/** The largest k whose `build(k)` is within `budget`; the last page may drop a cursor or a note, so it is tried first. */
function fitCount(items: readonly unknown[], budget: number, build: (k: number) => unknown): number {
  const count = items.length;
  if (count === 0) return 0;
  // Items add at least their own bytes: the first k whose own bytes pass the budget bounds the search.
  let upper = 0;
  for (let sum = 0; upper < count && sum <= budget; upper++) sum += answerBytes(items[upper]) + 1;
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

/** At most `max` code points, never inside a grapheme or a redaction label, at a word when one ends near the cut. */
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

const readWholeWith = (hit: MessageHit) => `get_context with message_id ${hit.message_id} and window 0 shows it whole`;

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

/** A message as a list shows it: at most `max` characters, then a marker with its whole length and where to read it. */
export function shortenHit<H extends MessageHit>(hit: H, max = LIST_TEXT_MAX, readWhole = readWholeWith(hit)): H {
  // UTF-16 units are never fewer than code points: most texts are cleared without counting.
  if (hit.text_length === undefined && (hit.text.length <= max || [...hit.text].length <= max)) return hit;
  return shortened(hit, max, readWhole);
}

/** A message item in at most `room` bytes: as much of its text as fits, else its long lists (dozens of attachments). */
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

/** What a citation and an item's identity need, and a message's text (shortened only with its marker). */
const WHOLE_FIELDS =
  /^(message_id|hash|conversation_id|link|id|contact_id|conversation|source|sender|timestamp|text|text_length|count|kind)$/;

/** `item` in at most `room` bytes: its longest string or list outside WHOLE_FIELDS halved until it fits. */
export function shrinkFields<T>(item: T, room: number): T {
  const v = structuredClone(item);
  for (let round = 0; round < 200 && answerBytes(v) > room; round++) {
    let best: { parent: Record<string, unknown> | unknown[]; key: string | number; size: number } | undefined;
    const visit = (parent: Record<string, unknown> | unknown[], key: string | number, x: unknown) => {
      if (typeof key === 'string' && WHOLE_FIELDS.test(key)) return;
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

const oversizeNote = (noun: string) =>
  `the ${noun.replace(/s$/, '')} here is larger than the answer budget: its longest parts are shortened (its citation is whole)`;
const OVERSIZE_NOTE = oversizeNote('messages');

type Paging = ReturnType<typeof paging>;

/** The paging fields of a result, ready to spread: next_cursor when more follows, notes when there are any. */
export function paging(next: string | undefined, ...notes: string[][]) {
  const all = notes.flat();
  return { ...(next !== undefined ? { next_cursor: next } : {}), ...(all.length ? { notes: all } : {}) };
}

const OffsetCursorSchema = z.strictObject({
  v: z.literal(1),
  t: z.string(),
  a: z.string(),
  o: z.number().int().positive(),
  // The last item shown: its identity (a message's hash) and its content (anything else that changed).
  k: z.string(),
  c: z.string(),
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

interface PageRequest {
  tool: string;
  args: Record<string, unknown> & { cursor?: string };
  budget: number;
  /** What the items are called in the notes ("hits", "conversations"). */
  noun: string;
  /** The tool's own notes, first on every page. */
  notes?: string[];
  /** What the answer was made from besides the arguments when that can change between pages (the day "today" is). */
  basis?: { value: unknown; changed: string };
}

function decodeOffsetCursor(req: PageRequest) {
  if (req.args.cursor === undefined) return undefined;
  const invalid = `cursor is not valid: pass the next_cursor of a previous ${req.tool} result unchanged, with the same arguments (or omit cursor to start from the first)`;
  const cursor = decodeOpaque(req.args.cursor, OffsetCursorSchema, invalid);
  if (cursor.t !== req.tool) throw new ToolError(invalid);
  if (cursor.a !== argsDigest(req.args)) {
    throw new ToolError(
      `this cursor belongs to a ${req.tool} call with other arguments: repeat the arguments of the call that returned it, with the cursor (or omit cursor to start over)`,
    );
  }
  return cursor;
}

/**
 * One page of `all` (the whole ordered answer, recomputed on every call) from where the cursor left off, as many
 * whole items as `build` holds within the budget. When the archive changed under a cursor, the page resumes after
 * the last item it showed (or at its position when that is gone), and a note says so.
 */
export function pageByOffset<T, R>(
  req: PageRequest,
  all: readonly T[],
  build: (items: T[], paging: Paging) => R,
  shrink?: (item: T, room: number) => T,
): R {
  const from = decodeOffsetCursor(req);
  const notes = [...(req.notes ?? [])];
  let start = 0;
  // Hashed once, and only for a cursor read or written: most answers are one page.
  let basisDigest: string | undefined;
  const basis = () => (req.basis ? (basisDigest ??= digest(req.basis.value, 8)) : undefined);
  if (from) {
    start = Math.min(from.o, all.length);
    const changed =
      basis() !== from.b
        ? req.basis?.changed
        : digest(all[from.o - 1], 8) !== from.c
          ? 'the archive changed since the previous page'
          : undefined;
    if (changed) {
      const found = all.findIndex((x) => digest(identity(x), 8) === from.k);
      // The last item shown is gone: one step back, so what moved into its place is not skipped.
      start = found >= 0 ? found + 1 : Math.max(0, start - 1);
      notes.push(
        `${changed}; ${found >= 0 ? `continuing after the last ${req.noun.replace(/s$/, '')} shown` : `continuing at position ${start + 1}`}` +
          ` — ${req.noun} may repeat or be missing; omit cursor to start over`,
      );
    }
  }
  const rest = all.slice(start);
  let oversize: string[] = [];
  const pageOf = (k: number, items = rest.slice(0, k)): R => {
    const end = start + k;
    if (end >= all.length) {
      const last = k
        ? `${req.noun} ${start + 1}–${end} of ${all.length}: the last page`
        : `no more ${req.noun}: all ${all.length} were on earlier pages`;
      return build(items, paging(undefined, notes, oversize, start > 0 ? [last] : []));
    }
    const next = encodeOpaque({
      v: 1,
      t: req.tool,
      a: argsDigest(req.args),
      o: end,
      k: digest(identity(rest[k - 1]), 8),
      c: digest(all[end - 1], 8),
      ...(req.basis ? { b: basis() } : {}),
    });
    const position = `${req.noun} ${start + 1}–${end} of ${all.length} (the answer budget is ${budgetLabel(req.budget)}): repeat the call with cursor = next_cursor for the next`;
    return build(items, paging(next, notes, oversize, [position]));
  };
  const k = fitCount(rest, req.budget, pageOf);
  if (k > 0 || rest.length === 0) return pageOf(k);
  // One item larger than a page: shrunk to what the page leaves it.
  oversize = [oversizeNote(req.noun)];
  rest[0] = fitAlone(rest[0], req.budget, shrink, (item) => pageOf(1, [item]));
  return pageOf(1);
}

/** `item` alone on a page (`page(item)`): the tool's own shrink first, then its longest parts, measured on the page. */
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

/**
 * As many of `items` as `build(k, notes)` holds within the budget; one item larger than a page is shrunk to fit and
 * `notes` then holds the note that says so (room for it was kept).
 */
export function fitPage<T, R>(
  items: T[],
  budget: number,
  build: (k: number, notes: string[]) => R,
  shrink?: (item: T, room: number) => T,
): R {
  const kept = fitCount(items, budget, (k) => build(k, []));
  if (kept > 0 || items.length === 0) return build(kept, []);
  const room = budget - answerBytes(OVERSIZE_NOTE) - 1;
  items[0] = fitAlone(items[0], room, shrink, (item) => ((items[0] = item), build(1, [])));
  return build(1, [OVERSIZE_NOTE]);
}

/** A page of messages read by keyset (`answer.more`: more follow it); `cursorAfter(i)` continues after the i-th. */
export function keysetPage<R>(
  answer: { hits: MessageHit[]; more: boolean; notes: string[] },
  budget: number,
  cursorAfter: (i: number) => string,
  build: (messages: MessageHit[], paging: Paging) => R,
): R {
  const read = answer.hits.map((h) => shortenHit(h));
  const kept = `of the ${read.length} messages read are shown (the answer budget is ${budgetLabel(budget)}): pass next_cursor as cursor for the following ones`;
  const page = (k: number, oversize: string[]) => {
    const next = k > 0 && (k < read.length || answer.more) ? cursorAfter(k - 1) : undefined;
    return build(read.slice(0, k), paging(next, answer.notes, k < read.length ? [`${k} ${kept}`] : [], oversize));
  };
  return fitPage(read, budget, page, shrinkMessage);
}
