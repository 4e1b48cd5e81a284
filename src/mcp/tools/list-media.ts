import { z } from 'zod';
import {
  ATTACHMENT_KINDS,
  type AttachmentKind,
  content,
  inline,
  linkLabel,
  messageLink,
  redactsFor,
  clampLimit,
  resolveScope,
} from '../../core';
import { renderNotes } from '../render';
import { pageByOffset } from '../answer-budget';
import {
  conversationScopeShape,
  cursorField,
  MediaItemSchema,
  nextCursorField,
  notesField,
  positiveInt,
  strictInput,
} from '../tool-schemas';
import { defineTool, PAGING_GUIDANCE, RESULT_GUIDANCE } from '../tool';

export const MEDIA_DEFAULT_LIMIT = 200;
export const MEDIA_MAX_LIMIT = 1000;

export const listMediaInput = strictInput('list_media', {
  ...conversationScopeShape,
  kind: z
    .enum(['image', 'file', 'video'], { error: 'kind must be one of "image", "file", "video" (omit it for all kinds)' })
    .optional()
    .describe('image, file or video (default: all)'),
  limit: positiveInt('limit')
    .optional()
    .describe('max items in total, over every page (default 200, max 1000; larger values are clamped)'),
  cursor: cursorField('list_media'),
});

export const listMediaOutput = z.object({
  media: z.array(MediaItemSchema),
  has_more: z
    .boolean()
    .describe(
      'more items match than this page holds: next_cursor reads on up to limit; beyond it, raise limit or narrow the filters',
    ),
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
    const notes: string[] = [];
    const limit = clampLimit('limit', args.limit, MEDIA_DEFAULT_LIMIT, MEDIA_MAX_LIMIT, notes);
    const archive = await env.archive();
    const scope = await resolveScope(archive, args, env.signal, env.choose);
    const kinds: AttachmentKind[] = args.kind ? [args.kind] : [...ATTACHMENT_KINDS];
    const res = await archive.attachments(
      { kinds, conversationId: scope.conversation?.id, source: scope.source, limit },
      env.signal,
    );
    const fmt = env.ctx.citation;
    // File names (and the paths that carry them) are message content: redacted like bodies.
    const redact = redactsFor(env.ctx);
    const all = res.items.map((a) => ({
      conversation: a.conversation,
      conversation_id: a.conversationId,
      source: a.source,
      kind: a.kind,
      name: content(a.originalName, redact),
      path: content(a.relPath, redact),
      timestamp: a.ts,
      message_id: a.messageId,
      link: messageLink(fmt, a.conversationId, a.messageId, a.messageHash),
    }));
    const { result: structured } = pageByOffset(
      { tool: 'list_media', args, budget: env.budget, noun: 'attachments' },
      all,
      (media, page) => ({
        media,
        has_more: page.next_cursor !== undefined || res.hasMore,
        ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}),
        ...(notes.length || page.notes.length ? { notes: [...notes, ...page.notes] } : {}),
      }),
    );
    const media = structured.media;
    const what = args.kind ? `${args.kind} attachments` : 'attachments';
    const lines = media.map(
      (m) =>
        `- ${m.kind} ${inline(m.name || m.path, 100)} (path ${inline(m.path, 160)}) — [${linkLabel(m.conversation, 60)} · ${linkLabel(m.timestamp, 40)}](${m.link}), ${m.source}, message_id ${m.message_id}`,
    );
    const text =
      `${media.length} ${what}${scope.conversation ? ` in ${inline(scope.conversation.name)}` : ''}${scope.source ? ` from ${scope.source}` : ''}, newest first` +
      `${res.hasMore ? ' (more exist beyond limit: raise it or narrow the filters)' : ''}.` +
      (lines.length ? `\n\n${lines.join('\n')}` : '') +
      renderNotes(structured.notes);
    return { structured, text };
  },
});
