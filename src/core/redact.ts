/**
 * One-time codes, card numbers and their security codes, IBANs, passwords and API keys become `[redacted: <kind>]` in
 * what reaches a model. The rules are precise on purpose (docs/PRIVACY.md#redaction): ordinary numbers stay as written.
 */

type SecretKind = 'one-time code' | 'card number' | 'card security code' | 'IBAN' | 'password' | 'API key';

type SecretSpan = { start: number; end: number; kind: SecretKind };

const label = (kind: SecretKind): string => `[redacted: ${kind}]`;
const list = (s: string): readonly string[] => s.split('|');

/** Digit groups joined by single spaces or single dashes (the candidates for a card number). */
const DIGIT_RUN = /(?<![\p{L}\p{N}_])\d+(?:[ -]\d+)*/gu;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const CURRENCY_BEFORE = /(?:^|[^\p{L}])(?:EUR|USD|GBP|CHF|BRL|MXN|ARS|COP|CLP)\s?$/iu;
const CURRENCY_AFTER = /^\s?(?:EUR|USD|GBP|CHF|BRL|MXN|ARS|COP|CLP|euros?|dollars?|dólares|reais|pesos)(?![\p{L}])/iu;

/** Whether a span in `spans` covers position `i`. */
const covered = (spans: readonly SecretSpan[], i: number): boolean => spans.some((s) => s.start <= i && i < s.end);

/**
 * Whether the characters around `[start, end)` let it stand alone as a number (not part of a longer one). A secret in
 * `found` beside it reads as its label, as on a second pass: it continues no number.
 */
function standsAlone(text: string, start: number, end: number, found: readonly SecretSpan[] = []): boolean {
  const afterSecret = covered(found, start - 2);
  const before = text[start - 1] ?? '';
  const before2 = afterSecret ? ']' : (text[start - 2] ?? '');
  const after = text[end] ?? '';
  const after2 = covered(found, end + 1) ? '[' : (text[end + 1] ?? '');
  if (/[\p{L}\p{N}_+]/u.test(before) || /[\p{L}\p{N}_]/u.test(after)) return false;
  // 1.234, 12,50, 2024-05, 12/05, 12:30 — the number continues across the punctuation.
  if (/[.,\-/:]/.test(before) && /\d/.test(before2)) return false;
  if (/[.,\-/:]/.test(after) && /\d/.test(after2)) return false;
  // Amounts: €1234, $ 1234, 1234 €, 1234%, EUR 1234, 1234 euros.
  if (/[$€£¥₹%]/.test(before) || (before === ' ' && /[$€£¥₹]/.test(before2))) return false;
  if (/[€$£¥%]/.test(after) || (after === ' ' && /[€$£¥%]/.test(after2))) return false;
  if (CURRENCY_BEFORE.test(text.slice(Math.max(0, afterSecret ? start - 1 : start - 5), start))) return false;
  return !CURRENCY_AFTER.test(text.slice(end, end + 9));
}

function validCard(groups: string[]): boolean {
  const digits = groups.join('');
  if (digits.length < 13 || digits.length > 19 || !/^[2-6]/.test(digits) || !luhnValid(digits)) return false;
  const lens = groups.map((g) => g.length);
  const last = lens[lens.length - 1];
  if (lens.length === 1 || ['4-6-5', '4-6-4'].includes(lens.join('-'))) return true;
  return lens.slice(0, -1).every((l) => l === 4) && last >= 1 && last <= 4;
}

/**
 * A card is the longest valid window of a digit run (one separator kind) that starts the run, a line, or a group after
 * another number on its line (a date, a time, a short group, a secret found already): a number then its CVV counts, a
 * window a further group of four continues on the same line does not, nor a run after an IBAN's head (`DE89 3704 …`).
 * A window after another number stays on its line, and none reaches into a line whose own groups make a card.
 * `breaks`: positions of separators that were line breaks.
 */
