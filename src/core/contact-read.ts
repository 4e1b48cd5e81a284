/** The people tools' reads: contacts found by part of a name or identifier, and one person with their cited facts. */
import type { ArchiveParts, AsyncArchive, ContactRow } from '../archive/types';
import { conversationLink } from './citation-format';
import type { CitationFormat } from './context';
import { ToolError } from './errors';
import { content, hitFromMessage, redactsFor } from './hits';
import { withHitExtras } from './hit-extras';
import type { ContactFact, ContactInfo } from './results';
import type { CallEnv } from './message-search';

const SEARCH_CONTACTS_MAX = 50;

/** The archive's parts, or one line saying it keeps no people (before schema v2). */
async function requirePeople(archive: AsyncArchive, signal: AbortSignal): Promise<ArchiveParts> {
  const { parts, schemaVersion } = await archive.summary(signal);
  if (!parts.people)
    throw new ToolError(
      'this archive keeps no people: it has no contacts and contact_identifiers tables (msgbrowse writes them since schema v2)' +
        (schemaVersion < 2 ? ' — update msgbrowse and re-import to get them' : '') +
        '; the message tools work without them',
    );
  return parts;
}

/** search_contacts: exact name matches first, then names starting with the query, then the rest. */
export async function findContacts(
  args: { query: string },
  env: CallEnv,
): Promise<{ query: string; contacts: ContactInfo[]; notes: string[] }> {
  const notes: string[] = [];
  const query = args.query.trim();
  if (query === '') throw new ToolError('query is empty: give part of a name or identifier');
  const archive = await env.archive();
  await requirePeople(archive, env.signal);
  const found = await archive.searchContacts(query, SEARCH_CONTACTS_MAX, env.signal);
  const contacts = await contactInfos(env.ctx.citation, archive, found.items, env.signal);
  if (found.total > contacts.length)
    notes.push(`${found.total} contacts match; the first ${contacts.length} are listed — refine the query`);
  if (!contacts.length)
    notes.push(
      `no contact's name or identifier contains ${JSON.stringify(query)} (case and accents ignored); list_conversations shows every conversation name`,
    );
  return { query, contacts, notes };
}

/** get_contact: one person by contact_id or by display name (one line naming the candidates when several match). */
export async function readContact(args: { contact_id?: number; name?: string }, env: CallEnv) {
  const notes: string[] = [];
  const name = args.name?.trim();
  if ((args.contact_id === undefined) === (name === undefined || name === ''))
    throw new ToolError('give exactly one of contact_id or name — search_contacts finds both');
  const archive = await env.archive();
  const parts = await requirePeople(archive, env.signal);
  const row =
    args.contact_id !== undefined
      ? await archive.contactById(args.contact_id, env.signal)
      : await contactNamed(archive, name!, env.signal);
  if (!row) throw new ToolError(`no contact with contact_id ${args.contact_id} — use search_contacts to find people`);
  const [contact] = await contactInfos(env.ctx.citation, archive, [row], env.signal);
  const redact = redactsFor(env.ctx);
  const facts: ContactFact[] = (await archive.contactFacts(row.id, env.signal)).map((f) => ({
    fact: content(f.fact, redact),
    category: f.category,
    source_ts: f.sourceTs,
    message: f.message ? hitFromMessage(env.ctx.citation, f.message, undefined, redact) : null,
  }));
  const cited = facts.flatMap((f) => (f.message ? [f.message] : []));
  await withHitExtras(archive, cited, redact, env.signal);
  const missing = facts.filter((f) => f.message === null).length;
  if (!parts.facts)
    notes.push(
      'this archive keeps no facts: it has no contact_facts table (msgbrowse writes it since schema v4; its `facts` command fills it)',
    );
  else if (!facts.length) notes.push('msgbrowse has extracted no facts about this person (its `facts` command does)');
  if (missing > 0)
    notes.push(
      `${missing} fact${missing === 1 ? ' cites a message' : 's cite messages'} no longer in the archive (re-imported or deleted): message is null — treat ${missing === 1 ? 'it' : 'them'} as unverified`,
    );
  return { contact, facts, notes };
}

/** The one contact with this display name; several or none is one line naming the candidates. */
async function contactNamed(archive: AsyncArchive, name: string, signal: AbortSignal): Promise<ContactRow> {
  const named = await archive.contactsNamed(name, signal);
  if (named.length > 1) {
    const ids = (c: ContactRow) =>
      c.identifiers.map((i) => `${i.source}: ${i.identifier}`).join(', ') || 'no identifiers';
    const list = named.slice(0, 10).map((c) => `contact_id ${c.id} (${ids(c)})`);
    throw new ToolError(
      `${named.length} contacts are named ${JSON.stringify(name)}: ${list.join('; ')} — pass contact_id`,
    );
  }
  if (named[0]) return named[0];
  const close = (await archive.searchContacts(name, 5, signal)).items.map(
    (c) => `${JSON.stringify(c.name)} (contact_id ${c.id})`,
  );
  throw new ToolError(
    `no contact is named ${JSON.stringify(name)}` +
      (close.length ? `; names containing it: ${close.join(', ')}` : ' — use search_contacts with part of the name'),
  );
}

async function contactInfos(
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
