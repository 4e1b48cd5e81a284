/**
 * Checks a document's citations against the archive (ok / moved / gone / unverified) and the quote next to each.
 * A citation's quote, first rule that finds one: (1) the last "…"/“…” span before it, back to the previous citation
 * on the line, else to the line's start (or the line above's, when that is prose without a citation); (2) for a
 * line's last citation, the first such span after it; (3) for a line's first citation, the `>` lines directly above
 * (unwrapped from quote marks or emphasis). Single quotes are never quote marks; a span needs a letter or digit.
 * A quote matches after NFC, whitespace collapsing and straightening curly quotes; case counts except each
 * fragment's first letter; `…`, `...`, `[…]` split fragments that must appear in order; a closing `.`/`,` the
 * message lacks is ignored. Otherwise it is "altered" when at least half its words appear in order (word LCS),
 * else "fabricated".
 */
import type { AsyncArchive, MessageRow } from '../archive/types';
import { citationHash, resolveCitation, type CitedMessage } from './citation-resolve';
import { cleanBody } from './text';

/** A citation found in the document (the extension's findCitations): its offset, length and text as written. */
type CitationSpan = CitedMessage & { start: number; length: number; text: string };

/** `unverified`: an old link without a hash whose id exists (probably right, but nothing proves it). */
export type CitationStatus = 'ok' | 'moved' | 'gone' | 'unverified';

export type QuoteVerdict = 'matches' | 'altered' | 'fabricated';

interface FoundQuote {
  /** As written, markers and wrapping quote marks removed. */
  text: string;
  /** In the document; a blockquote spans its whole `>` block. */
  start: number;
  length: number;
  kind: 'inline' | 'blockquote';
}

interface QuoteCheck extends FoundQuote {
  verdict: QuoteVerdict;
  /** For an altered quote: the message's passage it most resembles (normalised, at most 160 characters). */
  closest?: string;
}

export interface CitationCheck {
  citation: CitationSpan;
  status: CitationStatus;
  note: string;
  /** The message the citation reaches (absent when gone). */
  message?: MessageRow;
  /** The link rewritten in its own form: moved → current ids ('update'); unverified → hash added ('anchor'). */
  fix?: { kind: 'update' | 'anchor'; text: string };
  /** Checked against `message`; absent when the citation is gone. */
  quote?: QuoteCheck;
}

interface CheckOptions {
  /** Skip citations inside Markdown code: examples, not claims. */
  markdown?: boolean;
  signal?: AbortSignal;
}

/** The citation text with the given ids and hash, everything else (scheme, authority's case, form) kept. */
export function rewriteCitation(text: string, to: { conversationId: number; messageId: number; hash: string }): string {
  const ids = text.replace(
    /\/?c\/\d+\/at\/\d+/,
    (m) => `${m.startsWith('/') ? '/' : ''}c/${to.conversationId}/at/${to.messageId}`,
  );
  const hash = citationHash(to.hash);
  const withHash = ids.replace(/\?h(=|%3D)[0-9a-f]+$/i, (_m, sep: string) => `?h${sep}${hash}`);
  return withHash === ids && !/\?h(=|%3D)/i.test(ids) ? `${ids}?h=${hash}` : withHash;
}

/** `end` is before the line break (and its CR). */
type Line = { start: number; end: number; text: string };

function splitLines(text: string): Line[] {
  let start = 0;
  return text.split('\n').map((raw) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const out = { start, end: start + line.length, text: line };
    start += raw.length + 1;
    return out;
  });
}

