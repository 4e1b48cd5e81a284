import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { ProtocolError } from '../../core';
import { CITE_RULES, type PromptDefinition } from './prompt';
import { conversationArg, dayArg, requiredArg } from './resolve-args';

export const summarizeConversation: PromptDefinition = {
  name: 'summarize_conversation',
  title: 'Summarise a conversation',
  description:
    'Summarise one conversation — optionally between two dates — with the decisions, plans and open questions, each cited.',
  args: {
    conversation: { description: 'the conversation (person or group)', required: true, complete: 'conversation' },
    start: { description: 'first day, YYYY-MM-DD (optional)' },
    end: { description: 'last day, YYYY-MM-DD (optional)' },
  },
  async build(args, env) {
    const archive = await env.archive();
    const c = await conversationArg(archive, requiredArg(args.conversation, 'conversation'), env.signal);
    const start = dayArg(args.start, 'start');
    const end = dayArg(args.end, 'end');
    if (start && end && start > end)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `start ${start} is after end ${end}; give start on or before end`,
      );
    const period = start || end ? ` from ${start ?? 'the beginning'} to ${end ?? 'the end'}` : '';
    const call = JSON.stringify({
      conversation_id: c.id,
      ...(start ? { start } : {}),
      ...(end ? { end } : {}),
      limit: 500,
    });
    return (
      `Summarise my ${c.source} conversation "${c.name}" (conversation_id ${c.id}, ${c.messageCount} messages${c.firstTs ? `, ${c.firstTs.slice(0, 10)} to ${c.lastTs.slice(0, 10)}` : ''})${period}.\n\n` +
      `1. Read it with get_conversation ${call}; while the result has next_cursor, call get_conversation again with that cursor until you have read the whole period.\n` +
      `2. Write a short summary: the main threads in order, decisions and plans (with their dates), and questions that were left open.\n` +
      `3. ${CITE_RULES}`
    );
  },
};
