/** get_context's read: the target (by id, hash or both, resolved as a citation) and the window around it. */
import type { MessageRow } from '../archive/types';
import { ToolError } from './errors';
import { knownExtras, messageHits } from './hit-extras';
import { clampLimit } from './request';
import { decideCitation } from './citation-resolve';
import type { CallEnv } from './message-search';
import { inline } from './text';

const CONTEXT_DEFAULT_WINDOW = 5;
const CONTEXT_MAX_WINDOW = 50;

export type ContextAnswer = Awaited<ReturnType<typeof readContext>>;

export async function readContext(args: { message_id?: number; hash?: string; window?: number }, env: CallEnv) {
  const notes: string[] = [];
  const window = clampLimit('window', args.window, CONTEXT_DEFAULT_WINDOW, CONTEXT_MAX_WINDOW, notes);
  const hash = args.hash?.trim().toLowerCase();
  if (args.message_id === undefined && !hash)
    throw new ToolError('message_id or hash is required (take them from a search hit)');
  if (hash !== undefined && args.message_id === undefined && !/^[0-9a-f]{64}$/.test(hash))
    throw new ToolError(
      `hash must be the 64-character hex hash of a message as returned in results, got ${inline(args.hash ?? '', 80)}`,
    );
  if (hash !== undefined && args.message_id !== undefined && !/^[0-9a-f]{4,64}$/.test(hash))
    throw new ToolError(
      `hash must be the message's hex hash or the h= prefix of its link (4–64 hex digits), got ${inline(args.hash ?? '', 80)}`,
    );
  const archive = await env.archive();
  // One snapshot and one round trip: the target as cited, its window and the window's extras.
  const view = await archive.contextView({ messageId: args.message_id, hash, window }, env.signal);
  let target: MessageRow;
  if (args.message_id !== undefined) {
    // message_id + hash is a citation: resolved as links are, never to another message than the hash names.
    const r = decideCitation({ messageId: args.message_id, hash }, view.atId, view.byHash);
    if (r.status === 'gone')
      throw new ToolError(
        hash
          ? `${r.note} — search again to find it`
          : `message ${args.message_id} not found — message ids change when a conversation is re-imported; pass the hash from the hit instead, or search again`,
      );
    target = r.message;
    if (r.status === 'moved') notes.push(r.note);
  } else {
    const m = view.byHash[0];
    if (!m) throw new ToolError(`no message with hash ${hash} in this archive — search again to find it`);
    target = m;
  }
  const rows = view.rows ?? [target];
  const extras = view.extras ?? { reactions: [], attachments: [] };
  const known = knownExtras([{ hashes: rows.map((r) => r.hash), ids: rows.map((r) => r.id), rows: extras }]);
  return { target, rows, hits: await messageHits(env.ctx, archive, rows, env.signal, known), notes };
}
