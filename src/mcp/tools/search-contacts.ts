import { z } from 'zod';
import { ContactSchema, findContacts, inline } from '../../core';
import { renderNotes, UNTRUSTED_NOTE } from '../render';
import { pageByOffset } from '../answer-budget';
import { cursorField, nextCursorField, notesField, strictInput, text } from '../tool-schemas';
import { defineTool, PAGING_GUIDANCE, RESULT_GUIDANCE } from '../tool';
import { renderContact } from './render-contact';

const searchContactsInput = strictInput('search_contacts', {
  query: text('query', 200).describe(
    'part of a name, phone number, e-mail address or other identifier (case and accents ignored)',
  ),
  cursor: cursorField('search_contacts'),
});

const searchContactsOutput = z.object({
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
    const { query, contacts: all, notes } = await findContacts(args, env);
    const structured = pageByOffset(
      { tool: 'search_contacts', args, budget: env.budget, noun: 'contacts', notes },
      all,
      (contacts, p) => ({ contacts, ...p }),
    );
    const contacts = structured.contacts;
    const text =
      `${contacts.length} contact${contacts.length === 1 ? '' : 's'} matching ${inline(query)}.\n${UNTRUSTED_NOTE}` +
      contacts.map((c) => `\n\n${renderContact(c)}`).join('') +
      renderNotes(structured.notes);
    return { structured, text };
  },
});
