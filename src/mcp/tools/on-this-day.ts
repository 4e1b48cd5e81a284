import { z } from 'zod';
import { OnThisDayYearSchema, readOnThisDay } from '../../core';
import { renderHits, renderNotes, UNTRUSTED_NOTE } from '../render';
import { pageByOffset, shortenHit, shrinkMessage } from '../answer-budget';
import { cursorField, nextCursorField, notesField, positiveInt, strictInput, text } from '../tool-schemas';
import { defineTool, PAGING_GUIDANCE, RESULT_GUIDANCE } from '../tool';

const onThisDayInput = strictInput('on_this_day', {
  date: text('date', 40)
    .optional()
    .describe('the day to look back from, YYYY-MM-DD (default: today on the local calendar)'),
  per_year: positiveInt('per_year')
    .optional()
    .describe('messages per earlier year (default 3, max 10; larger values are clamped)'),
  limit: positiveInt('limit')
    .optional()
    .describe('messages in all, over every page (default 12, max 50; larger values are clamped)'),
  cursor: cursorField('on_this_day'),
});

const onThisDayOutput = z.object({
  date: z.string().describe('the day looked back from, YYYY-MM-DD'),
  years: z
    .array(OnThisDayYearSchema)
    .describe('earlier years with messages on the same month and day, newest first; the longest messages of each'),
  next_cursor: nextCursorField,
  notes: notesField,
});

export const onThisDay = defineTool({
  name: 'on_this_day',
  title: 'On this day',
  description:
    'Messages from the same month and day in earlier years (up to 20 years back), newest year first: for each year the longest messages of that day, each cited. ' +
    'Without date it looks back from today. Years without messages that day are left out; the notes say why a result is empty.' +
    PAGING_GUIDANCE +
    RESULT_GUIDANCE,
  inputSchema: onThisDayInput,
  outputSchema: onThisDayOutput,
  async handler(args, env) {
    const { day, years: found, notes } = await readOnThisDay(args, env);
    // Paged by message, newest year first; a page regroups its messages under their years.
    const all = found.flatMap((y) => y.messages.map((m) => ({ year: y.year, day: y.day, message: shortenHit(m) })));
    const structured = pageByOffset(
      {
        tool: 'on_this_day',
        args,
        budget: env.budget,
        noun: 'messages',
        notes,
        basis: { value: day, changed: `the day looked back from is now ${day}` },
      },
      all,
      (items, p) => {
        const years: typeof found = [];
        for (const { year, day: yearDay, message } of items) {
          if (years.at(-1)?.year !== year) years.push({ year, day: yearDay, messages: [] });
          years.at(-1)!.messages.push(message);
        }
        return { date: day, years, ...p };
      },
      (x, room) => ({ ...x, message: shrinkMessage(x.message, room - 200) }),
    );
    const count = structured.years.reduce((n, y) => n + y.messages.length, 0);
    const text =
      `On this day (${day.slice(5)}), looking back from ${day}: ${count} message${count === 1 ? '' : 's'} in ${structured.years.length} earlier year${structured.years.length === 1 ? '' : 's'}.\n${UNTRUSTED_NOTE}` +
      structured.years
        .map((y) => `\n\n### ${y.year} (${y.day})\n${renderHits(y.messages, { numbered: false })}`)
        .join('') +
      renderNotes(structured.notes);
    return { structured, text };
  },
});
