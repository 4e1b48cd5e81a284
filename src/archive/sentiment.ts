/** The one reader of sentiment scores (v17+): never of a person who opted out (its test fails on any other reader). */
import type { Columns, SchemaInfo } from './schema';

/** Without the opt-outs, no score may be read. */
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

/** A FROM-able subquery of the scores without those of opted-out contacts; undefined without sentiment tables. */
export function sentimentRows(schema: SchemaInfo): string | undefined {
  if (!schema.sentiment) return undefined;
  return `(SELECT s.message_hash, s.model, s.lexicon_version, s.construct, s.score, s.ts_unix, s.contact_id
     FROM message_sentiment s
     WHERE NOT EXISTS (SELECT 1 FROM contact_sentiment_optout o WHERE o.contact_id = s.contact_id))`;
}
