import { z } from 'zod';
import { type ContextAnswer, inline, MessageHitSchema, messageResourceUri, readContext } from '../../core';
import { budgetLabel, fitPage, paging, shortenHit, shrinkMessage } from '../answer-budget';
import { encodeCursor } from '../cursor';
import { conversationResourceLink, messageResourceLinks, renderHits, renderNotes, UNTRUSTED_NOTE } from '../render';
import { defineTool, RESULT_GUIDANCE } from '../tool';
import { notesField, positiveInt, strictInput, text } from '../tool-schemas';

const getContextInput = strictInput('get_context', {
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

const getContextOutput = z.object({
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
    const answer = await readContext(args, env);
    const { target } = answer;
    const structured = centredPage(answer, env.budget);
    const messages = structured.messages;
    const text =
      `${messages.length} message${messages.length === 1 ? '' : 's'} around message_id ${target.id} in ${inline(target.conversation)} ` +
      `(${target.source}, conversation_id ${target.conversationId}), oldest first; the target is marked →.\n${UNTRUSTED_NOTE}\n\n` +
      renderHits(messages, { numbered: false, targetId: target.id }) +
      renderNotes(structured.notes);
    const shownTarget = messages.find((m) => m.message_id === target.id);
    // No message resource link (it would be this very result again), except for a target no answer can hold whole.
    return {
      structured,
      text,
      resources: [
        conversationResourceLink({ id: target.conversationId, name: target.conversation, source: target.source }),
        ...(shownTarget?.text_length !== undefined
          ? [{ ...messageResourceLinks([shownTarget])[0], annotations: undefined }]
          : []),
      ],
    };
  },
});

type ContextPage = z.output<typeof getContextOutput>;

/** The window within the budget, filled outward from the target so that a cut window stays centred. */
function centredPage({ target, rows, hits, notes }: ContextAnswer, budget: number): ContextPage {
  const found = rows.findIndex((m) => m.id === target.id);
  const at = Math.max(0, found);
  const outward = [
    at,
    ...Array.from({ length: 2 * rows.length }, (_, i) => (i % 2 ? at + (i + 1) / 2 : at - (i + 2) / 2)),
  ].filter((i) => i >= 0 && i < rows.length);
  const order = outward.map((i) => (i === at ? hits[i] : shortenHit(hits[i])));
  // A target longer than a whole answer is read whole in its resource: room is left for the note.
  const wholeAt = messageResourceUri(target.id, target.hash);
  const cursor = (i: number, newest?: boolean) =>
    encodeCursor({ conversationId: target.conversationId, tsUnix: rows[i].tsUnix, id: rows[i].id, newest });
  const build = (k: number, oversize: string[]): ContextPage => {
    const shown = outward.slice(0, k);
    const lo = Math.min(...shown, at);
    const hi = Math.max(...shown, at);
    const cut =
      k < rows.length
        ? [
            `${k} of the ${rows.length} messages of the window are shown, centred on the target (the answer budget is ${budgetLabel(budget)}): earlier_cursor and later_cursor read on with get_conversation`,
          ]
        : [];
    if (k > 0 && order[0].text_length !== undefined)
      cut.push(`the message is longer than a whole answer; its whole text is the resource ${wholeAt}`);
    return {
      message_id: target.id,
      hash: target.hash,
      conversation: target.conversation,
      conversation_id: target.conversationId,
      source: target.source,
      messages: [...shown.keys()].sort((x, y) => shown[x] - shown[y]).map((j) => order[j]),
      ...(lo > 0 ? { earlier_cursor: cursor(lo, true) } : {}),
      ...(hi < rows.length - 1 ? { later_cursor: cursor(hi) } : {}),
      ...paging(undefined, notes, cut, oversize),
    };
  };
  return fitPage(order, budget, build, (h, room) =>
    shrinkMessage(h, room - 200, `the resource ${wholeAt} holds it whole`),
  );
}
