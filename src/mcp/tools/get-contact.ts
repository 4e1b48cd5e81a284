import { z } from 'zod';
import { ContactFactSchema, ContactSchema, inline, quote, readContact } from '../../core';
import { citation, renderNotes, UNTRUSTED_NOTE } from '../render';
import { answerBytes, pageByOffset, shortenHit, shrinkFields, shrinkMessage } from '../answer-budget';
import { cursorField, nextCursorField, notesField, positiveInt, strictInput, text } from '../tool-schemas';
import { defineTool, PAGING_GUIDANCE, RESULT_GUIDANCE } from '../tool';
import { renderContact } from './render-contact';

const getContactInput = strictInput('get_contact', {
  contact_id: positiveInt('contact_id').optional().describe('contact_id from search_contacts (unambiguous)'),
  name: text('name', 200)
    .optional()
    .describe("the contact's display name (case and accents ignored); use search_contacts for part of a name"),
  cursor: cursorField('get_contact'),
});

const getContactOutput = ContactSchema.extend({
  facts: z
    .array(ContactFactSchema)
    .describe(
      'what msgbrowse extracted about this person, oldest source message first, each with the message it cites',
    ),
  next_cursor: nextCursorField.describe(
    'present when more facts follow: pass it as cursor, with the same contact_id or name, for the next page',
  ),
  notes: notesField,
});

export const getContact = defineTool({
  name: 'get_contact',
  title: 'Read a person',
  description:
    "One person from msgbrowse's contacts, by contact_id or display name: identifiers across sources, conversations, and the facts msgbrowse's LLM extracted (birthday, work, places…), each with the message it was taken from — or null when that message no longer exists. " +
    'Facts are machine-extracted: check them against their message before relying on them.' +
    PAGING_GUIDANCE +
    RESULT_GUIDANCE,
  inputSchema: getContactInput,
  outputSchema: getContactOutput,
  async handler(args, env) {
    const { contact, facts: all, notes } = await readContact(args, env);
    let info = contact;
    if (answerBytes(info) > env.budget / 2) {
      // A person with more identifiers and conversations than half a page: the longest lists are cut, facts go on.
      info = shrinkFields(info, env.budget / 2);
      notes.unshift(
        "this person's identifiers and conversations are more than a page holds: the longest lists are cut; search_contacts lists them too, and list_conversations every conversation",
      );
    }
    const structured = pageByOffset(
      { tool: 'get_contact', args, budget: env.budget, noun: 'facts', notes },
      all.map((f) => (f.message ? { ...f, message: shortenHit(f.message) } : f)),
      (facts, p) => ({ ...info, facts, ...p }),
      (f, room) =>
        f.message ? { ...f, message: shrinkMessage(f.message, room - answerBytes({ ...f, message: null })) } : f,
    );
    const facts = structured.facts;
    const fact = (f: (typeof facts)[number]) =>
      `\n- ${inline(f.fact, 300)} (${inline(f.category, 40)}, ${f.source_ts}) — ${f.message ? `${citation(f.message)}\n${quote(f.message.text, '  ')}` : 'source message no longer exists'}`;
    const text =
      `${renderContact(info)}\n${UNTRUSTED_NOTE}\n\nFacts (extracted by msgbrowse's LLM; check each against its message):` +
      (facts.length ? facts.map(fact).join('') : ' none') +
      renderNotes(structured.notes);
    return { structured, text };
  },
});
