import { z } from 'zod';
import {
  contactFacts,
  ContactFactSchema,
  contactInfos,
  type ContactRow,
  ContactSchema,
  inline,
  quote,
  redactsFor,
  ToolError,
} from '../../core';
import { citation, renderNotes, UNTRUSTED_NOTE } from '../render';
import { answerBytes, pageByOffset, shortenHit, shrinkFields, shrinkMessage } from '../answer-budget';
import { cursorField, nextCursorField, notesField, positiveInt, strictInput, text } from '../tool-schemas';
import { defineTool, PAGING_GUIDANCE, RESULT_GUIDANCE } from '../tool';
import { requirePeople } from './people-support';
import { renderContact } from './render-contact';

export const getContactInput = strictInput('get_contact', {
  contact_id: positiveInt('contact_id').optional().describe('contact_id from search_contacts (unambiguous)'),
  name: text('name', 200)
    .optional()
    .describe("the contact's display name (case and accents ignored); use search_contacts for part of a name"),
  cursor: cursorField('get_contact'),
});

export const getContactOutput = ContactSchema.extend({
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
    const notes: string[] = [];
    const name = args.name?.trim();
    if ((args.contact_id === undefined) === (name === undefined || name === '')) {
      throw new ToolError('give exactly one of contact_id or name — search_contacts finds both');
    }
    const archive = await env.archive();
    const parts = await requirePeople(archive, env.signal);
    let row: ContactRow | undefined;
    if (args.contact_id !== undefined) {
      row = await archive.contactById(args.contact_id, env.signal);
      if (!row)
        throw new ToolError(`no contact with contact_id ${args.contact_id} — use search_contacts to find people`);
    } else {
      const named = await archive.contactsNamed(name!, env.signal);
      if (named.length > 1) {
        const list = named
          .slice(0, 10)
          .map(
            (c) =>
              `contact_id ${c.id} (${c.identifiers.map((i) => `${i.source}: ${i.identifier}`).join(', ') || 'no identifiers'})`,
          );
        throw new ToolError(
          `${named.length} contacts are named ${JSON.stringify(name)}: ${list.join('; ')} — pass contact_id`,
        );
      }
      row = named[0];
      if (!row) {
        const close = (await archive.searchContacts(name!, 5, env.signal)).items.map(
          (c) => `${JSON.stringify(c.name)} (contact_id ${c.id})`,
        );
        throw new ToolError(
          `no contact is named ${JSON.stringify(name)}` +
            (close.length
              ? `; names containing it: ${close.join(', ')}`
              : ' — use search_contacts with part of the name'),
        );
      }
    }
    let [info] = await contactInfos(env.ctx.citation, archive, [row], env.signal);
    if (answerBytes(info) > env.budget / 2) {
      // A person with more identifiers and conversations than half a page: the longest lists are cut, facts go on.
      info = shrinkFields(info, env.budget / 2);
      notes.push(
        "this person's identifiers and conversations are more than a page holds: the longest lists are cut; search_contacts lists them too, and list_conversations every conversation",
      );
    }
    const { facts: all, missing } = await contactFacts(
      env.ctx.citation,
      archive,
      row.id,
      redactsFor(env.ctx),
      env.signal,
    );
    if (!parts.facts)
      notes.push(
        'this archive keeps no facts: it has no contact_facts table (msgbrowse writes it since schema v4; its `facts` command fills it)',
      );
    else if (!all.length) notes.push('msgbrowse has extracted no facts about this person (its `facts` command does)');
    if (missing > 0) {
      notes.push(
        `${missing} fact${missing === 1 ? ' cites a message' : 's cite messages'} no longer in the archive (re-imported or deleted): message is null — treat ${missing === 1 ? 'it' : 'them'} as unverified`,
      );
    }
    const { result: structured } = pageByOffset(
      { tool: 'get_contact', args, budget: env.budget, noun: 'facts' },
      all.map((f) => (f.message ? { ...f, message: shortenHit(f.message) } : f)),
      (facts, page) => ({
        ...info,
        facts,
        ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}),
        ...(notes.length || page.notes.length ? { notes: [...notes, ...page.notes] } : {}),
      }),
      (f, room) =>
        f.message ? { ...f, message: shrinkMessage(f.message, room - answerBytes({ ...f, message: null })) } : f,
    );
    const facts = structured.facts;
    const text =
      `${renderContact(info)}\n${UNTRUSTED_NOTE}\n\nFacts (extracted by msgbrowse's LLM; check each against its message):` +
      (facts.length
        ? facts
            .map(
              (f) =>
                `\n- ${inline(f.fact, 300)} (${inline(f.category, 40)}, ${f.source_ts}) — ${f.message ? `${citation(f.message)}\n${quote(f.message.text, '  ')}` : 'source message no longer exists'}`,
            )
            .join('')
        : ' none') +
      renderNotes(structured.notes);
    return { structured, text };
  },
});
