import { z } from 'zod';
import { inline, linkLabel, listMedia as list, MediaItemSchema } from '../../core';
import { renderNotes } from '../render';
import { pageByOffset } from '../answer-budget';
import {
  conversationScopeShape,
  cursorField,
  nextCursorField,
  notesField,
  listHasMoreField,
  listLimitField,
  strictInput,
} from '../tool-schemas';
import { defineTool, PAGING_GUIDANCE, RESULT_GUIDANCE } from '../tool';

const listMediaInput = strictInput('list_media', {
  ...conversationScopeShape,
  kind: z
    .enum(['image', 'file', 'video'], { error: 'kind must be one of "image", "file", "video" (omit it for all kinds)' })
    .optional()
    .describe('image, file or video (default: all)'),
  limit: listLimitField('items'),
  cursor: cursorField('list_media'),
});

const listMediaOutput = z.object({
  media: z.array(MediaItemSchema),
  has_more: listHasMoreField('items'),
  next_cursor: nextCursorField,
  notes: notesField,
});

export const listMedia = defineTool({
  name: 'list_media',
  title: 'List attachments',
  description:
    'List image, video or file attachments, newest first, optionally filtered by conversation, source and kind. ' +
    'Each item names the message that carries it (message_id, citation link).' +
    PAGING_GUIDANCE +
    RESULT_GUIDANCE,
  inputSchema: listMediaInput,
  outputSchema: listMediaOutput,
  async handler(args, env) {
    const { items: all, hasMore, scope, notes } = await list(args, env);
    const structured = pageByOffset(
      { tool: 'list_media', args, budget: env.budget, noun: 'attachments', notes },
      all,
      (media, p) => ({ media, has_more: p.next_cursor !== undefined || hasMore, ...p }),
    );
    const media = structured.media;
    const what = args.kind ? `${args.kind} attachments` : 'attachments';
    const lines = media.map(
      (m) =>
        `- ${m.kind} ${inline(m.name || m.path, 100)} (path ${inline(m.path, 160)}) — [${linkLabel(m.conversation, 60)} · ${linkLabel(m.timestamp, 40)}](${m.link}), ${m.source}, message_id ${m.message_id}`,
    );
    const text =
      `${media.length} ${what}${scope.conversation ? ` in ${inline(scope.conversation.name)}` : ''}${scope.source ? ` from ${scope.source}` : ''}, newest first` +
      `${hasMore ? ' (more exist beyond limit: raise it or narrow the filters)' : ''}.` +
      (lines.length ? `\n\n${lines.join('\n')}` : '') +
      renderNotes(structured.notes);
    return { structured, text };
  },
});
