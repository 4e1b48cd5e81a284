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
  const out: Finding[] = [];
  checks.forEach((c, i) => {
    const link = { start: c.citation.start, length: c.citation.length, check: i };
    if (c.status === 'gone') {
      out.push({ ...link, code: 'citation-gone', severity: 'error', message: `Citation gone: ${c.note}.` });
    } else if (c.status === 'moved') {
      out.push({
        ...link,
        code: 'citation-moved',
        severity: 'warning',
        message: `Citation moved: ${c.note}. Quick fix: update the link.`,
      });
    } else if (c.status === 'unverified') {
      out.push({
        ...link,
        code: 'citation-unverified',
        severity: 'information',
        message: `Citation unverified: ${c.note}.`,
      });
    }
    const q = c.quote;
    if (q && q.verdict !== 'matches') {
      const at = { start: q.start, length: q.length, check: i };
      out.push(
        q.verdict === 'altered'
          ? {
              ...at,
              code: 'quote-altered',
              severity: 'warning',
              message: `Quote altered: ${who(c)} does not say this word for word; closest passage: ${inline(q.closest ?? '', 160)}.`,
            }
          : {
              ...at,
              code: 'quote-fabricated',
              severity: 'warning',
              message: `Quote not found: ${who(c)} says nothing like this.`,
            },
      );
    }
  });
  return out;
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
