import { CITE_RULES, type PromptDefinition } from './prompt';
import { requiredArg } from './resolve-args';

export const whatDidTheySay: PromptDefinition = {
  name: 'what_did_they_say',
  title: 'What did someone say about…',
  description:
    'Find what one person said about a topic, across every conversation, with the messages quoted and cited.',
  args: {
    person: { description: 'the sender, as their messages show it ("Me" for you)', required: true, complete: 'sender' },
    topic: { description: 'what it was about, in a few words', required: true },
  },
  async build(args) {
    const person = requiredArg(args.person, 'person');
    const topic = requiredArg(args.topic, 'topic');
    const q = JSON.stringify({ query: topic, sender: person, limit: 30 });
    return (
      `What did ${person} say about "${topic}"?\n\n` +
      `1. Call search_messages ${q} (keyword + meaning); if it finds little, also try semantic_search ${JSON.stringify({ query: topic, sender: person, k: 20 })} and a few other wordings of the topic.\n` +
      `2. For the messages that matter, call get_context with their message_id and hash to read what was said around them, so you quote them in context.\n` +
      `3. Answer with what ${person} said, oldest to newest, quoting the key sentences. ${CITE_RULES}`
    );
  },
};