function findCards(text: string, out: SecretSpan[], breaks: ReadonlySet<number>): void {
  for (const m of text.matchAll(DIGIT_RUN)) {
    const raw = m[0];
    const groups = raw.split(/[ -]/);
    const seps = raw.replace(/\d+/g, '').split('');
    const starts = groups.map((_, g) => m.index + groups.slice(0, g).join('').length + g);
    const newLine = (g: number) => g > 0 && breaks.has(starts[g] - 1);
    const oneSep = (a: number, b: number) => seps.slice(a, b).every((x) => x === seps[a]);
    const lineCard = (k: number) => {
      for (let e = k; e < groups.length && (e === k || !newLine(e)); e++)
        if (
          oneSep(k, e) &&
          validCard(groups.slice(k, e + 1)) &&
          standsAlone(text, starts[k], starts[e] + groups[e].length, out)
        )
          return true;
      return false;
    };
    // What stands before the run on its line; a secret there reads as its label, as on a second pass.
    const before =
      breaks.has(m.index - 1) || covered(out, m.index - 2) ? '' : text.slice(Math.max(0, m.index - 12), m.index);
    const token = /[\p{L}\p{N}_]*\p{N}[\p{L}\p{N}_]*[ -]$/u.test(before);
    const head = token ? /(?<![\p{L}\p{N}_])([A-Za-z]{2})\d{2}[ -]$/u.exec(before)?.[1].toUpperCase() : undefined;
    const ibanHead = head !== undefined && head in IBAN_LENGTHS;
    // The run's first group ends a date, a time or a decimal (`12/27 4111 …`).
    const tail = seps[0] === ' ' && /\d[./:]$/.test(before);
    // Where the part of the run still to read starts: 0, a line, or after a card or another secret, where a second
    // pass (reading a label there) starts a run of its own (`restart`).
    let base = 0;
    let restart = true;
    const afterNumber = (i: number) =>
      seps[i - 1] === ' ' &&
      (i === base + 1
        ? (base === 0 && tail) || groups[base].length !== 4
        : seps.slice(base, i - 1).every((x) => x === '-'));
    for (let i = 0; i < groups.length; i++) {
      if (i > 0 && covered(out, starts[i] - 2)) [base, restart] = [i, true];
      else if (newLine(i)) [base, restart] = [i, false];
      if (i === 0 ? ibanHead : i !== base && !afterNumber(i)) continue;
      const fresh = i === base && restart;
      const sameLine = i === 0 ? token : i !== base;
      for (let j = groups.length - 1; j >= i; j--) {
        if (!oneSep(i, j)) continue;
        const lines = groups.slice(i + 1, j + 1).map((_, k) => newLine(i + 1 + k));
        if (lines.some((l, k) => l && (sameLine || lineCard(i + 1 + k)))) continue;
        const continued =
          j < groups.length - 1 &&
          seps[j] === seps[i] &&
          groups.slice(i, j + 2).every((g) => g.length === 4) &&
          !covered(out, starts[j + 1]);
        if (j > i && continued && !newLine(j + 1)) continue;
        // Cut out of a longer run at a line: only with a group beside another on its line (not a column of numbers).
        if (j > i && (!fresh || continued) && lines.every(Boolean)) continue;
        const end = starts[j] + groups[j].length;
        if (!validCard(groups.slice(i, j + 1)) || !standsAlone(text, starts[i], end, out)) continue;
        out.push({ start: starts[i], end, kind: 'card number' });
        [base, restart] = [j + 1, true]; // the rest of the run reads as a run of its own
        i = j;
        break;
      }
    }
  }
}

/** Digit groups joined by dots or by slashes (one kind per run; findCards reads spaces and dashes). */
const DOTTED_RUN = /(?<![\p{L}\p{N}_])\d+([./])\d+(?:\1\d+)*/gu;

/** A run grouped like a card (4-4-4-…, 4-6-5) with dots or slashes. */
function findDottedCards(text: string, out: SecretSpan[]): void {
  for (const m of text.matchAll(DOTTED_RUN)) {
    const end = m.index + m[0].length;
    if (validCard(m[0].split(m[1])) && standsAlone(text, m.index, end))
      out.push({ start: m.index, end, kind: 'card number' });
  }
}

/** Registered IBAN lengths by country (SWIFT IBAN registry). */
const IBAN_LENGTHS: Readonly<Record<string, number>> = Object.fromEntries(
  (
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DJ27 DK18 DO28 EE20 ' +
    'EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 ' +
    'KZ20 LB28 LC32 LI21 LT20 LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 NL18 NO15 OM23 PK24 ' +
    'PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25 SV28 TL23 TN24 TR26 UA29 ' +
    'VA22 VG24 XK20 YE30 '
  )
    .trim()
    .split(' ')
    .map((e) => [e.slice(0, 2), Number(e.slice(2))]),
);

