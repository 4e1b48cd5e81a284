/**
 * fast-check arbitraries for tool calls: valid, boundary and hostile arguments for each tool.
 * Valid values come from the archive's description (real names, ids, hashes, words, dates); hostile values
 * cover FTS5 syntax, SQL-looking text, NUL and lone surrogates, 100 KB strings, extreme numbers, wrong types,
 * unknown and missing fields.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import { TOOLS } from '../../../src/mcp/tools';
import { EXPECTED_TOOLS as TOOL_NAMES, type ExpectedTool as ToolName } from '../../mcp/expected-tools';

/** What the generators know about the archive under test. */
export interface FuzzVocabulary {
  conversations: { id: number; name: string; source: string }[];
  senders: string[];
  sources: string[];
  messageIds: number[];
  hashes: string[];
  words: string[];
  /** `YYYY-MM-DD` days inside the archive's range. */
  days: string[];
  domains: string[];
}

export { TOOL_NAMES, type ToolName };

export interface ToolCall {
  name: ToolName;
  arguments: Record<string, unknown>;
  /** How the arguments were built (for failure reports and figures). */
  flavour: 'valid' | 'hostile';
}

// ---------- hostile building blocks ----------

export const FTS5_SYNTAX = [
  '"',
  '""',
  '"unterminated',
  '*',
  'lease*',
  '*lease',
  '(',
  ')',
  '(lease OR',
  'NEAR(lease agreement, 2)',
  'NEAR(',
  'lease OR agreement',
  'OR',
  'AND',
  'NOT',
  'lease NOT agreement',
  'body:lease',
  'col:value',
  '{body sender}:lease',
  '^lease',
  '^',
  '-lease',
  '+lease',
  'lease:',
  ':',
  "'",
  '\\',
  '""""',
  '"a" "b"',
  'a"b',
  '[lease]',
  'lease AND (agreement OR NEAR(x y))',
];

export const SQL_LOOKING = [
  "'; DROP TABLE messages; --",
  "1' OR '1'='1",
  '1 OR 1=1',
  '%',
  '_',
  '%lease%',
  '/* comment */ lease',
  'lease -- comment',
  'UNION SELECT * FROM sqlite_master',
  "x'00'",
  'char(0)',
  'PRAGMA writable_schema=1',
  'ATTACH DATABASE "/tmp/x" AS y',
  '?',
  '?1',
  ':name',
  '@p',
  '$x',
  ';',
];

export const NASTY_CHARS = [
  '\u0000',
  'lease\u0000agreement',
  '\uD800',
  '\uDFFF',
  'a\uD800b',
  '\uDC00\uD800',
  '\uFEFF',
  '\u202E\u2066reversed',
  '\u200B\u200C\u200D',
  '🙂',
  '👨‍👩‍👧',
  'e\u0301',
  '\r\n',
  '\t',
  '\u2028\u2029',
  '\u0001\u0002\u0003',
  '\u007F\u0085\u009F',
  'ﬁ',
  'İ',
  'ß',
];

const HUGE = 100 * 1024;

const hugeString = fc.oneof(
  fc.constant('a'.repeat(HUGE)),
  fc.constant('lease '.repeat(HUGE / 6)),
  fc.constant('"'.repeat(HUGE)),
  fc.constant('🙂'.repeat(HUGE / 2)),
  fc.constant('\u0000'.repeat(HUGE)),
  fc.string({ minLength: 1, maxLength: 8 }).map((s) => s.repeat(Math.ceil(HUGE / s.length)).slice(0, HUGE)),
);

/** Strings built from hostile fragments, random unicode and valid words. */
export function hostileString(vocab: FuzzVocabulary): fc.Arbitrary<string> {
  const fragment = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...FTS5_SYNTAX) },
    { weight: 3, arbitrary: fc.constantFrom(...SQL_LOOKING) },
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_CHARS) },
    { weight: 3, arbitrary: fc.constantFrom(...vocab.words) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  );
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc
        .array(fragment, { minLength: 1, maxLength: 6 })
        .chain((parts) => fc.constantFrom(parts.join(' '), parts.join(''))),
    },
    { weight: 2, arbitrary: fc.constantFrom('', ' ', '   ', '\n') },
    { weight: 1, arbitrary: hugeString },
  );
}

/** Numbers no parameter accepts or only accepts after clamping. */
export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    0,
    -1,
    -0,
    0.5,
    1.5,
    -1e9,
    1e9,
    2 ** 31,
    2 ** 31 - 1,
    2 ** 53,
    2 ** 53 + 2,
    1e21,
    1e308,
    -1e308,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    Number.EPSILON,
  ),
  fc.constantFrom(NaN, Infinity, -Infinity),
  fc.constantFrom('10', '1e3', 'NaN', 'Infinity', '0x10', '-5', '', ' 7 ', '10abc'),
  fc.double({ noNaN: false }),
  fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }),
  fc.bigInt().map((b) => Number(b)),
);

