/** Every prompt (VS Code: `/mcp.msgbrowse.<name>`) and their registration; argument completions: completions.ts. */
import { type GetPromptResult, type McpServer, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { errorMessage, ProtocolError, type ServerContext, ToolError } from '../../core';
import { PROMPT_ICONS } from '../icons';
import { findDiscussion } from './find-topic';
import { onThisDayPrompt } from './look-back';
import { prepareMeeting } from './meeting-prep';
import { whatDidTheySay } from './person-said';
import type { PromptDefinition } from './prompt';
import { summarizeConversation } from './summarize';

export const PROMPTS: readonly PromptDefinition[] = [
  summarizeConversation,
  whatDidTheySay,
  findDiscussion,
  onThisDayPrompt,
  prepareMeeting,
];

export function registerPrompts(server: McpServer, ctx: ServerContext): void {
  for (const p of PROMPTS) {
    const shape: Record<string, z.ZodType<string | undefined>> = {};
    for (const [name, a] of Object.entries(p.args)) {
      // describe() last: the SDK reads the description of the outer (optional) schema.
      shape[name] = a.required ? z.string().describe(a.description) : z.string().optional().describe(a.description);
    }
    server.registerPrompt(
      p.name,
      { title: p.title, description: p.description, argsSchema: z.object(shape), icons: PROMPT_ICONS },
      async (args: Record<string, string | undefined>, extra): Promise<GetPromptResult> => {
        let text: string;
        try {
          text = await p.build(args, { archive: () => ctx.archive(), signal: extra.mcpReq.signal });
        } catch (e) {
          if (e instanceof ProtocolError) throw e;
          // A prompt argument that names nothing (a ToolError) is the caller's to fix; anything else is ours.
          if (e instanceof ToolError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, e.message);
          throw new ProtocolError(ProtocolErrorCode.InternalError, `prompt ${p.name} failed: ${errorMessage(e)}`);
        }
        return { description: p.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
      },
    );
  }
}
