/**
 * msgbrowse's buildFTSQuery, with bounds: split on Unicode whitespace (Go's strings.Fields /
 * unicode.IsSpace), double every `"`, wrap each token as a quoted prefix term `"tok"*`, join with a
 * single space (implicit AND). Whitespace-only input gives no tokens (no search, no error).
 *
 * Every token is a quoted string, so FTS5 operators (OR, NEAR, `*`, `(`, `col:`, `^`) are literal text
 * and no input can cause an FTS5 syntax error. Two inputs msgbrowse would choke on are made safe
 * first: NUL (which would end the MATCH string inside a quote) acts as whitespace, and lone UTF-16
 * surrogates become U+FFFD (what any UTF-8 encoder produces for them anyway).
 *
 * Unlike msgbrowse, the token list is bounded before it reaches FTS5 (each term is a full prefix expansion and
 * intersection, so 999 repeats of one letter took seconds): tokens FTS5 would ignore (no letter or digit — the
 * unicode61 tokenizer sees no term in them, so they never change the result) are left out, tokens that FTS5
 * folds to the same term (case, diacritics) are kept once, and at most MAX_QUERY_TOKENS remain. The result is
 * the same set of messages as msgbrowse's query whenever the cap is not reached.
 */

/** Go's unicode.IsSpace set (JS `\s` differs: it includes U+FEFF and lacks U+0085). */
const GO_SPACE = /[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\0]+/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** What the unicode61 tokenizer keeps as term characters: letters, digits, private use (and marks on them). */
const TERM_CHAR = /[\p{L}\p{N}\p{Co}]/u;

/** The most keyword tokens one query searches (each is a required word prefix). */
export const MAX_QUERY_TOKENS = 32;

export function ftsTokens(input: string): string[] {
  const clean = input.replace(LONE_SURROGATE, '\uFFFD');
  return clean.split(GO_SPACE).filter((t) => t !== '');
}

/** How a query was read: the tokens searched and what was left out, and the MATCH string. */
export interface FtsQueryPlan {
  /** The FTS5 MATCH string; '' when no token is searched. */
  match: string;
  /** The tokens searched, in query order (each a required word prefix). */
  tokens: string[];
  /** Tokens in the query, before anything was left out. */
  total: number;
  /** Tokens left out because FTS5 folds them to a term already searched (case, diacritics). */
  duplicates: number;
  /** Distinct tokens left out because they hold no letter or digit (FTS5 sees no term in them). */
  ignored: string[];
  /** Distinct tokens left out because the query had more than MAX_QUERY_TOKENS. */
  overCap: number;
}

/** FTS5's folding of a term (unicode61 remove_diacritics 2): case and diacritics do not matter. */
function termKey(t: string): string {
  return t
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

export function planFtsQuery(input: string, maxTokens = MAX_QUERY_TOKENS): FtsQueryPlan {
  const all = ftsTokens(input);
  const seen = new Set<string>();
  const ignored = new Set<string>();
  const tokens: string[] = [];
  let duplicates = 0;
  let overCap = 0;
  for (const t of all) {
    if (!TERM_CHAR.test(t)) {
      if (ignored.has(t)) duplicates++;
      else ignored.add(t);
      continue;
    }
    const k = termKey(t);
    if (seen.has(k)) {
      duplicates++;
      continue;
    }
    seen.add(k);
    if (tokens.length >= maxTokens) overCap++;
    else tokens.push(t);
  }
  return {
    match: tokens.map((t) => `"${t.replace(/"/g, '""')}"*`).join(' '),
    tokens,
    total: all.length,
    duplicates,
    ignored: [...ignored],
    overCap,
  };
}

/** The FTS5 MATCH string for a user query; '' when the query has no searchable tokens. */
export function buildFtsQuery(input: string): string {
  return planFtsQuery(input).match;
}