/** Values of the wrong JSON type (and non-JSON values an in-memory transport would carry). */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, [], {}, [1, 2], { $gt: '' }, { toString: 'x' }, [['deep']]),
  fc.constant(undefined),
  fc.integer(),
  fc.string({ maxLength: 5 }),
  fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.integer(),
      fc.string({ maxLength: 4 }),
      fc.array(tie('node'), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 4 }), tie('node'), { maxKeys: 3 }),
    ),
  })).node,
);

export const hostileDate: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    '2024-02-30',
    '2023-02-29',
    '2024-13-01',
    '2024-00-10',
    '2024-01-32',
    '0000-01-01',
    '9999-12-31',
    '2024-1-1',
    '2024-01-01T00:00:00Z',
    '2024/01/01',
    '01-01-2024',
    'yesterday',
    '',
    ' 2024-01-01',
    '２０２４-０１-０１',
    '+02024-01-01',
    '1969-12-31',
    '2038-01-19',
  ),
  fc
    .date({ noInvalidDate: false })
    .map((d) => (Number.isNaN(d.getTime()) ? 'Invalid Date' : d.toISOString().slice(0, 10))),
);

const hostileCursor: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    'null',
    'eyJ9',
    Buffer.from('{"ts":1e308,"id":-1}').toString('base64url'),
    Buffer.from('{"c":1,"t":"x","i":"y"}').toString('base64url'),
  ),
  fc.json().map((j) => Buffer.from(j).toString('base64url')),
);

// ---------- per-parameter generators ----------

type ParamArb = (v: FuzzVocabulary) => fc.Arbitrary<unknown>;

const validConversationName: ParamArb = (v) => fc.constantFrom(...v.conversations.map((c) => c.name));
const validSource: ParamArb = (v) => fc.constantFrom(...v.sources);

/** Valid values per parameter name. */
const VALID: Record<string, ParamArb> = {
  name: validConversationName,
  conversation: validConversationName,
  conversation_id: (v) => fc.constantFrom(...v.conversations.map((c) => c.id)),
  source: validSource,
  name_contains: (v) =>
    fc.oneof(fc.constantFrom(...v.conversations.map((c) => c.name.slice(0, 3))), fc.constantFrom(...v.words)),
  query: (v) => fc.array(fc.constantFrom(...v.words), { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')),
  sender: (v) => fc.constantFrom(...v.senders),
  start: (v) => fc.constantFrom(...v.days),
  end: (v) => fc.constantFrom(...v.days),
  limit: () => fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constantFrom(1, 100, 500, 1000, 1001, 5000)),
  k: () => fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constantFrom(1, 100, 101)),
  window: () => fc.oneof(fc.integer({ min: 0, max: 10 }), fc.constantFrom(0, 50, 51)),
  message_id: (v) => fc.constantFrom(...v.messageIds),
  hash: (v) => fc.constantFrom(...v.hashes),
  kind: () => fc.constantFrom('image', 'file', 'video'),
  domain: (v) =>
    fc.oneof(fc.constantFrom(...v.domains), fc.constantFrom(...v.domains.map((d) => `WWW.${d.toUpperCase()}`))),
  cursor: () => fc.constant(undefined),
  day: (v) => fc.constantFrom(...v.days),
  date: (v) => fc.oneof(fc.constantFrom(...v.days), fc.constant(undefined)),
  per_year: () => fc.oneof(fc.integer({ min: 1, max: 10 }), fc.constantFrom(1, 10, 11, 500)),
  order: () => fc.constantFrom('oldest', 'newest', undefined),
  has_attachment: () => fc.constantFrom(true, false, undefined, undefined),
  has_link: () => fc.constantFrom(true, false, undefined, undefined),
  contact_id: () => fc.integer({ min: 1, max: 12 }),
};

/** Hostile values per parameter kind. */
function hostileFor(param: string, v: FuzzVocabulary): fc.Arbitrary<unknown> {
  const numeric = ['limit', 'k', 'window', 'message_id', 'conversation_id', 'per_year', 'contact_id'].includes(param);
  const date = param === 'start' || param === 'end' || param === 'day' || param === 'date';
  return fc.oneof(
    { weight: numeric ? 6 : 1, arbitrary: hostileNumber },
    { weight: date ? 6 : 1, arbitrary: hostileDate },
    { weight: numeric || date ? 2 : 6, arbitrary: hostileString(v) },
    { weight: param === 'cursor' ? 6 : 0, arbitrary: hostileCursor },
    { weight: 2, arbitrary: wrongType },
  );
}

/** Parameters of each tool (required ones first), read from its zod input schema. */
export const TOOL_PARAMS: Record<ToolName, { required: string[]; optional: string[] }> = Object.fromEntries(
  TOOLS.map(({ name, inputSchema }) => {
    const params = Object.entries<z.ZodType>(inputSchema.shape);
    const names = (optional: boolean) => params.filter(([, p]) => p.isOptional() === optional).map(([k]) => k);
    return [name, { required: names(false), optional: names(true) }];
  }),
);

