import { z } from 'zod';
import {
  hitFromMessage,
  inline,
  messageResourceUri,
  type MessageRow,
  redactsFor,
  resolveCitation,
  ToolError,
  withHitExtras,
} from '../../core';
import { clampLimit } from '../limits';
import { conversationResourceLink, messageResourceLinks, renderHits, renderNotes, UNTRUSTED_NOTE } from '../render';
import { MessageHitSchema, notesField, positiveInt, strictInput, text } from '../tool-schemas';
import { budgetLabel, fitPage, OVERSIZE_NOTE, shortenHit, shrinkMessage } from '../answer-budget';
import { encodeCursor } from '../cursor';
import { defineTool, RESULT_GUIDANCE } from '../tool';

export const CONTEXT_DEFAULT_WINDOW = 5;
export const CONTEXT_MAX_WINDOW = 50;

export const getContextInput = strictInput('get_context', {
  message_id: positiveInt('message_id').optional().describe('the message id to center on (from a search hit)'),
  hash: text('hash', 128)
    .optional()
    .describe(
      'the stable message hash to center on (survives re-imports): the full 64-hex hash alone, or with message_id the hash or the h= prefix of its citation link, ' +
        'which is checked: if message_id now holds another message, the hash is followed to the cited message (see notes); if the hash is gone, an error',
    ),
  window: z
    .number({ error: 'window must be an integer' })
    .int({ error: 'window must be an integer' })
    .min(0, { error: 'window must be 0 or more' })
    .optional()
    .describe('messages on each side (default 5, max 50; larger values are clamped)'),
});

export const getContextOutput = z.object({
  message_id: z.number().int().describe('the target message'),
  hash: z.string(),
  conversation: z.string(),
  conversation_id: z.number().int(),
  source: z.string(),
  messages: z.array(MessageHitSchema),
  earlier_cursor: z
    .string()
    .optional()
    .describe(
      'present when the window did not fit the answer: pass it as cursor to get_conversation to read the messages before the first shown (newest first)',
    ),
  later_cursor: z
    .string()
    .optional()
    .describe(
      'present when the window did not fit the answer: pass it as cursor to get_conversation to read the messages after the last shown',
    ),
  notes: notesField,
});

