import { CITE_RULES, type PromptDefinition } from './prompt';
import { conversationArg, requiredArg } from './resolve-args';

export const findDiscussion: PromptDefinition = {
  name: 'find_discussion',
  title: 'Find where we talked about…',
  description:
    'Find the conversations and moments where a topic came up — optionally in one conversation — with links to each.',
  args: {
    topic: { description: 'the topic, in a few words', required: true },
    conversation: { description: 'only this conversation (optional)', complete: 'conversation' },
  },
  async build(args, env) {
    const topic = requiredArg(args.topic, 'topic');
    const c = args.conversation?.trim()
      ? await conversationArg(await env.archive(), args.conversation, env.signal)
      : undefined;
    const scope = c ? { conversation_id: c.id } : {};
    return (
      `Where did we talk about "${topic}"${c ? ` in "${c.name}" (${c.source})` : ''}?\n\n` +
      `1. Call search_messages ${JSON.stringify({ query: topic, ...scope, limit: 40 })} and semantic_search ${JSON.stringify({ query: topic, ...scope, k: 20 })}; try one or two other wordings if the first finds little.\n` +
      `2. Group what you find into moments (conversation and date); for each, call get_context on its best message to see how the topic came up.\n` +
      `3. List the moments newest first — conversation, date, one line on what was said — each with its citation. ${CITE_RULES}`
    );
  },
};
