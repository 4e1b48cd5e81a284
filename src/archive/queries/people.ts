/** Contacts (v2+) with identifiers, conversations and cited facts (v4+), as if hidden conversations were not there. */
import { mapRows, type Sql } from '../connection';
import type { SchemaInfo } from '../schema';
import type { ContactFactRow, ContactRow, ConversationRow } from '../types';
import { nameKey } from './conversations';
import { jsonList, messageColumns, num, readMessage, str } from './rows';

interface PeopleData {
  contacts: ContactRow[];
  /** nameKey of the name and of every identifier, in the order of `contacts`. */
  keys: { name: string; identifiers: string[] }[];
}

/** Every contact the caller may see, with identifiers, conversations and fact counts. */
export function loadPeople(
  sql: Sql,
  schema: SchemaInfo,
  conversations: readonly ConversationRow[],
  hidden: readonly ConversationRow[],
): PeopleData {
  if (!schema.contacts) return { contacts: [], keys: [] };
  const hiddenIds = new Set(hidden.map((c) => c.id));
  const hiddenIdents = new Set(hidden.map((c) => `${c.source}\u0000${c.name}`));
  const visibleIds = new Set(conversations.map((c) => c.id));
  const convsOf = new Map<number, number[]>();
  const hiddenConvsOf = new Map<number, number>();
  const contactOfConversation = new Map<number, number>();
  for (const r of sql.all('SELECT id, contact_id FROM conversations WHERE contact_id IS NOT NULL ORDER BY id')) {
    const cid = num(r.contact_id);
    const id = num(r.id);
    contactOfConversation.set(id, cid);
    if (hiddenIds.has(id)) hiddenConvsOf.set(cid, (hiddenConvsOf.get(cid) ?? 0) + 1);
    else if (visibleIds.has(id)) convsOf.set(cid, [...(convsOf.get(cid) ?? []), id]);
  }
  const idents = new Map<number, { source: string; identifier: string }[]>();
  for (const r of sql.all(
    'SELECT contact_id, source, identifier FROM contact_identifiers ORDER BY contact_id, source, identifier',
  )) {
    const item = { source: str(r.source), identifier: str(r.identifier) };
    if (hiddenIdents.has(`${item.source}\u0000${item.identifier}`)) continue;
    const cid = num(r.contact_id);
    idents.set(cid, [...(idents.get(cid) ?? []), item]);
  }
  const facts = new Map<number, number>();
  if (schema.facts) {
    const v = factVisibility(hidden);
    const rows = sql.all(
      `SELECT f.contact_id AS cid, COUNT(*) AS n FROM contact_facts f${v.where ? ` WHERE ${v.where}` : ''} GROUP BY f.contact_id`,
      v.params,
    );
    for (const r of rows) facts.set(num(r.cid), num(r.n));
  }
  const names = new Map(conversations.map((c) => [c.id, c.name]));
  const hiddenNamesOf = new Map<number, Set<string>>();
  for (const c of hidden) {
    const cid = contactOfConversation.get(c.id);
    if (cid !== undefined) hiddenNamesOf.set(cid, new Set([...(hiddenNamesOf.get(cid) ?? []), c.name]));
  }
  const contacts: ContactRow[] = [];
  const keys: PeopleData['keys'] = [];
  for (const r of sql.all('SELECT id, display_name FROM contacts ORDER BY id')) {
    const id = num(r.id);
    const conversationIds = convsOf.get(id) ?? [];
    if (conversationIds.length === 0 && (hiddenConvsOf.get(id) ?? 0) > 0) continue;
    const identifiers = idents.get(id) ?? [];
    // msgbrowse names a contact after its first conversation: a hidden one's name is neither shown nor matched.
    let name = str(r.display_name);
    if (hiddenNamesOf.get(id)?.has(name)) name = names.get(conversationIds[0]) ?? identifiers[0]?.identifier ?? '';
    contacts.push({ id, name, identifiers, conversationIds, factCount: facts.get(id) ?? 0 });
    keys.push({ name: nameKey(name), identifiers: identifiers.map((i) => nameKey(i.identifier)) });
  }
  return { contacts, keys };
}