function lineIndexAt(lines: readonly Line[], offset: number): number {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines[mid].start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** [start, end) offsets of Markdown fenced code blocks (``` or ~~~) and inline code spans. */
export function markdownCodeRanges(text: string): [number, number][] {
  const out: [number, number][] = [];
  let fence: { marker: string; start: number } | undefined;
  for (const line of splitLines(text)) {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line.text);
    if (fence) {
      if (m && m[1][0] === fence.marker[0] && m[1].length >= fence.marker.length && line.text.trim() === m[1]) {
        out.push([fence.start, line.end]);
        fence = undefined;
      }
      continue;
    }
    if (m) {
      fence = { marker: m[1], start: line.start };
      continue;
    }
    for (const s of line.text.matchAll(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g)) {
      out.push([line.start + (s.index ?? 0), line.start + (s.index ?? 0) + s[0].length]);
    }
  }
  if (fence) out.push([fence.start, text.length]);
  return out;
}

const BLOCKQUOTE = /^ {0,3}>/;
const QUOTED_SPAN = /“([^“”]*)”|"([^"]*)"/g;
const hasWord = (s: string): boolean => /[\p{L}\p{N}]/u.test(s);

function quotedSpans(text: string, base: number): FoundQuote[] {
  const out: FoundQuote[] = [];
  for (const m of text.matchAll(QUOTED_SPAN)) {
    const inner = m[1] ?? m[2] ?? '';
    if (!hasWord(inner)) continue;
    const lead = inner.length - inner.trimStart().length;
    const t = inner.trim();
    out.push({ text: t, start: base + (m.index ?? 0) + 1 + lead, length: t.length, kind: 'inline' });
  }
  return out;
}

/** Removes quote marks or emphasis wrapping the whole text (`"…"`, `“…”`, `*…*`, `_…_`), repeatedly. */
function unwrap(text: string): string {
  for (let t = text; ; ) {
    const m = /^(“|"|\*{1,3}|_{1,3})([\s\S]*)$/.exec(t);
    if (!m) return t;
    const close = m[1] === '“' ? '”' : m[1];
    if (!(m[2].length > close.length && m[2].endsWith(close))) return t;
    t = m[2].slice(0, -close.length).trim();
  }
}

function blockquoteAbove(lines: readonly Line[], lineNo: number, cited: ReadonlySet<number>): FoundQuote | undefined {
  let top = lineNo - 1;
  while (top >= 0 && BLOCKQUOTE.test(lines[top].text) && !cited.has(top)) top--;
  top++;
  if (top >= lineNo) return undefined;
  const parts: string[] = [];
  let start = -1;
  for (let i = top; i < lineNo; i++) {
    const line = lines[i];
    const marker = /^ {0,3}(?:> ?)+/.exec(line.text)?.[0] ?? '';
    const content = line.text.slice(marker.length);
    if (start < 0 && content.trim() !== '')
      start = line.start + marker.length + (content.length - content.trimStart().length);
    parts.push(content.trim());
  }
  const joined = parts.filter(Boolean).join(' ');
  if (start < 0 || !hasWord(joined)) return undefined;
  const quote = unwrap(joined);
  if (!hasWord(quote)) return undefined;
  return { text: quote, start, length: lines[lineNo - 1].end - start, kind: 'blockquote' };
}

/** The quote next to each citation (`citations` sorted by start), by the rules in the header. */
export function findQuotes(text: string, citations: readonly CitationSpan[]): (FoundQuote | undefined)[] {
  const lines = splitLines(text);
  const lineOf = citations.map((c) => lineIndexAt(lines, c.start));
  const citedLines = new Set(lineOf);
  return citations.map((c, i) => {
    const L = lineOf[i];
    const line = lines[L];
    const prevSameLine = i > 0 && lineOf[i - 1] === L;
    const nextSameLine = i + 1 < citations.length && lineOf[i + 1] === L;
    let from = line.start;
    if (prevSameLine) from = citations[i - 1].start + citations[i - 1].length;
    else if (L > 0) {
      const above = lines[L - 1];
      if (above.text.trim() !== '' && !BLOCKQUOTE.test(above.text) && !citedLines.has(L - 1)) from = above.start;
    }
    const before = quotedSpans(text.slice(from, c.start), from);
    if (before.length) return before[before.length - 1];
    if (!nextSameLine) {
      const afterStart = c.start + c.length;
      const after = quotedSpans(text.slice(afterStart, line.end), afterStart);
      if (after.length) return after[0];
    }
    return prevSameLine ? undefined : blockquoteAbove(lines, L, citedLines);
  });
}

/** The normal form both texts are compared in. */
function normaliseQuoteText(s: string): string {
  return cleanBody(s)
    .normalize('NFC')
    .replace(/[“”„‟″«»]/g, '"')
    .replace(/[‘’‚‛′]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

const ELLIPSIS = /\s*(?:[[(]\s*(?:…|\.{3,})\s*[\])]|…|\.{3,})\s*/;

function findFrom(haystack: string, fragment: string, from: number): { at: number; length: number } | undefined {
  const rest = fragment.slice(1);
  const variants = new Set([fragment, fragment[0].toLowerCase() + rest, fragment[0].toUpperCase() + rest]);
  let best: { at: number; length: number } | undefined;
  for (const v of variants) {
    const at = haystack.indexOf(v, from);
    if (at >= 0 && (!best || at < best.at)) best = { at, length: v.length };
  }
  return best;
}

function fragmentsMatch(body: string, fragments: readonly string[]): boolean {
  let pos = 0;
  for (let i = 0; i < fragments.length; i++) {
    let f = fragments[i];
    let hit = findFrom(body, f, pos);
    if (!hit && i === fragments.length - 1 && /[.,]$/.test(f)) {
      f = f.slice(0, -1).trimEnd();
      hit = f ? findFrom(body, f, pos) : { at: pos, length: 0 };
    }
    if (!hit) return false;
    pos = hit.at + hit.length;
  }
  return true;
}

const WORD = /[\p{L}\p{N}]+/gu;
const MAX_QUOTE_WORDS = 300;
const MAX_BODY_WORDS = 3000;

/** The longest common subsequence of words, and the body span (word indices) it covers. */
function wordLcs(q: readonly string[], b: readonly string[]): { length: number; first: number; last: number } {
  const n = q.length;
  const m = b.length;
  const w = m + 1;
  const dp = new Uint16Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i * w + j] = q[i] === b[j] ? dp[(i + 1) * w + j + 1] + 1 : Math.max(dp[(i + 1) * w + j], dp[i * w + j + 1]);
    }
  }
  let i = 0;
  let j = 0;
  let first = -1;
  let last = -1;
  while (i < n && j < m) {
    if (q[i] === b[j]) {
      if (first < 0) first = j;
      last = j;
      i++;
      j++;
    } else if (dp[(i + 1) * w + j] >= dp[i * w + j + 1]) i++;
    else j++;
  }
  return { length: dp[0], first, last };
}

/** Whether `quote` appears in `body` by the rules in the header; for a mismatch, how close it came. */
export function compareQuote(quote: string, body: string): { verdict: QuoteVerdict; closest?: string } {
  const nb = normaliseQuoteText(body);
  const nq = normaliseQuoteText(quote);
  const fragments = nq
    .split(ELLIPSIS)
    .map((f) => f.trim())
    .filter(hasWord);
  if (fragments.length && fragmentsMatch(nb, fragments)) return { verdict: 'matches' };
  const qWords = [...fragments.join(' ').toLowerCase().matchAll(WORD)].map((m) => m[0]).slice(0, MAX_QUOTE_WORDS);
  const bTokens = [...nb.toLowerCase().matchAll(WORD)].slice(0, MAX_BODY_WORDS);
  if (!qWords.length || !bTokens.length) return { verdict: 'fabricated' };
  const bWords = bTokens.map((t) => t[0]);
  const lcs = wordLcs(qWords, bWords);
  if (lcs.length * 2 < qWords.length) return { verdict: 'fabricated' };
  // Cut from the un-lowercased form unless lowercasing changed its length.
  const lower = nb.toLowerCase();
  const src = lower.length === nb.length ? nb : lower;
  const from = bTokens[lcs.first].index ?? 0;
  const to = (bTokens[lcs.last].index ?? 0) + bTokens[lcs.last][0].length;
  const passage = src.slice(from, to);
  return { verdict: 'altered', closest: passage.length > 160 ? `${passage.slice(0, 159)}…` : passage };
}

const key = (c: CitedMessage): string => `${c.conversationId}/${c.messageId}/${c.hash ?? ''}`;

type Classified = { status: CitationStatus; note: string; message?: MessageRow; fix?: 'update' | 'anchor' };

async function classify(archive: AsyncArchive, c: CitationSpan, signal?: AbortSignal): Promise<Classified> {
  const r = await resolveCitation(archive, c, signal);
  if (r.status === 'gone') return { status: 'gone', note: r.note };
  const m = r.message;
  if (r.status === 'moved') return { status: 'moved', note: r.note, message: m, fix: 'update' };
  const at = `message ${m.id} in conversation ${m.conversationId}`;
  if (m.conversationId === c.conversationId) {
    if (r.checked) return { status: 'ok', note: `resolves to ${at} (${m.conversation})`, message: m };
    const note = `an old link without a hash: ${at} exists, but nothing proves it is the message that was cited (ids change when msgbrowse re-imports)`;
    return { status: 'unverified', note, message: m, fix: 'anchor' };
  }
  if (r.checked) {
    const note = `the link names conversation ${c.conversationId}, but the cited message is ${at} (${m.conversation})`;
    return { status: 'moved', note, message: m, fix: 'update' };
  }
  const note = `message ${c.messageId} is not in conversation ${c.conversationId} of this archive (that id now holds a message of another conversation; an old link without a hash cannot be followed)`;
  return { status: 'gone', note };
}

/** Checks every citation found in `text`, in document order; identical citations are resolved once. */
export async function checkCitations(
  archive: AsyncArchive,
  text: string,
  found: readonly CitationSpan[],
  options: CheckOptions = {},
): Promise<CitationCheck[]> {
  let citations = [...found].sort((a, b) => a.start - b.start);
  if (options.markdown) {
    const code = markdownCodeRanges(text);
    citations = citations.filter((c) => !code.some(([s, e]) => c.start >= s && c.start < e));
  }
  const quotes = findQuotes(text, citations);
  const resolved = new Map<string, Promise<Classified>>();
  const out: CitationCheck[] = [];
  for (let i = 0; i < citations.length; i++) {
    options.signal?.throwIfAborted();
    const c = citations[i];
    let r = resolved.get(key(c));
    if (!r) resolved.set(key(c), (r = classify(archive, c, options.signal)));
    const { status, note, message, fix } = await r;
    const check: CitationCheck = { citation: c, status, note };
    if (message) {
      check.message = message;
      // Rewritten from this citation's own text, so each occurrence keeps its form and scheme.
      const to = { conversationId: message.conversationId, messageId: message.id, hash: message.hash };
      if (fix) check.fix = { kind: fix, text: rewriteCitation(c.text, to) };
      const q = quotes[i];
      if (q) check.quote = { ...q, ...compareQuote(q.text, message.body) };
    }
    out.push(check);
  }
  return out;
}

export type CitationCheckSummary = ReturnType<typeof summarizeChecks>;

export function summarizeChecks(checks: readonly CitationCheck[]) {
  const quotes = { checked: 0, matches: 0, altered: 0, fabricated: 0 };
  const s = { citations: checks.length, ok: 0, moved: 0, gone: 0, unverified: 0, quotes };
  for (const c of checks) {
    s[c.status]++;
    if (c.quote) {
      s.quotes.checked++;
      s.quotes[c.quote.verdict]++;
    }
  }
  return s;
}
