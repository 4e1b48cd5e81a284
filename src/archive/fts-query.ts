/**
 * msgbrowse's buildFTSQuery, exactly: split on Unicode whitespace (Go's strings.Fields /
 * unicode.IsSpace), double every `"`, wrap each token as a quoted prefix term `"tok"*`, join with a
 * single space (implicit AND). Whitespace-only input gives no tokens (no search, no error).
 *
 * Every token is a quoted string, so FTS5 operators (OR, NEAR, `*`, `(`, `col:`, `^`) are literal text
 * and no input can cause an FTS5 syntax error. Two inputs msgbrowse would choke on are made safe
 * first: NUL (which would end the MATCH string inside a quote) acts as whitespace, and lone UTF-16
 * surrogates become U+FFFD (what any UTF-8 encoder produces for them anyway).
 */

/** Go's unicode.IsSpace set (JS `\s` differs: it includes U+FEFF and lacks U+0085). */
const GO_SPACE = /[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\0]+/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function ftsTokens(input: string): string[] {
  const clean = input.replace(LONE_SURROGATE, '\uFFFD');
  return clean.split(GO_SPACE).filter((t) => t !== '');
}

/** The FTS5 MATCH string for a user query; '' when the query has no tokens. */
export function buildFtsQuery(input: string): string {
  return ftsTokens(input)
    .map((t) => `"${t.replace(/"/g, '""')}"*`)
    .join(' ');
}
