import { z } from 'zod';
import { ToolError } from '../../core/errors';
import { contactInfos } from '../../core/contact-info';
import { ContactSchema } from '../../core/results';
import { inline } from '../../core/text';
import { renderNotes, UNTRUSTED_NOTE } from '../render';
import { notesField, strictInput, text } from '../tool-schemas';
import { defineTool, RESULT_GUIDANCE } from '../tool';
import { requirePeople } from './people-support';
import { renderContact } from './render-contact';

export const SEARCH_CONTACTS_MAX = 50;

export const searchContactsInput = strictInput('search_contacts', {
  query: text('query', 200).describe('part of a name, phone number, e-mail address or other identifier (case and accents ignored)'),
});

export const searchContactsOutput = z.object({
  contacts: z.array(ContactSchema).describe('exact name matches first, then names starting with the query, then the rest'),
  notes: notesField,
});

export const searchContacts = defineTool({
  name: 'search_contacts',
  title: 'Find people',
  description:
    "Find people in msgbrowse's contacts by display name or by any identifier they have in a source (phone number, e-mail address, handle), ignoring case and accents. " +
    'Each contact lists its identifiers, its conversations (one person can have several, across sources) and how many facts msgbrowse extracted; get_contact shows those facts with the messages they cite.' +
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
    const contacts = await contactInfos(env.ctx.citation, archive, found.items, env.signal);
    if (found.total > contacts.length) notes.push(`${found.total} contacts match; the first ${contacts.length} are shown — refine the query`);
    if (!contacts.length) notes.push(`no contact's name or identifier contains ${JSON.stringify(query)} (case and accents ignored); list_conversations shows every conversation name`);
    const structured = { contacts, ...(notes.length ? { notes } : {}) };
    const text =
      `${contacts.length} contact${contacts.length === 1 ? '' : 's'} matching ${inline(query)}.\n${UNTRUSTED_NOTE}` +
      contacts.map((c) => `\n\n${renderContact(c)}`).join('') +
      renderNotes(notes);
    return { structured, text };
  },
});
