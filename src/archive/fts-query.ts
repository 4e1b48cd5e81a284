/** msgbrowse's buildFTSQuery (quoted prefix terms: no FTS5 syntax error), bounded: each term costs an expansion. */

/** Go's unicode.IsSpace set (JS `\s` differs: it includes U+FEFF and lacks U+0085). */
const GO_SPACE = /[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\0]+/u;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** What the unicode61 tokenizer keeps as term characters (a token without one never changes the result). */
const TERM_CHAR = /[\p{L}\p{N}\p{Co}]/u;

export const MAX_QUERY_TOKENS = 32;

/** NUL would end the MATCH string inside a quote: it is whitespace here; lone surrogates become U+FFFD. */
function ftsTokens(input: string): string[] {
  const clean = input.replace(LONE_SURROGATE, '\uFFFD');
  return clean.split(GO_SPACE).filter((t) => t !== '');
}

/** How a query was read: the MATCH string ('' when nothing is searched), the tokens searched and those left out. */
export interface FtsQueryPlan {
  match: string;
  tokens: string[];
  /** Before anything was left out. */
  total: number;
  /** Folded by FTS5 to a term already searched (case, diacritics). */
  duplicates: number;
  /** Holding no letter or digit. */
  ignored: string[];
  overCap: number;
}

/** FTS5's folding of a term (unicode61 remove_diacritics 2). */
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

export function buildFtsQuery(input: string): string {
  return planFtsQuery(input).match;
}
