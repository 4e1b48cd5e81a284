/** What the feature suites share: our tool names as VS Code registers them, invoking them, citation URIs. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { resultText, waitFor } from './env';
import { EXPECTED_TOOLS, type ExpectedTool } from '../../mcp/expected-tools';

export const TOOLS = EXPECTED_TOOLS;
export type ToolName = ExpectedTool;

export function ourTools(): Map<ToolName, string> {
  const found = new Map<ToolName, string>();
  for (const t of vscode.lm.tools) {
    if (!/msgbrowse/i.test(t.name)) continue;
    for (const name of TOOLS) if (t.name.endsWith(`_${name}`)) found.set(name, t.name);
  }
  return found;
}

export async function invoke(tool: ToolName, input: object): Promise<string> {
  const name = ourTools().get(tool);
  assert.ok(name, `tool ${tool} is not registered with VS Code`);
  const cts = new vscode.CancellationTokenSource();
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cts.token);
  return resultText(r);
}

/** Invokes, retrying while VS Code restarts/refreshes the server after a definition change. */
export async function invokeEventually(
  tool: ToolName,
  input: object,
  ok: (text: string) => boolean,
  what: string,
): Promise<string> {
  let last = '';
  return waitFor(
    what,
    async () => {
      last = await invoke(tool, input).catch((e: unknown) => `error: ${String(e)}`);
      return ok(last) ? last : undefined;
    },
    45_000,
    500,
  ).catch((e: unknown) => {
    throw new Error(`${String(e)}; last result: ${last.slice(0, 600)}`);
  });
}

export function citation(conversationId: number, messageId: number): string {
  return `${vscode.env.uriScheme}://msgbrowse.msgbrowse-vscode/c/${conversationId}/at/${messageId}`;
}
