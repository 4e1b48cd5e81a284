/** People as served: contacts with links, and their facts with the cited message found by hash (null when gone). */
import type { AsyncArchive, ContactRow } from '../archive/types';
import { conversationLink } from './citation-format';
import type { CitationFormat } from './context';
import { content, hitFromMessage } from './hits';
import { withHitExtras } from './hit-extras';
import type { ContactFact, ContactInfo } from './results';

export async function contactInfos(
  fmt: CitationFormat,
  archive: AsyncArchive,
  rows: ContactRow[],
  signal?: AbortSignal,
): Promise<ContactInfo[]> {
  if (!rows.length) return [];
  const convs = new Map((await archive.listConversations(undefined, signal)).map((c) => [c.id, c]));
  const convLink = (id: number) => conversationLink(fmt, id);
  return rows.map((r) => ({
    contact_id: r.id,
    name: r.name,
    identifiers: r.identifiers.map((i) => ({ ...i })),
    conversations: r.conversationIds
      .map((id) => convs.get(id))
      .filter((c) => c !== undefined)
      .map((c) => ({ id: c.id, name: c.name, source: c.source, message_count: c.messageCount, link: convLink(c.id) })),
    fact_count: r.factCount,
  }));
}

export async function contactFacts(
  fmt: CitationFormat,
  archive: AsyncArchive,
  contactId: number,
  redact: boolean,
  signal?: AbortSignal,
): Promise<{ facts: ContactFact[]; missing: number }> {
  const rows = await archive.contactFacts(contactId, signal);
  const facts: ContactFact[] = rows.map((f) => ({
    fact: content(f.fact, redact),
    category: f.category,
    source_ts: f.sourceTs,
    message: f.message ? hitFromMessage(fmt, f.message, undefined, redact) : null,
  }));
  const hits = facts.flatMap((f) => (f.message ? [f.message] : []));
  await withHitExtras(archive, hits, redact, signal);
  return { facts, missing: facts.filter((f) => f.message === null).length };
}
