import { z } from 'zod';
import {
  inline,
  MessageHitSchema,
  receiptLine,
  SearchReceiptSchema,
  SemanticStatusSchema,
  searchMessages as search,
} from '../../core';
import { pageByOffset, shortenHit, shrinkMessage } from '../answer-budget';
import { messageResourceLinks, renderHits, renderNotes, UNTRUSTED_NOTE } from '../render';
import { defineTool, PAGING_GUIDANCE, RESULT_GUIDANCE } from '../tool';
import {
  cursorField,
  MAX_QUERY,
  nextCursorField,
  notesField,
  positiveInt,
  searchFiltersShape,
  strictInput,
  text,
} from '../tool-schemas';

const searchMessagesInput = strictInput('search_messages', {
  query: text('query', MAX_QUERY).describe(
    'search query: every word must occur (as a word prefix) for a keyword match',
  ),
  ...searchFiltersShape,
  limit: positiveInt('limit')
    .optional()
    .describe('max results in total, over every page (default 20, max 100; larger values are clamped)'),
  cursor: cursorField('search_messages'),
});

const searchMessagesOutput = z.object({
  hits: z.array(MessageHitSchema),
  semantic: SemanticStatusSchema.describe('whether the semantic (meaning-based) half contributed, and why not'),
  receipt: SearchReceiptSchema.describe(
    'what exactly was searched: scope, messages in it, vector coverage, how the query was read',
  ),
  next_cursor: nextCursorField,
  notes: notesField,
});

export const searchMessages = defineTool({
  name: 'search_messages',
  title: 'Search messages',
  description:
    'Hybrid keyword + semantic search across all messages. Returns ranked snippets with exact provenance (conversation, conversation_id, source, sender, timestamp, message_id, hash) and a citation link. ' +
    'Filterable by conversation, sender, source, date range and whether a message has an attachment or a link. Keyword matching: every word is required, as a prefix (at most 32 distinct words). ' +
    'The receipt says what was searched (scope, messages in it, how many have vectors, the words used), so an empty result can be told from an unsearched one. ' +
    'Use get_context on a hit to read the surrounding messages.' +
    PAGING_GUIDANCE +
    RESULT_GUIDANCE,
  inputSchema: searchMessagesInput,
  outputSchema: searchMessagesOutput,
  async handler(args, env) {
    const { query, hits, semantic, receipt, notes, warning } = await search(args, env);
    if (warning) env.warn(`semantic half of search_messages failed; returned keyword results only: ${warning}`);
    const structured = pageByOffset(
      {
        tool: 'search_messages',
        args,
        budget: env.budget,
        noun: 'hits',
        notes,
        // Keyword-only and hybrid rank differently: a walk that began on one and goes on with the other says so.
        basis: {
          value: semantic.used ? semantic.model : null,
          changed: semantic.used
            ? 'the semantic half of the search is in use since the previous page'
            : `the semantic half of the search is off since the previous page (${semantic.reason})`,
        },
      },
      hits.map((h) => shortenHit(h)),
      (page, p) => ({ hits: page, semantic, receipt, ...p }),
      shrinkMessage,
    );
    const mode = semantic.used
      ? `hybrid: keyword + semantic (model "${semantic.model}")`
      : `keyword only — semantic half unavailable: ${semantic.reason}`;
    const text =
      `${hits.length} hit${hits.length === 1 ? '' : 's'} for ${inline(query)} (${mode}), ranked by reciprocal-rank fusion; matches are in **bold**.\n` +
      `${receiptLine(receipt)}\n${UNTRUSTED_NOTE}\n\n${renderHits(structured.hits)}${renderNotes(structured.notes)}`;
    return { structured, text, resources: messageResourceLinks(structured.hits) };
  },
});
