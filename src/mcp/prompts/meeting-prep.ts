import { CITE_RULES, type PromptDefinition } from './prompt';
import { requiredArg } from './resolve-args';

export const prepareMeeting: PromptDefinition = {
  name: 'prepare_meeting',
  title: 'Prepare for meeting someone',
  description:
    'Before you meet someone: what you last talked about, open questions and promises, and what you know about them — each cited.',
  args: {
    person: { description: 'who you are meeting (a contact or conversation name)', required: true, complete: 'person' },
  },
  async build(args) {
    const person = requiredArg(args.person, 'person');
    return (
      `I am about to meet ${person}. Prepare me.\n\n` +
      `1. Call search_contacts ${JSON.stringify({ query: person })}; for the matching person call get_contact with their contact_id to get their conversations and the facts msgbrowse extracted (check each fact against the message it cites; a fact whose message is null is unverified).\n` +
      `2. For each of their conversations (and any group conversation where they write), call get_conversation with its conversation_id, order "newest" and limit 60 to read the latest messages.\n` +
      `3. In what you read, find questions either of us asked that got no answer, and promises or plans that are still open; search_messages with sender set to them finds older threads on a topic if you need them.\n` +
      `4. Write a brief: recent threads (newest first), open questions and promises, and a few facts worth remembering. ${CITE_RULES}`
    );
  },
};