export function ibanChecksumValid(compact: string): boolean {
  const s = compact.toUpperCase();
  const rearranged = s.slice(4) + s.slice(0, 4);
  let rem = 0;
  for (const ch of rearranged) {
    const v = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rem = (rem * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

const IBAN_START = /(?<![\p{L}\p{N}_])[A-Za-z]{2}\d{2}/gu;

/** Where a valid IBAN that starts at `start` ends (a single space or dash may stand between any characters). */
function ibanEnd(text: string, start: number): number | undefined {
  const len = IBAN_LENGTHS[text.slice(start, start + 2).toUpperCase()];
  if (!len) return undefined;
  let i = start;
  let compact = '';
  while (compact.length < len && i < text.length) {
    const ch = text[i];
    if (/[A-Za-z0-9]/.test(ch)) {
      compact += ch;
      i++;
    } else if ((ch === ' ' || ch === '-') && /[A-Za-z0-9]/.test(text[i + 1] ?? '')) i++;
    else break;
  }
  // The registered length, six digits and mod-97 rule out false matches.
  if (compact.length !== len || /[\p{L}\p{N}_]/u.test(text[i] ?? '')) return undefined;
  if ((compact.slice(4).match(/\d/g)?.length ?? 0) < 6 || !ibanChecksumValid(compact)) return undefined;
  return i;
}

function findIbans(text: string, out: SecretSpan[]): void {
  for (const m of text.matchAll(IBAN_START)) {
    const start = m.index;
    const end = ibanEnd(text, start);
    if (end === undefined) continue;
    // Grouped with dashes, not a piece of a longer dashed id with letters (a UUID); digits or an IBAN beside it are not.
    if (
      text.slice(start, end).includes('-') &&
      ((/[A-Za-z][A-Za-z0-9]*-$/.test(text.slice(Math.max(0, start - 40), start)) && out.at(-1)?.end !== start - 1) ||
        (/^-\d*[A-Za-z]/.test(text.slice(end, end + 40)) && ibanEnd(text, end + 1) === undefined))
    )
      continue;
    out.push({ start, end, kind: 'IBAN' });
  }
}

/** Words that announce a one-time code, PIN or TAN (whole words, any case). en, es, pt, de, fr, it, nl. */
const CODE_KEYWORDS: readonly string[] = list(
  'code|codes|otp|pin|passcode|verification|one-time|2fa|mfa|token|código|codigo|códigos|verificación|' +
    'verificacion|clave|códigos|verificação|verificacao|tan|mtan|smstan|sms-tan|pushtan|bestätigungscode|' +
    'bestaetigungscode|sicherheitscode|verifizierungscode|anmeldecode|einmalcode|einmalpasswort|' +
    'freischaltcode|aktivierungscode|zugangscode|bestätigungs-code|sms-code|login-code|vérification|' +
    'verification|code de vérification|codice|verifica|verificatiecode|inlogcode|beveiligingscode|' +
    'toegangscode|sms-code',
);

/** Qualifiers that make a "code" something public: postal, area, error… (before or after the keyword). */
const NOT_SECRET_CODES: readonly string[] = list(
  'zip|postal|post|area|country|dialing|dialling|error|status|exit|return|http|bar|qr|source|swift|bic|' +
    'sort|tax|product|item|article|promo|discount|coupon|voucher|referral|invite|invitation|dress|morse|' +
    'review|conduct|snippet|name|freeze|' +
    'zip-code|iso|hs|airport|iata|postale|área|area|erro|error|fehler|erreur|errore|fout|fiscale|fiscal|' +
    'postcode|postleitzahl|país|pays|paese|landes|länder|fehlercode|ländercode|vorwahl|de área',
);

const WORD = "[\\p{L}\\p{M}][\\p{L}\\p{M}'’-]*";
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const byLength = (xs: readonly string[]) =>
  [...new Set(xs)]
    .sort((a, b) => b.length - a.length)
    .map(escapeRe)
    .join('|');
const KEYWORD_RE = `(?:${byLength(CODE_KEYWORDS)})`;
/** The code digits: 4–8 digits, 3+3 or 4+4 split by one space or dash, or 2+2+2 by spaces (with dashes, a date). */
const CODE_DIGITS = '(?:\\d{3}[ -]\\d{3}|\\d{4}[ -]\\d{4}|\\d{2} \\d{2} \\d{2}|\\d{4,8})';
// What may wrap a code: *bold* (WhatsApp) or **bold** (Markdown). Brackets and quotes wrap years in prose too often.
const OPENS = '(?:\\*{1,2})';
const CLOSES = OPENS;
const AFTER_KEYWORD = new RegExp(
  `(?<![\\p{L}\\p{N}_])(${KEYWORD_RE})(?![\\p{L}\\p{N}_])((?:[ \\t]*[:=#\\-–]?[ \\t]*(?:${WORD}))?(?:[ \\t]+${WORD}){0,2}[ \\t]*[:=#\\-–]?[ \\t]*\\n?[ \\t]*${OPENS}?)(${CODE_DIGITS})`,
  'giu',
);
const BEFORE_KEYWORD = new RegExp(
  `(?<![\\p{L}\\p{N}_])(${CODE_DIGITS})(${CLOSES}?(?:[ \\t]*[—–-](?=[ \\t]+(?:your|tu|su|seu|sua|dein|deine|ihr|ihre|votre|ton|tuo|tua|uw|je)[ \\t]))?(?:[ \\t]+${WORD}){0,4}[ \\t]+)(${KEYWORD_RE})(?![\\p{L}\\p{N}_])`,
  'giu',
);
const NOT_SECRET = new Set(NOT_SECRET_CODES);

function qualifierBefore(text: string, at: number): boolean {
  const m = /([\p{L}\p{M}-]+)[ \t]*$/u.exec(text.slice(Math.max(0, at - 30), at));
  return !!m && NOT_SECRET.has(m[1].toLowerCase());
}

function qualifierIn(gap: string): boolean {
  return gap
    .toLowerCase()
    .split(/[^\p{L}\p{M}-]+/u)
    .some((w) => NOT_SECRET.has(w));
}

/**
 * Also not the head of a longer number or of a phone number written in groups (0151 2345 6789) on its line, nor part of
 * a secret found already; a group of one beside it does not count (a CVV, then the PIN).
 */
function codeStandsAlone(
  text: string,
  start: number,
  end: number,
  breaks: ReadonlySet<number>,
  found: readonly SecretSpan[],
): boolean {
  if (found.some((s) => s.start < end && start < s.end)) return false;
  const grouped =
    (/^[ -]\d/.test(text.slice(end, end + 2)) && !breaks.has(end) && !covered(found, end + 1)) ||
    (/\d[ -]$/.test(text.slice(Math.max(0, start - 2), start)) && !breaks.has(start - 1) && !covered(found, start - 2));
  return !grouped && standsAlone(text, start, end, found);
}

/** Little words that may stand between a code and its keyword; at most one other word (a brand) may join them. */
const CONNECTORS = new Set([
  ...list(
    'is|was|your|my|the|a|an|as|to|for|use|new|login|log-in|sign-in|signin|security|one-time|confirmation|' +
      'authentication|authorization|activation|registration|access|temporary|es|tu|su|el|la|de|del|' +
      'para|nuevo|nueva|seguridad|acceso|é|o|seu|sua|novo|nova|segurança|acesso|da|do|ist|lautet|ihr|ihre|' +
      'dein|deine|der|die|das|neuer|neue|für|zur|sms|est|votre|ton|le|du|pour|nouveau|sécurité|connexion|è|' +
      'il|tuo|tua|di|per|nuovo|sicurezza|accesso|uw|je|het|een|voor|nieuwe|van',
  ),
  ...CODE_KEYWORDS,
]);

function gapOk(gap: string): boolean {
  const words = gap
    .toLowerCase()
    .split(/[^\p{L}\p{M}'’-]+/u)
    .filter((w) => /[\p{L}\p{M}]/u.test(w));
  return words.filter((w) => !CONNECTORS.has(w)).length <= 1;
}

function findCodes(text: string, out: SecretSpan[], breaks: ReadonlySet<number>): void {
  for (const m of text.matchAll(AFTER_KEYWORD)) {
    const kwStart = m.index;
    const digitsStart = kwStart + m[1].length + m[2].length;
    let digitsEnd = digitsStart + m[3].length;
    if (qualifierBefore(text, kwStart) || qualifierIn(m[2]) || !gapOk(m[2])) continue;
    if (!codeStandsAlone(text, digitsStart, digitsEnd, breaks, out)) {
      // A 4+4 that runs on into more groups: its first group alone, when its line ends there (PIN, then a card).
      const first = /^\d+/.exec(m[3])![0];
      digitsEnd = digitsStart + first.length;
      if (first.length < 4 || first === m[3] || !codeStandsAlone(text, digitsStart, digitsEnd, breaks, out)) continue;
    }
    out.push({ start: digitsStart, end: digitsEnd, kind: 'one-time code' });
  }
  for (const m of text.matchAll(BEFORE_KEYWORD)) {
    let start = m.index;
    const end = start + m[1].length;
    const kwStart = end + m[2].length;
    const kwEnd = kwStart + m[3].length;
    const following = text
      .slice(kwEnd, kwEnd + 16)
      .split(/[^\p{L}\p{M}]+/u)
      .slice(0, 2)
      .join(' ');
    if (qualifierIn(m[2]) || qualifierBefore(text, kwStart) || qualifierIn(following) || !gapOk(m[2])) continue;
    if (!codeStandsAlone(text, start, end, breaks, out)) {
      // A 4+4 that a longer number runs into: its last group alone, when a line starts there (a card, then its PIN).
      const last = /\d+$/.exec(m[1])![0];
      start = end - last.length;
      if (last.length < 4 || last === m[1] || !codeStandsAlone(text, start, end, breaks, out)) continue;
    }
    out.push({ start, end, kind: 'one-time code' });
  }
}

/** Words that announce a password (lowercase). en, es, pt, de, fr, it, nl. */
const PASSWORD_KEYWORDS: readonly string[] = list(
  'password|passwords|passwd|pwd|pw|passcode|passphrase|wifi password|wi-fi password|contraseña|' +
    "contrasena|senha|palavra-passe|palavra passe|passwort|kennwort|mot de passe|mdp|parola d'ordine|" +
    'parola chiave|wachtwoord',
);
const COPULAS = [
  ...list("is|was|es|era|fue|é|foi|ist|war|lautet|heißt|heisst|est|était|etait|c'est|c’est|è|is now|ist jetzt"),
  'es ahora',
];
const PASSWORD_RE = new RegExp(
  `(?<![\\p{L}\\p{N}_])(${byLength(PASSWORD_KEYWORDS)})(?![\\p{L}\\p{N}_])` +
    // A bare keyword ("password Gr33nTea") takes only a value with a digit, a symbol or a mark inside it (P@ss): a
    // word of prose is left to the next keyword ("Reset password\nPassword: …"); an apostrophe opens no quote there.
    `(?:([ \\t]*[:=][ \\t]*\\n?[ \\t]*)|([ \\t]+(?:${byLength(COPULAS)})[ \\t]*:?[ \\t]+)|` +
    `([ \\t]+)(?=["\`“«]|[^\\s]*(?:[\\p{N}\\p{S}]|[@#&%*_!?.,;:$=+/\\\\|~^](?=[^\\s.,!?;:)…»'’]))))` +
    `("[^"\\n]{1,80}"|'[^'\\n]{1,80}'|\`[^\`\\n]{1,80}\`|“[^”\\n]{1,80}”|«[^»\\n]{1,80}»|[^\\s]+)`,
  'giu',
);

/** After a bare keyword: counts (3x), ordinals (2nd, 2e), dates and links. */
const BARE_NOT_PASSWORD =
  /^(?:\d+(?:x|st|nd|rd|th|e|er|ème|º|ª)|\d{1,4}([./-])\d{1,2}\1\d{1,4}|[a-z][a-z0-9+.-]*:\/\/.*)[.,;:!?]?$/iu;

/** A value that ends in a password keyword (`cvv-Passwort:`): the keyword of the label after it. */
const KEYWORD_LAST = new RegExp(`(?:^|[^\\p{L}])(?:${byLength(PASSWORD_KEYWORDS)})[:=]*$`, 'iu');

function findPasswords(text: string, out: SecretSpan[]): void {
  for (const m of text.matchAll(PASSWORD_RE)) {
    let value = m[5];
    const quoted = /^["'`“«]/.test(value);
    const inUrl = /[?&;]$/.test(text.slice(Math.max(0, m.index - 1), m.index));
    // The whole token, trailing punctuation included (better than leaving a secret's last character); in a URL the
    // value ends at the next parameter.
    if (!quoted && inUrl) value = value.replace(/[&#].*$/, '');
    // A label in the value (a second pass) ends it; after a bare keyword, a keyword before it is no value
    // ("password Passwort:[…").
    const label = value.indexOf('[redacted');
    if (label >= 0) value = value.slice(0, label);
    if (value === '' || (label >= 0 && m[4] !== undefined && KEYWORD_LAST.test(value))) continue;
    // After "password is", a word of letters only is prose ("is wrong").
    if (m[3] !== undefined && !quoted && !/[\p{N}\p{S}\p{P}]/u.test(value)) continue;
    // After a bare "password": not "2 times", "3x", "2nd", a date or a link.
    if (m[4] !== undefined && !quoted && (!/\p{L}|\d{4}/u.test(value) || BARE_NOT_PASSWORD.test(value))) continue;
    // "passcode 483920" is a code, labelled by findCodes.
    if (m[4] !== undefined && /^\d+$/.test(value) && CODE_KEYWORDS.includes(m[1].toLowerCase())) continue;
    const start = m.index + m[0].length - m[5].length;
    out.push({ start, end: start + value.length, kind: 'password' });
  }
}

/**
 * A card's security code after its name: 3–4 digits after CVV, CVC or *Kartenprüfnummer*, 3 after a generic "security
 * code" (4–8 digits there are one-time codes, findCodes').
 */
const CARD_CODE = new RegExp(
  `(?<![\\p{L}\\p{N}_])(?:(cvv2?|cvc2?|cvn|cv2|card security code|kartenprüfnummer|prüfnummer|cryptogramme(?: visuel)?)` +
    `(?:[ -]?(?:code|nummer|number|no\\.?|nr\\.?))?|(security code|código de seguridad|código de segurança|sicherheitscode|` +
    `code de sécurité|codice di sicurezza|beveiligingscode|veiligheidscode))(?![\\p{L}\\p{N}_])` +
    `(?:[ \\t]+(?:${byLength(COPULAS)}))?[ \\t]*[:=#–-]?[ \\t]*[(*]{0,2}(\\d{3,4})`,
  'giu',
);

function findCardCodes(text: string, out: SecretSpan[]): void {
  for (const m of text.matchAll(CARD_CODE)) {
    const digits = m[3];
    if (m[2] !== undefined && digits.length !== 3) continue;
    const start = m.index + m[0].length - digits.length;
    if (standsAlone(text, start, start + digits.length))
      out.push({ start, end: start + digits.length, kind: 'card security code' });
  }
}

/** A URL's user info (`scheme://user:password@host`): up to the authority's last `@`, as browsers read it. */
const URL_USER_INFO = /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/([^\s/?#]*)@/giu;

/** A `pass` parameter of a URL, a connection string or a variable (`DB_PASS=`); `password=` and the rest are findPasswords'. */
const QUERY_PASS = /[?&;#_]pass=["']?([^&#;\s"'<>[\]]+)/giu;

function findUrlPasswords(text: string, out: SecretSpan[]): void {
  for (const m of text.matchAll(URL_USER_INFO)) {
    const colon = m[1].indexOf(':');
    if (colon < 0 || colon === m[1].length - 1) continue;
    const end = m.index + m[0].length - 1;
    out.push({ start: end - (m[1].length - colon - 1), end, kind: 'password' });
  }
  for (const m of text.matchAll(QUERY_PASS)) {
    // A password mixes letters with digits or symbols: `pass=1200`, `pass=true`, `pass=weekend` are counts, flags, words.
    const value = m[1].replace(/[.,!?:)]+$/, '');
    if (!/\p{L}/u.test(value) || !/[^\p{L}]/u.test(value)) continue;
    out.push({ start: m.index + m[0].length - m[1].length, end: m.index + m[0].length, kind: 'password' });
  }
}

/**
 * API keys and access tokens in the formats their issuers publish for secret scanning: OpenAI and Anthropic (`sk-…`),
 * Stripe (`sk_live_…`), GitHub (`ghp_…`, `github_pat_…`), Slack (`xoxb-…`), AWS access key ids, Google API keys.
 */
const API_KEY =
  /(?<![\p{L}\p{N}_-])(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}|xox[abprs]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[A-Z0-9]{16}|AIza[A-Za-z0-9_-]{35})(?![\p{L}\p{N}_])/gu;

const API_KEY_PREFIX = /^(?:sk-(?:proj-|ant-)?|[sr]k_(?:live|test)_|gh[pousr]_|github_pat_|xox[abprs]-|AKIA|ASIA|AIza)/;

function findApiKeys(text: string, out: SecretSpan[]): void {
  for (const m of text.matchAll(API_KEY)) {
    // Random keys mix digits and capitals; a slug that starts like one (`sk-learn-tutorial-v2`) does not.
    const rest = m[0].replace(API_KEY_PREFIX, '');
    if (/\d/.test(rest) && /[A-Z]/.test(rest))
      out.push({ start: m.index, end: m.index + m[0].length, kind: 'API key' });
  }
}

const SPACE = /[\p{Zs}\t\n\v\f\r\u0085\u2028\u2029]/u;
// Format and control characters: what shows of a message has them stripped (core/text.ts), so they join what they split.
const INVISIBLE = /[\p{Cf}\p{Cc}]/u;
const LINE_BREAK = /[\n\v\f\r\u0085\u2028\u2029]/u;
// Between digits every dash reads as '-' (a non-breaking hyphen in a card, an en dash in a code, a minus sign); in prose
// an em dash stays one.
const DASH = /[\p{Pd}\u2212]/u;
const DECIMAL = /\p{Nd}/u;

/** ASCII value of a decimal digit of any script: Unicode encodes each script's 0–9 as one contiguous run. */
function digitValue(cp: number): number {
  let zero = cp;
  while (zero > 0 && cp - zero < 60 && DECIMAL.test(String.fromCodePoint(zero - 1))) zero--;
  return (cp - zero) % 10;
}

/**
 * `text` with space runs as one space (`breaks`: those that held a line break), invisible characters dropped, dashes
 * between digits as '-' and every script's digits as ASCII; U+FEFF as a space when `feffSpace`. `from[i]`/`to[i]`
 * are the original range of view character i, so spans redact exactly the original characters.
 */
function detectorView(
  text: string,
  feffSpace: boolean,
): { text: string; from: number[]; to: number[]; breaks: Set<number> } {
  let out = '';
  const from: number[] = [];
  const to: number[] = [];
  const breaks = new Set<number>();
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const next = i + ch.length;
    if (SPACE.test(ch) || (feffSpace && cp === 0xfeff)) {
      if (!out.endsWith(' ')) (out += ' '), from.push(i), to.push(next);
      else to[to.length - 1] = next;
      if (LINE_BREAK.test(ch)) breaks.add(out.length - 1);
    } else if (INVISIBLE.test(ch)) {
      if (to.length) to[to.length - 1] = next;
    } else if (cp > 0x7f && DASH.test(ch) && /\d$/.test(out) && DECIMAL.test(text[next] ?? '')) {
      out += '-';
      from.push(i);
      to.push(next);
    } else if (cp > 0x7f && DECIMAL.test(ch)) {
      out += String(digitValue(cp));
      from.push(i);
      to.push(next);
    } else {
      for (let j = i; j < next; j++) (out += text[j]), from.push(j), to.push(j + 1);
    }
    i = next;
  }
  return { text: out, from, to, breaks };
}

/** What a text with a secret has: a digit (every API key has one), the start of a password keyword or a URL. */
const MAY_HOLD = /\p{Nd}|pass|pw|senha|contra|mdp|mot de|wacht|kennw|parola|:\/\//iu;

/** Every secret in `text` (original positions), sorted, overlaps merged (the earliest detector's kind wins). */
export function findSecrets(text: string): SecretSpan[] {
  // A keyword split by an invisible character is still one (the detectors read past it); most texts pass as written.
  if (!MAY_HOLD.test(text) && !MAY_HOLD.test(text.replace(/[\p{Cf}\p{Cc}]/gu, ''))) return [];
  const found = detect(detectorView(text, false));
  // U+FEFF is zero-width in a message but a space in a snippet (`\s` matches it): read both ways.
  return text.includes('\ufeff') ? mergeSpans([...found, ...detect(detectorView(text, true))]) : found;
}

function detect(view: ReturnType<typeof detectorView>): SecretSpan[] {
  const found: SecretSpan[] = [];
  // The rarer kinds run only on texts that carry their mark, which most texts do not. Cards come after the kinds a
  // card may follow on its line (an IBAN, a password, a CVV), codes last (never beside or inside another secret).
  findIbans(view.text, found);
  if (/sk[-_]|rk_|gh[pousr]_|github_pat|xox|AKIA|ASIA|AIza/.test(view.text)) findApiKeys(view.text, found);
  if (view.text.includes('://') || /pass=/i.test(view.text)) findUrlPasswords(view.text, found);
  findPasswords(view.text, found);
  if (/cv[vcn2]|s[eé]cur|segur|sicher|veilig|prüf|crypto|sicur/i.test(view.text)) findCardCodes(view.text, found);
  if (/\d[./]\d/.test(view.text)) findDottedCards(view.text, found);
  findCards(view.text, found, view.breaks);
  findCodes(view.text, found, view.breaks);
  return mergeSpans(found.map((s) => ({ start: view.from[s.start], end: view.to[s.end - 1], kind: s.kind })));
}

/** `spans` sorted, overlaps merged (the first span's kind wins). */
function mergeSpans(spans: SecretSpan[]): SecretSpan[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretSpan[] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
}

/** `text` with every secret replaced by its label. */
export function redactText(text: string): string {
  let out = '';
  let at = 0;
  for (const s of findSecrets(text)) {
    out += text.slice(at, s.start) + label(s.kind);
    at = s.end;
  }
  return out + text.slice(at);
}

const OPEN = '\u0002';
const CLOSE = '\u0003';
const ELLIPSIS = '…';

/**
 * A raw FTS snippet (matches in U+0002…U+0003, cuts marked `…`) with its secrets redacted: markers are invisible to
 * the detectors and dropped when they overlap a secret. With `body`, secrets found in the whole message are redacted
 * wherever the snippet shows part of them (half a card number, a code cut from its keyword).
 */
export function redactSnippet(snippet: string, body?: string): string {
  // Plain text and where each marker pair sits in it.
  let plain = '';
  const pairs: { open: number; close: number }[] = [];
  let openAt: number | undefined;
  for (const ch of snippet) {
    if (ch === OPEN) openAt = plain.length;
    else if (ch === CLOSE) {
      if (openAt !== undefined) pairs.push({ open: openAt, close: plain.length });
      openAt = undefined;
    } else plain += ch;
  }
  const spans = snippetSpans(plain, body);
  if (spans.length === 0) return snippet;
  const kept = pairs.filter((p) => !spans.some((s) => p.open < s.end && s.start < p.close));
  const opens = new Set(kept.map((p) => p.open));
  const closes = new Set(kept.map((p) => p.close));
  let out = '';
  let si = 0;
  let i = 0;
  while (i <= plain.length) {
    if (closes.has(i)) out += CLOSE;
    if (opens.has(i)) out += OPEN;
    const s = spans[si];
    if (s && s.start === i) {
      // Markers inside the secret go with it (kept pairs never overlap a span).
      out += label(s.kind);
      si++;
      i = s.end;
      continue;
    }
    if (i < plain.length) out += plain[i];
    i++;
  }
  return out;
}

/** The spans of `plain` (a snippet without markers) to redact. */
function snippetSpans(plain: string, raw: string | undefined): SecretSpan[] {
  const own = findSecrets(plain);
  // As `plain` reads it: a body's own U+0002/U+0003 were taken for match markers there.
  const body = raw?.replace(/[\u0002\u0003]/g, '');
  // A short message's snippet is all of it: the body has nothing more to find.
  if (body === undefined || body === plain) return own;
  const inBody = findSecrets(body);
  if (inBody.length === 0) return own;
  // The snippet is a fragment of the body, maybe cut (`…`) at either end: locate it and map the body's secrets. A cut
  // mark is dropped even when the body has one there too: what is left is in the body all the same.
  let lead = 0;
  let core = plain;
  if (core.startsWith(ELLIPSIS)) {
    lead = ELLIPSIS.length;
    core = core.slice(lead);
  }
  if (core.endsWith(ELLIPSIS)) core = core.slice(0, -ELLIPSIS.length);
  const mapped: SecretSpan[] = [...own];
  if (core.length > 0) {
    for (let at = body.indexOf(core); at >= 0; at = body.indexOf(core, at + 1)) {
      for (const s of inBody) {
        const a = Math.max(s.start, at);
        const b = Math.min(s.end, at + core.length);
        if (a < b) mapped.push({ start: a - at + lead, end: b - at + lead, kind: s.kind });
      }
    }
  }
  return mergeSpans(mapped);
}
