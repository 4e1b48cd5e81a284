import { z } from 'zod';
import { contactInfos, ContactSchema, inline, ToolError } from '../../core';
import { renderNotes, UNTRUSTED_NOTE } from '../render';
import { pageByOffset } from '../answer-budget';
import { cursorField, nextCursorField, notesField, strictInput, text } from '../tool-schemas';
import { defineTool, PAGING_GUIDANCE, RESULT_GUIDANCE } from '../tool';
import { requirePeople } from './people-support';
import { renderContact } from './render-contact';

export const SEARCH_CONTACTS_MAX = 50;

export const searchContactsInput = strictInput('search_contacts', {
  query: text('query', 200).describe(
    'part of a name, phone number, e-mail address or other identifier (case and accents ignored)',
  ),
  cursor: cursorField('search_contacts'),
});

export const searchContactsOutput = z.object({
  contacts: z
    .array(ContactSchema)
    .describe('exact name matches first, then names starting with the query, then the rest'),
  next_cursor: nextCursorField,
  notes: notesField,
});

export const searchContacts = defineTool({
  name: 'search_contacts',
  title: 'Find people',
  description:
    "Find people in msgbrowse's contacts by display name or by any identifier they have in a source (phone number, e-mail address, handle), ignoring case and accents. " +
    'Each contact lists its identifiers, its conversations (one person can have several, across sources) and how many facts msgbrowse extracted; get_contact shows those facts with the messages they cite.' +
    PAGING_GUIDANCE +
    RESULT_GUIDANCE,
  inputSchema: searchContactsInput,
  outputSchema: searchContactsOutput,
  async handler(args, env) {
    const notes: string[] = [];
    const query = args.query.trim();
    if (query === '') throw new ToolError('query is empty: give part of a name or identifier');
    const archive = await env.archive();
    await requirePeople(archive, env.signal);
    const found = await archive.searchContacts(query, SEARCH_CONTACTS_MAX, env.signal);
    const all = await contactInfos(env.ctx.citation, archive, found.items, env.signal);
    if (found.total > all.length)
      notes.push(`${found.total} contacts match; the first ${all.length} are listed — refine the query`);
    if (!all.length)
      notes.push(
        `no contact's name or identifier contains ${JSON.stringify(query)} (case and accents ignored); list_conversations shows every conversation name`,
      );
    const { result: structured } = pageByOffset(
      { tool: 'search_contacts', args, budget: env.budget, noun: 'contacts' },
      all,
      (contacts, page) => ({
        contacts,
        ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}),
        ...(notes.length || page.notes.length ? { notes: [...notes, ...page.notes] } : {}),
      }),
    );
    const contacts = structured.contacts;
    const text =
      `${contacts.length} contact${contacts.length === 1 ? '' : 's'} matching ${inline(query)}.\n${UNTRUSTED_NOTE}` +
      contacts.map((c) => `\n\n${renderContact(c)}`).join('') +
      renderNotes(structured.notes);
    return { structured, text };
  },
});
