/** What a person is told about an archive newer than this build was tested with: a notice, never a tool error. */
import { TESTED_SCHEMA_VERSION, type ArchiveParts } from '../archive/index';

export function schemaNotice(version: number): string | undefined {
  if (version <= TESTED_SCHEMA_VERSION) return undefined;
  return `schema v${version} — newer than v${TESTED_SCHEMA_VERSION}, the newest this version was tested with; reading the tables it knows`;
}

const PART_LABELS: Record<keyof ArchiveParts, string> = {
  people: 'contacts (search_contacts and get_contact say so)',
  facts: 'contact facts (get_contact says so)',
  reactions: 'reactions',
  embeddings: 'embeddings (semantic search says so)',
  digests: 'journal digests (get_journal_day says so)',
};

/** The optional parts an archive lacks, for a person: what is missing and which tools tell the model. */
export function missingParts(parts: ArchiveParts): string[] {
  return (Object.keys(PART_LABELS) as (keyof ArchiveParts)[]).filter((k) => !parts[k]).map((k) => PART_LABELS[k]);
}