const UNKNOWN_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'q',
  'Query',
  'conversationId',
  'messageId',
  'limit ',
  '',
  'sql',
  'toString',
];

/**
 * A valid call: plausible arguments a model would send. A conversation is named consistently (name + its
 * own source, or its id); dates are ordered; get_context gets one of message_id / hash. Most of these
 * must succeed (the suite asserts it), so the success path is fuzzed as much as the error paths.
 */
function validCall(tool: ToolName, v: FuzzVocabulary): fc.Arbitrary<ToolCall> {
  const { required, optional } = TOOL_PARAMS[tool];
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of [...required, ...optional]) record[p] = (VALID[p] ?? (() => fc.constant(undefined)))(v);
  const nameKey =
    tool === 'get_contact'
      ? undefined
      : optional.includes('name')
        ? 'name'
        : optional.includes('conversation')
          ? 'conversation'
          : undefined;
  return fc
    .tuple(fc.record(record, { requiredKeys: required }), fc.constantFrom(...v.conversations), fc.nat(5))
    .map(([args, conv, how]) => {
      if (nameKey) {
        delete args[nameKey];
        delete args.conversation_id;
        delete args.source;
        if (how === 0 || how === 1) {
          args[nameKey] = conv.name;
          args.source = conv.source;
        } else if (how === 2) args.conversation_id = conv.id;
        else if (how === 3 && tool !== 'get_conversation') args.source = conv.source;
        else if (tool === 'get_conversation') args.conversation_id = conv.id;
      }
      if (typeof args.start === 'string' && typeof args.end === 'string' && args.start > args.end) {
        [args.start, args.end] = [args.end, args.start];
      }
      if (tool === 'get_contact') {
        // Exactly one of contact_id / name (a conversation's name is its auto-created contact's display name).
        if (how % 2 === 0) delete args.contact_id;
        else delete args.name;
        if (args.contact_id === undefined) args.name = conv.name;
      }
      if (tool === 'get_context') {
        if (how % 2 === 0 || args.message_id === undefined) delete args.hash;
        else delete args.message_id;
        if (args.message_id === undefined && args.hash === undefined) args.message_id = v.messageIds[0];
      }
      for (const k of Object.keys(args)) if (args[k] === undefined) delete args[k];
      return { name: tool, arguments: args, flavour: 'valid' as const };
    });
}

/** A call with at least one hostile ingredient: bad values, wrong types, unknown or missing fields. */
function hostileCall(tool: ToolName, v: FuzzVocabulary): fc.Arbitrary<ToolCall> {
  const { required, optional } = TOOL_PARAMS[tool];
  const all = [...required, ...optional];
  const perParam: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of all) {
    perParam[p] = fc.oneof(
      { weight: 2, arbitrary: (VALID[p] ?? (() => fc.constant(undefined)))(v) },
      { weight: 3, arbitrary: hostileFor(p, v) },
    );
  }
  return fc
    .tuple(
      fc.record(perParam, { requiredKeys: [] }),
      fc.subarray(required),
      fc.dictionary(
        fc.oneof(fc.constantFrom(...UNKNOWN_KEYS), fc.string({ maxLength: 10 })),
        fc.oneof(wrongType, hostileString(v)),
        { maxKeys: 2 },
      ),
      fc.nat(9),
    )
    .map(([args, dropRequired, unknown, dice]) => {
      const out: Record<string, unknown> = { ...args };
      for (const r of dropRequired) delete out[r];
      if (dice < 3) {
        for (const [k, val] of Object.entries(unknown)) {
          if (k === '__proto__')
            Object.defineProperty(out, k, { value: val, enumerable: true, configurable: true, writable: true });
          else out[k] = val;
        }
      }
      return { name: tool, arguments: out, flavour: 'hostile' as const };
    });
}

/** Every tool, evenly; roughly 40% valid calls and 60% hostile ones. */
export function toolCall(v: FuzzVocabulary): fc.Arbitrary<ToolCall> {
  return fc.oneof(
    ...TOOL_NAMES.map((tool) =>
      fc.oneof({ weight: 2, arbitrary: validCall(tool, v) }, { weight: 3, arbitrary: hostileCall(tool, v) }),
    ),
  );
}

/** Arguments that are not an object at all (the SDK must still answer cleanly). */
export const nonObjectArguments: fc.Arbitrary<unknown> = fc.constantFrom(null, [], ['query'], 'query', 42, true);

/** A short, printable description of a call for failure messages (huge strings abbreviated). */
export function describeCall(c: { name: string; arguments: unknown }): string {
  return `${c.name} ${JSON.stringify(c.arguments, (_k, val: unknown) =>
    typeof val === 'string' && val.length > 80
      ? `${val.slice(0, 40)}…(${val.length} chars)`
      : typeof val === 'number' && !Number.isFinite(val)
        ? String(val)
        : val,
  )}`;
}
