import { z } from 'zod';
import { inline, MessageHitSchema, receiptLine, SearchReceiptSchema, semanticSearch as search } from '../../core';
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

const semanticSearchInput = strictInput('semantic_search', {
  query: text('query', MAX_QUERY).describe('natural-language query'),
  k: positiveInt('k')
    .optional()
    .describe('number of results in total, over every page (default 20, max 100; larger values are clamped)'),
  ...searchFiltersShape,
  cursor: cursorField('semantic_search'),
});

const semanticSearchOutput = z.object({
  hits: z.array(MessageHitSchema),
  model: z.string().describe('embedding model used'),
  receipt: SearchReceiptSchema.describe(
    'what exactly was searched: scope, messages in it, and how many of them have vectors (only those can be hits)',
  ),
  next_cursor: nextCursorField,
  notes: notesField,
});

export const semanticSearch = defineTool({
  name: 'semantic_search',
  title: 'Semantic search',
  description:
    'Pure vector (meaning-based) search over message embeddings: returns the k messages most similar in meaning to the query, ' +
    'with provenance, a citation link and the cosine similarity as score. Filterable by conversation, source, sender, date range and whether a message has an attachment or a link. ' +
    'Needs an embedding model; search_messages works without one. The receipt says what was searched (scope, messages in it, how many have vectors).' +
    PAGING_GUIDANCE +
    RESULT_GUIDANCE,
  inputSchema: semanticSearchInput,
  outputSchema: semanticSearchOutput,
  async handler(args, env) {
    const { query, hits, model, receipt, notes } = await search(args, env);
    const structured = pageByOffset(
      { tool: 'semantic_search', args, budget: env.budget, noun: 'hits', notes },
      hits.map((h) => shortenHit(h)),
      (page, p) => ({ hits: page, model, receipt, ...p }),
      shrinkMessage,
    );
    const text =
      `${hits.length} message${hits.length === 1 ? '' : 's'} closest in meaning to ${inline(query)} (model "${model}", score = cosine similarity).\n` +
      `${receiptLine(receipt)}\n${UNTRUSTED_NOTE}\n\n${renderHits(structured.hits)}${renderNotes(structured.notes)}`;
    return { structured, text, resources: messageResourceLinks(structured.hits) };
  },
});
