/** Opaque, URL-safe cursors: get_conversation's and get_journal_day's keyset positions (and answer-budget's offsets). */
import { z } from 'zod';
import { type DayPosition, ToolError, type TranscriptPosition } from '../core';

const CursorSchema = z.strictObject({
  v: z.literal(1),
  c: z.number().int().positive(),
  t: z.number().int(),
  i: z.number().int().positive(),
  s: z.number().int().optional(),
  e: z.number().int().optional(),
  o: z.literal('n').optional(),
});

const DayCursorSchema = z.strictObject({
  v: z.literal(1),
  d: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  c: z.number().int().positive(),
  t: z.number().int(),
  i: z.number().int().positive(),
});

export function encodeOpaque(payload: object): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The payload of a cursor made by encodeOpaque, checked against `schema`; anything else throws `invalid`. */
export function decodeOpaque<T>(cursor: string, schema: z.ZodType<T>, invalid: string): T {
  let json: unknown;
  try {
    if (/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) json = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // Not JSON: the schema refuses it below.
  }
  const p = schema.safeParse(json);
  if (!p.success) throw new ToolError(invalid);
  return p.data;
}

export function encodeCursor(st: TranscriptPosition): string {
  const { conversationId: c, tsUnix: t, id: i, startUnix: s, endUnix: e, newest } = st;
  return encodeOpaque({ v: 1, c, t, i, s, e, o: newest ? 'n' : undefined });
}

export function decodeCursor(cursor: string): TranscriptPosition {
  const invalid =
    'cursor is not valid: pass the next_cursor value of a previous get_conversation result unchanged (or omit cursor to start from the beginning)';
  const d = decodeOpaque(cursor, CursorSchema, invalid);
  return { conversationId: d.c, tsUnix: d.t, id: d.i, startUnix: d.s, endUnix: d.e, ...(d.o ? { newest: true } : {}) };
}

export function encodeDayCursor(st: DayPosition): string {
  return encodeOpaque({ v: 1, d: st.day, c: st.conversationId, t: st.tsUnix, i: st.id });
}

export function decodeDayCursor(cursor: string): DayPosition {
  const d = decodeOpaque(
    cursor,
    DayCursorSchema,
    "cursor is not valid: pass the next_cursor value of a previous get_journal_day result unchanged (or omit cursor to start with the day's first message)",
  );
  return { day: d.d, conversationId: d.c, tsUnix: d.t, id: d.i };
}
