import { z } from 'zod';
import { ToolError } from '../core';

/** What a `get_conversation` cursor carries: the conversation, the bounds, and the last (ts_unix, id) returned. */
export interface TranscriptCursorState {
  conversationId: number;
  tsUnix: number;
  id: number;
  startUnix?: number;
  endUnix?: number;
  /** Issued for order "newest": the next page holds the messages strictly before (ts_unix, id). */
  newest?: boolean;
}

const CursorSchema = z.strictObject({
  v: z.literal(1),
  c: z.number().int().positive(),
  t: z.number().int(),
  i: z.number().int().positive(),
  s: z.number().int().optional(),
  e: z.number().int().optional(),
  o: z.literal('n').optional(),
});

/** An opaque, URL-safe cursor string for a payload. */
function encodeOpaque(payload: object): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The payload of a cursor made by encodeOpaque, checked against `schema`; anything else throws `invalid`. */
function decodeOpaque<T>(cursor: string, schema: z.ZodType<T>, invalid: string): T {
  const bad = () => new ToolError(invalid);
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw bad();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const p = schema.safeParse(json);
  if (!p.success) throw bad();
  return p.data;
}

/** Encodes an opaque, URL-safe cursor string. */
export function encodeCursor(st: TranscriptCursorState): string {
  return encodeOpaque({
    v: 1,
    c: st.conversationId,
    t: st.tsUnix,
    i: st.id,
    s: st.startUnix,
    e: st.endUnix,
    o: st.newest ? 'n' : undefined,
  });
}

export function decodeCursor(cursor: string): TranscriptCursorState {
  const d = decodeOpaque(
    cursor,
    CursorSchema,
    'cursor is not valid: pass the next_cursor value of a previous get_conversation result unchanged (or omit cursor to start from the beginning)',
  );
  return {
    conversationId: d.c,
    tsUnix: d.t,
    id: d.i,
    startUnix: d.s,
    endUnix: d.e,
    ...(d.o === 'n' ? { newest: true } : {}),
  };
}

/** What a `get_journal_day` cursor carries: the day and the last (conversation_id, ts_unix, id) returned. */
export interface DayCursorState {
  day: string;
  conversationId: number;
  tsUnix: number;
  id: number;
}

const DayCursorSchema = z.strictObject({
  v: z.literal(1),
  d: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  c: z.number().int().positive(),
  t: z.number().int(),
  i: z.number().int().positive(),
});

export function encodeDayCursor(st: DayCursorState): string {
  return encodeOpaque({ v: 1, d: st.day, c: st.conversationId, t: st.tsUnix, i: st.id });
}

export function decodeDayCursor(cursor: string): DayCursorState {
  const d = decodeOpaque(
    cursor,
    DayCursorSchema,
    "cursor is not valid: pass the next_cursor value of a previous get_journal_day result unchanged (or omit cursor to start with the day's first message)",
  );
  return { day: d.d, conversationId: d.c, tsUnix: d.t, id: d.i };
}