export const getContext = defineTool({
  name: 'get_context',
  title: 'Read around a message',
  description:
    'Return the messages surrounding a given message (window on each side, chronological, same conversation) for assembling context around a search hit. ' +
    'Identify the message by message_id or by its stable hash; pass both (or message_id and the h= of a citation link) to follow a message that moved after a re-import. ' +
    'The target message is shown whole; a window larger than the answer stays centred on it, with earlier_cursor and later_cursor to read on with get_conversation.' +
    RESULT_GUIDANCE,
  inputSchema: getContextInput,
  outputSchema: getContextOutput,
  async handler(args, env) {
    const notes: string[] = [];
    const window = clampLimit('window', args.window, CONTEXT_DEFAULT_WINDOW, CONTEXT_MAX_WINDOW, notes);
    const hash = args.hash?.trim().toLowerCase();
    if (args.message_id === undefined && !hash)
      throw new ToolError('message_id or hash is required (take them from a search hit)');
    if (hash !== undefined && args.message_id === undefined && !/^[0-9a-f]{64}$/.test(hash)) {
      throw new ToolError(
        `hash must be the 64-character hex hash of a message as returned in results, got ${inline(args.hash ?? '', 80)}`,
      );
    }
    if (hash !== undefined && args.message_id !== undefined && !/^[0-9a-f]{4,64}$/.test(hash)) {
      throw new ToolError(
        `hash must be the message's hex hash or the h= prefix of its link (4–64 hex digits), got ${inline(args.hash ?? '', 80)}`,
      );
    }
    const archive = await env.archive();
    let target: MessageRow;
    if (args.message_id !== undefined) {
      // message_id + hash is a citation: resolved as links are, never to another message than the hash names.
      const r = await resolveCitation(archive, { messageId: args.message_id, hash }, env.signal);
      if (r.status === 'gone') {
        throw new ToolError(
          hash
            ? `${r.note} — search again to find it`
            : `message ${args.message_id} not found — message ids change when a conversation is re-imported; pass the hash from the hit instead, or search again`,
        );
      }
      target = r.message;
      if (r.status === 'moved') notes.push(r.note);
    } else {
      const m = await archive.messageByHash(hash!, env.signal);
      if (!m) throw new ToolError(`no message with hash ${hash} in this archive — search again to find it`);
      target = m;
    }
    const rows = (await archive.context(target.id, window, env.signal)) ?? [target];
    const fmt = env.ctx.citation;
    const redact = redactsFor(env.ctx);
    const hits = await withHitExtras(
      archive,
      rows.map((m) =>
        m.id === target.id
          ? hitFromMessage(fmt, m, undefined, redact)
          : shortenHit(hitFromMessage(fmt, m, undefined, redact)),
      ),
      redact,
      env.signal,
    );
    // Filled outward from the target (then one before, one after, …), so a window the budget cuts stays centred.
    const at = Math.max(
      0,
      rows.findIndex((m) => m.id === target.id),
    );
    const outward = [
      at,
      ...Array.from({ length: 2 * rows.length }, (_, i) => (i % 2 ? at + (i + 1) / 2 : at - (i + 2) / 2)),
    ].filter((i) => i >= 0 && i < rows.length);
    const order = outward.map((i) => hits[i]);
    let oversized = false;
    const build = (k: number) => {
      const shown = outward.slice(0, k);
      const lo = Math.min(...shown, at);
      const hi = Math.max(...shown, at);
      const cursors = {
        ...(lo > 0
          ? {
              earlier_cursor: encodeCursor({
                conversationId: target.conversationId,
                tsUnix: rows[lo].tsUnix,
                id: rows[lo].id,
                newest: true,
              }),
            }
          : {}),
        ...(hi < rows.length - 1
          ? {
              later_cursor: encodeCursor({
                conversationId: target.conversationId,
                tsUnix: rows[hi].tsUnix,
                id: rows[hi].id,
              }),
            }
          : {}),
      };
      const cut =
        k < rows.length
          ? [
              `${k} of the ${rows.length} messages of the window are shown, centred on the target (the answer budget is ${budgetLabel(env.budget)}): earlier_cursor and later_cursor read on with get_conversation`,
            ]
          : [];
      if (k > 0 && order[0].text_length !== undefined)
        cut.push(`the message is longer than a whole answer; its whole text is the resource ${wholeAt}`);
      if (oversized) cut.push(OVERSIZE_NOTE);
      return {
        message_id: target.id,
        hash: target.hash,
        conversation: target.conversation,
        conversation_id: target.conversationId,
        source: target.source,
        messages: shown
          .map((i, j) => [i, order[j]] as const)
          .sort((x, y) => x[0] - y[0])
          .map(([, h]) => h),
        ...cursors,
        ...(notes.length || cut.length ? { notes: [...notes, ...cut] } : {}),
      };
    };
    // A target longer than a whole answer is read whole in its resource (linked below): room is left for the note.
    const wholeAt = messageResourceUri(target.id, target.hash);
    const fit = fitPage(order, env.budget, build, (h, room) =>
      shrinkMessage(h, room - 200, `the resource ${wholeAt} holds it whole`),
    );
    oversized = fit.oversized;
    const structured = build(fit.kept);
    const targetCut = structured.messages.find((m) => m.message_id === target.id)?.text_length !== undefined;
    const messages = structured.messages;
    const text =
      `${messages.length} message${messages.length === 1 ? '' : 's'} around message_id ${target.id} in ${inline(target.conversation)} ` +
      `(${target.source}, conversation_id ${target.conversationId}), oldest first; the target is marked →.\n${UNTRUSTED_NOTE}\n\n` +
      renderHits(messages, { numbered: false, targetId: target.id }) +
      renderNotes(structured.notes);
    // No message resource link: it would be this very result again (see the payload policy in render.ts).
    return {
      structured,
      text,
      resources: [
        conversationResourceLink({ id: target.conversationId, name: target.conversation, source: target.source }),
        // The whole of a message no answer can hold: for the model (no user-only audience), to read on.
        ...(targetCut
          ? [
              {
                ...messageResourceLinks([structured.messages.find((m) => m.message_id === target.id)!])[0],
                annotations: undefined,
              },
            ]
          : []),
      ],
    };
  },
});
