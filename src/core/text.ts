/** Making archive text safe to show: no control characters, and message content kept visibly quoted (untrusted). */

// C0 controls but TAB and LF, DEL, C1 controls, and bidi overrides/isolates (they can reorder or hide text).
const STRIP = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

// Everything a renderer may break a line at becomes `\n`, so quoting prefixes every visual line.
const LINE_BREAKS = /\r\n?|[\u000b\u000c\u0085\u2028\u2029]/g;

/** A message body with control characters removed and every kind of line break normalised to `\n`. */
export function cleanBody(s: string): string {
  return s.replace(LINE_BREAKS, '\n').replace(STRIP, '');
}

/** An FTS snippet made readable: matches (in U+0002…U+0003) wrapped in `**`, other controls removed, spaces collapsed. */
export function readableSnippet(s: string): string {
  return s
    .replace(/[\u0002\u0003]/g, '**')
    .replace(LINE_BREAKS, '\n')
    .replace(STRIP, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Text for a markdown link label: one line, brackets and backslashes escaped, bounded length. */
export function linkLabel(s: string, max = 80): string {
  const one = cleanBody(s).replace(/\s+/g, ' ').trim();
  const cut = one.length > max ? `${one.slice(0, max - 1)}…` : one;
  return cut.replace(/[\\[\]]/g, (c) => `\\${c}`) || '(untitled)';
}

/** Quotes untrusted text as a markdown blockquote (every line prefixed, so it cannot break out). */
export function quote(text: string, indent = ''): string {
  const body = cleanBody(text);
  if (body.trim() === '') return `${indent}> (empty message)`;
  return body
    .split('\n')
    .map((line) => `${indent}> ${line}`.trimEnd())
    .join('\n');
}

/** A JSON string literal for short untrusted values shown inline (names, senders). */
export function inline(s: string, max = 120): string {
  const one = cleanBody(s).replace(/\s+/g, ' ');
  return JSON.stringify(one.length > max ? `${one.slice(0, max - 1)}…` : one);
}