/**
 * Facts (alias f) the caller may see: none citing a message in a hidden conversation, nor one whose message is gone
 * when the person has a hidden conversation in the fact's source (it may have come from there).
 */
function factVisibility(hidden: readonly ConversationRow[]): { where: string; params: string[] } {
  if (!hidden.length) return { where: '', params: [] };
  const ids = jsonList(hidden.map((c) => c.id));
  return {
    where:
      'NOT EXISTS (SELECT 1 FROM messages m WHERE m.hash = f.source_message_hash AND m.conversation_id IN (SELECT value FROM json_each(?)))' +
      ' AND NOT (NOT EXISTS (SELECT 1 FROM messages m WHERE m.hash = f.source_message_hash)' +
      ' AND f.source IN (SELECT c.source FROM conversations c WHERE c.contact_id = f.contact_id AND c.id IN (SELECT value FROM json_each(?))))',
    params: [ids, ids],
  };
}

/** Contacts whose folded name or an identifier contains `query`: exact names, then prefixes, then the rest. */
export function searchContacts(
  people: PeopleData,
  query: string,
  limit: number,
): { items: ContactRow[]; total: number } {
  const q = nameKey(query);
  const ranked: { c: ContactRow; rank: number; key: string }[] = [];
  people.contacts.forEach((c, i) => {
    const k = people.keys[i];
    const contains = k.name.includes(q) || k.identifiers.some((x) => x.includes(q));
    const rank = k.name === q ? 0 : k.name.startsWith(q) ? 1 : contains ? 2 : -1;
    if (rank >= 0) ranked.push({ c, rank, key: k.name });
  });
  ranked.sort((a, b) => a.rank - b.rank || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) || a.c.id - b.c.id);
  return { items: ranked.slice(0, limit).map((x) => structuredClone(x.c)), total: ranked.length };
}

export function contactsNamed(people: PeopleData, name: string): ContactRow[] {
  const q = nameKey(name);
  return people.contacts.filter((_, i) => people.keys[i].name === q).map((c) => structuredClone(c));
}

/** A contact's visible facts, oldest first, each with its cited message when that still exists. */
export function contactFacts(
  sql: Sql,
  schema: SchemaInfo,
  contactId: number,
  hidden: readonly ConversationRow[],
): ContactFactRow[] {
  if (!schema.facts) return [];
  const v = factVisibility(hidden);
  const facts = sql.all(
    `SELECT f.id AS id, f.fact AS fact, f.category AS category, f.source_ts AS source_ts, f.source_ts_unix AS source_ts_unix, f.source_message_hash AS source_message_hash
     FROM contact_facts f WHERE f.contact_id = ?${v.where ? ` AND ${v.where}` : ''} ORDER BY f.source_ts_unix ASC, f.id ASC`,
    [contactId, ...v.params],
  );
  if (!facts.length) return [];
  const hashes = [...new Set(facts.map((f) => str(f.source_message_hash)))];
  const messages = mapRows(
    sql,
    `SELECT ${messageColumns(schema)} FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE m.hash IN (SELECT value FROM json_each(?))`,
    [jsonList(hashes)],
    readMessage,
  );
  const byHash = new Map(messages.map((m) => [m.hash, m]));
  return facts.map((f) => {
    const hash = str(f.source_message_hash);
    const message = byHash.get(hash);
    return {
      id: num(f.id),
      fact: str(f.fact),
      category: str(f.category),
      sourceTs: str(f.source_ts),
      sourceTsUnix: num(f.source_ts_unix),
      sourceMessageHash: hash,
      ...(message ? { message } : {}),
    };
  });
}
