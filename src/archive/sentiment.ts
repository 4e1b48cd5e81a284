/**
 * The one way to read msgbrowse's sentiment scores (schema v17+). `contact_sentiment_optout` is a privacy promise:
 * a person who opted out is never scored, nor shown scored. msgbrowse deletes their scores when they opt out; rows
 * left beside the marker (an older build's scoring run in flight, a hand-edited copy) are filtered out here too.
 * Nothing we serve reads sentiment today; test/archive/sentiment.test.ts fails on any other query of the table.
 */
import type { Columns, SchemaInfo } from './schema';

/** What a reader needs: the scores and the opt-outs (without the second, no score may be read). */
export const SENTIMENT_TABLES: Readonly<Record<string, Columns>> = {
  message_sentiment: {
    message_hash: 'TEXT',
    model: 'TEXT',
    lexicon_version: 'TEXT',
    construct: 'TEXT',
    score: 'REAL',
    ts_unix: 'INTEGER',
    contact_id: 'INTEGER',
  },
  contact_sentiment_optout: { contact_id: 'INTEGER' },
};

/**
 * A FROM-able subquery of `message_sentiment`'s rows without those of opted-out contacts, or undefined when the
 * archive has no sentiment (or lacks the opt-out table: then no score may be read at all).
 */
export function sentimentRows(schema: SchemaInfo): string | undefined {
  if (!schema.sentiment) return undefined;
  return `(SELECT s.message_hash, s.model, s.lexicon_version, s.construct, s.score, s.ts_unix, s.contact_id
     FROM message_sentiment s
     WHERE NOT EXISTS (SELECT 1 FROM contact_sentiment_optout o WHERE o.contact_id = s.contact_id))`;
}
