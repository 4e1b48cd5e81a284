/**
 * The thread view's model: what a tool result holds, as conversations of messages. Pure (no DOM): each tool's
 * `structuredContent` shape — `hits[]` (search_messages, semantic_search), `messages[]` with the centre's
 * `message_id`/`hash` (get_context), `messages[]` of one conversation (get_conversation) or of a day
 * (get_journal_day), `years[].messages[]` (on_this_day) — becomes sections of conversation groups, each sorted by
 * time, with one message highlighted: the cited one, else the best hit, else the first of the result.
 */

export interface Reaction {
  emoji: string;
  actor: string;
}

/** A message as the tools carry it (core/results.ts MessageHitSchema); attachments are shown when a result has them. */
export interface Hit {
  message_id: number;
  hash: string;
  conversation: string;
  conversation_id: number;
  source: string;
  sender: string;
  timestamp: string;
  text: string;
  link: string;
  score?: number;
  reactions?: Reaction[];
  attachments?: { name: string; kind?: string }[];
}

/** `cited`: get_context's centre; `best`: a search's top hit; `first`: the first message of any other result. */
export type Highlight = 'cited' | 'best' | 'first';

export interface ThreadMessage extends Hit {
  /** Added by "Show more context" (not in the tool result itself). */
  added?: boolean;
}

export interface ThreadGroup {
  /** Unique within the model: section index + conversation id. */
  key: string;
  conversation: string;
  conversationId: number;
  source: string;
  messages: ThreadMessage[];
}

export interface ThreadSection {
  heading?: string;
  groups: ThreadGroup[];
}

/** A tools/call the view can make. */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ThreadModel {
  title: string;
  /** Which part of the whole answer this page holds (the result's note), and the call for the next page. */
  page?: { note?: string; next?: ToolCall };
  sections: ThreadSection[];
  /** The highlighted message (by hash) and why. */
  focus?: { hash: string; kind: Highlight };
  /** Search snippets mark their matches with **…**. */
  snippets: boolean;
  count: number;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keeps the items that look like message hits (every field the view reads, with the right type). */
function hitsOf(v: unknown): Hit[] {
  if (!Array.isArray(v)) return [];
  return v.filter(
    (h): h is Hit =>
      isObj(h) &&
      typeof h.message_id === 'number' &&
      typeof h.hash === 'string' &&
      typeof h.conversation === 'string' &&
      typeof h.conversation_id === 'number' &&
      typeof h.sender === 'string' &&
      typeof h.timestamp === 'string' &&
      typeof h.text === 'string' &&
      typeof h.link === 'string',
  );
}

const ISO = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d)/;

/** The archive's own timestamp string as a time: ISO-like ("2022-03-01 09:03:00") or as the source wrote it
 * ("Nov 13, 2015 5:53:29 AM"), read as wall-clock time; NaN when unreadable. */
