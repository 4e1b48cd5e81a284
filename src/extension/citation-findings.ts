import { type AsyncArchive, checkCitations, type CitationCheck, type CitationCheckSummary, inline } from '../core';
import { findCitations } from './citation-ref';

interface Finding {
  code: 'citation-gone' | 'citation-moved' | 'citation-unverified' | 'quote-altered' | 'quote-fabricated';
  severity: 'error' | 'warning' | 'information';
  /** Document offsets of what the finding is about: the link, or the quote. */
  start: number;
  length: number;
  message: string;
  /** Index into the checks: the citation this finding is about (its link range and fix). */
  check: number;
}

type Span = { start: number; length: number };

/** Checks every msgbrowse citation of a document's text (Markdown code skipped when `markdown`). */
export function checkDocumentText(
  archive: AsyncArchive,
  text: string,
  markdown: boolean,
  signal?: AbortSignal,
): Promise<CitationCheck[]> {
  return checkCitations(archive, text, findCitations(text), { markdown, signal });
}

function who(c: CitationCheck): string {
  const m = c.message;
  return m
    ? `message ${m.id} (${m.sender || 'unknown sender'} in ${m.conversation})`
    : `message ${c.citation.messageId}`;
}

/** Gone → error; moved, altered or fabricated quote → warning; an old link without a hash → information. */
export function findingsOf(checks: readonly CitationCheck[]): Finding[] {
  return checks.flatMap((c, check) => {
    const out: Finding[] = [];
    const add = (code: Finding['code'], severity: Finding['severity'], message: string, at: Span = c.citation) =>
      out.push({ code, severity, message, start: at.start, length: at.length, check });
    const note = c.note;
    if (c.status === 'gone') add('citation-gone', 'error', `Citation gone: ${note}.`);
    if (c.status === 'moved') add('citation-moved', 'warning', `Citation moved: ${note}. Quick fix: update the link.`);
    if (c.status === 'unverified') add('citation-unverified', 'information', `Citation unverified: ${note}.`);
    const q = c.quote;
    if (q?.verdict === 'altered') {
      const message = `Quote altered: ${who(c)} does not say this word for word; closest passage: ${inline(q.closest ?? '', 160)}.`;
      add('quote-altered', 'warning', message, q);
    } else if (q && q.verdict !== 'matches') {
      add('quote-fabricated', 'warning', `Quote not found: ${who(c)} says nothing like this.`, q);
    }
    return out;
  });
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** `3 citations: 1 resolves, 1 moved, 1 gone · quotes: 1 matches, 1 altered`. */
export function summaryLine(s: CitationCheckSummary): string {
  if (s.citations === 0) return 'no msgbrowse citations in this document';
  const links = [
    s.ok && `${s.ok} ${s.ok === 1 ? 'resolves' : 'resolve'}`,
    s.moved && `${s.moved} moved`,
    s.gone && `${s.gone} gone`,
    s.unverified && `${s.unverified} unverified (no hash)`,
  ].filter(Boolean);
  const q = s.quotes;
  const quotes = [
    q.matches && `${q.matches} ${q.matches === 1 ? 'matches' : 'match'}`,
    q.altered && `${q.altered} altered`,
    q.fabricated && `${q.fabricated} not found`,
  ].filter(Boolean);
  return `${plural(s.citations, 'citation')}: ${links.join(', ')}${quotes.length ? ` · ${plural(q.checked, 'quote')}: ${quotes.join(', ')}` : ''}`;
}
