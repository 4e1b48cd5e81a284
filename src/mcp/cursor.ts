import { z } from 'zod';
import { ToolError } from '../core/errors';

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

/** Encodes an opaque, URL-safe cursor string. */
export function encodeCursor(st: TranscriptCursorState): string {
  const payload = { v: 1, c: st.conversationId, t: st.tsUnix, i: st.id, s: st.startUnix, e: st.endUnix, o: st.newest ? 'n' : undefined };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): TranscriptCursorState {
  const bad = () =>
    new ToolError('cursor is not valid: pass the next_cursor value of a previous get_conversation result unchanged (or omit cursor to start from the beginning)');
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw bad();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const p = CursorSchema.safeParse(json);
  if (!p.success) throw bad();
  return { conversationId: p.data.c, tsUnix: p.data.t, id: p.data.i, startUnix: p.data.s, endUnix: p.data.e, ...(p.data.o === 'n' ? { newest: true } : {}) };
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
  return Buffer.from(JSON.stringify({ v: 1, d: st.day, c: st.conversationId, t: st.tsUnix, i: st.id }), 'utf8').toString('base64url');
}

export function decodeDayCursor(cursor: string): DayCursorState {
  const bad = () => new ToolError('cursor is not valid: pass the next_cursor value of a previous get_journal_day result unchanged (or omit cursor to start with the day\'s first message)');
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw bad();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const p = DayCursorSchema.safeParse(json);
  if (!p.success) throw bad();
  return { day: p.data.d, conversationId: p.data.c, tsUnix: p.data.t, id: p.data.i };
}