export function timeValue(ts: string): number {
  const iso = ISO.exec(ts);
  return Date.parse(iso ? `${iso[1]}T${ts.slice(11, 19).padEnd(8, ':00').slice(0, 8)}` : ts);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The day (YYYY-MM-DD) and the time of day (HH:MM) a timestamp names, for headings; the string itself when unreadable. */
export function dayAndTime(ts: string): { day: string; time: string } {
  const iso = ISO.exec(ts);
  if (iso) return { day: iso[1], time: iso[2] };
  const t = timeValue(ts);
  if (!Number.isFinite(t)) return { day: '', time: ts };
  const d = new Date(t);
  return {
    day: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
    time: `${pad(d.getHours())}:${pad(d.getMinutes())}`,
  };
}

/** Oldest first; unreadable timestamps by string, ties by id. */
export function byTime(a: Hit, b: Hit): number {
  const ta = timeValue(a.timestamp);
  const tb = timeValue(b.timestamp);
  if (Number.isFinite(ta) && Number.isFinite(tb) && ta !== tb) return ta - tb;
  if (!Number.isFinite(ta) || !Number.isFinite(tb)) {
    if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? -1 : 1;
  }
  return a.message_id - b.message_id;
}

/** Conversations in the order the result first names them; messages of each by time. */
function groupsOf(hits: Hit[], section: number): ThreadGroup[] {
  const groups = new Map<number, ThreadGroup>();
  for (const h of hits) {
    let g = groups.get(h.conversation_id);
    if (!g) {
      g = {
        key: `${section}:${h.conversation_id}`,
        conversation: h.conversation,
        conversationId: h.conversation_id,
        source: typeof h.source === 'string' ? h.source : '',
        messages: [],
      };
      groups.set(h.conversation_id, g);
    }
    if (!g.messages.some((m) => m.hash === h.hash)) g.messages.push(h);
  }
  for (const g of groups.values()) g.messages.sort(byTime);
  return [...groups.values()];
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : /(s|x|ch|sh)$/.test(one) ? 'es' : 's'}`;

/** The note of a result that says which part of the whole a page holds ("hits 1–18 of 50 …"). */
const PAGE_NOTE = /\d+–\d+ of \d+|\d+ of the \d+ |no more /;

/**
 * The next page of a paged result: the same tool with `cursor` (and the call's own arguments, when the tool needs
 * them again). Which tool made the result is read from its shape; undefined when there is no next page, or when
 * the call's arguments are needed and the host did not send them.
 */
export function nextPage(
  structured: Record<string, unknown>,
  args: Record<string, unknown> | undefined,
): ToolCall | undefined {
  // get_context's window cut short: read on after it with get_conversation.
  if (typeof structured.later_cursor === 'string')
    return { name: 'get_conversation', arguments: { cursor: structured.later_cursor } };
  const cursor = structured.next_cursor;
  if (typeof cursor !== 'string') return undefined;
  const again = (name: string) => (args ? { name, arguments: { ...args, cursor } } : undefined);
  if (Array.isArray(structured.hits))
    return again(
      isObj(structured.receipt) && isObj(structured.receipt.keyword) ? 'search_messages' : 'semantic_search',
    );
  if (Array.isArray(structured.years)) return again('on_this_day');
  if (typeof structured.day === 'string')
    return { name: 'get_journal_day', arguments: { day: structured.day, cursor } };
  if (typeof structured.conversation_id === 'number') return { name: 'get_conversation', arguments: { cursor } };
  return undefined;
}

/** The model of a tool result's structuredContent; undefined when it carries no messages the view knows. */
export function modelFromResult(structured: unknown, args?: Record<string, unknown>): ThreadModel | undefined {
  const model = threadOf(structured);
  if (!model || !isObj(structured)) return model;
  const notes = Array.isArray(structured.notes)
    ? structured.notes.filter((n): n is string => typeof n === 'string')
    : [];
  const note = notes.find((n) => PAGE_NOTE.test(n));
  const next = nextPage(structured, args);
  if (note || next) model.page = { ...(note ? { note: note.replace(/:.*$/, '') } : {}), ...(next ? { next } : {}) };
  return model;
}

function threadOf(structured: unknown): ThreadModel | undefined {
  if (!isObj(structured)) return undefined;
  if (Array.isArray(structured.hits)) {
    const hits = hitsOf(structured.hits);
    return {
      title: hits.length
        ? `${plural(hits.length, 'match')} in ${plural(new Set(hits.map((h) => h.conversation_id)).size, 'conversation')}`
        : 'No matches',
      sections: [{ groups: groupsOf(hits, 0) }],
      focus: hits[0] && { hash: hits[0].hash, kind: 'best' },
      snippets: true,
      count: hits.length,
    };
  }
  if (Array.isArray(structured.years)) {
    const years = structured.years.filter(isObj);
    const sections = years.map((y, i) => ({
      heading: typeof y.day === 'string' ? y.day : String(y.year ?? ''),
      groups: groupsOf(hitsOf(y.messages), i),
    }));
    const first = years.map((y) => hitsOf(y.messages)[0]).find(Boolean);
    const count = sections.reduce((n, s) => n + s.groups.reduce((k, g) => k + g.messages.length, 0), 0);
    return {
      title: `On this day${typeof structured.date === 'string' ? ` (${structured.date.slice(5)})` : ''}: ${plural(sections.length, 'year')}`,
      sections,
      focus: first && { hash: first.hash, kind: 'first' },
      snippets: false,
      count,
    };
  }
  if (Array.isArray(structured.messages)) {
    const hits = hitsOf(structured.messages);
    const centre = typeof structured.hash === 'string' ? hits.find((h) => h.hash === structured.hash) : undefined;
    const title =
      centre !== undefined
        ? `Around the cited message in ${centre.conversation}`
        : typeof structured.day === 'string'
          ? `${structured.day}: ${plural(hits.length, 'message')}`
          : typeof structured.conversation === 'string'
            ? `${structured.conversation}: ${plural(hits.length, 'message')}${structured.has_more === true ? ' (newest page)' : ''}`
            : plural(hits.length, 'message');
    return {
      title,
      sections: [
        { heading: typeof structured.day === 'string' ? structured.day : undefined, groups: groupsOf(hits, 0) },
      ],
      focus: centre ? { hash: centre.hash, kind: 'cited' } : hits[0] && { hash: hits[0].hash, kind: 'first' },
      snippets: false,
      count: hits.length,
    };
  }
  return undefined;
}

/**
 * "Show more context": get_context's messages merged into the group that holds `hash` (by hash, nothing twice),
 * marked as added. Returns how many were new.
 */
export function mergeContext(model: ThreadModel, hash: string, structured: unknown): number {
  const group = model.sections.flatMap((s) => s.groups).find((g) => g.messages.some((m) => m.hash === hash));
  if (!group || !isObj(structured)) return 0;
  let added = 0;
  for (const h of hitsOf(structured.messages)) {
    if (h.conversation_id !== group.conversationId || group.messages.some((m) => m.hash === h.hash)) continue;
    group.messages.push({ ...h, added: true });
    added++;
  }
  group.messages.sort(byTime);
  model.count += added;
  return added;
}
