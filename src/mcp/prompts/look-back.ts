import { isoDay, localToday } from '../../core';
import { CITE_RULES, type PromptDefinition } from './prompt';
import { dayArg } from './resolve-args';

export const onThisDayPrompt: PromptDefinition = {
  name: 'on_this_day',
  title: 'On this day',
  description:
    'Look back at this day (or another) in earlier years: what happened, who it was with, with the messages cited.',
  args: {
    date: { description: 'the day to look back from, YYYY-MM-DD (default: today)' },
  },
  async build(args) {
    const t = localToday();
    const date = dayArg(args.date, 'date') ?? isoDay(t.year, t.month, t.day);
    return (
      `What happened on ${date.slice(5)} in earlier years?\n\n` +
      `1. Call on_this_day ${JSON.stringify({ date, per_year: 5 })}.\n` +
      `2. For each year it returns, call get_journal_day with that year's day to see the day as a whole (its counts and msgbrowse's digest, if any), and get_context on a message if you need more of a thread.\n` +
      `3. Write a short look back, newest year first: for each year one or two sentences on what was going on and with whom. ${CITE_RULES}`
    );
  },
};
