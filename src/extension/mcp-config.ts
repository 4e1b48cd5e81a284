/** `msgbrowse: Copy MCP Config for Other Clients`: how to run the bundled CLI (`dist/cli.js`) from other MCP clients. */
import path from 'node:path';
import type { Settings } from './settings';

export type ConfigFlavor = 'vscode' | 'mcpServers';

export function mcpConfigSnippet(
  flavor: ConfigFlavor,
  extensionPath: string,
  archivePath: string | undefined,
  settings: Pick<Settings, 'embedBaseUrl' | 'embedModel'>,
): string {
  const args = [path.join(extensionPath, 'dist', 'cli.js')];
  if (archivePath) args.push('--archive', archivePath);
  const server = {
    ...(flavor === 'vscode' ? { type: 'stdio' } : {}),
    command: 'node',
    args,
    env: { MSGBROWSE_LLM_BASE_URL: settings.embedBaseUrl, MSGBROWSE_LLM_EMBED_MODEL: settings.embedModel },
  };
  return JSON.stringify({ [flavor === 'vscode' ? 'servers' : 'mcpServers']: { msgbrowse: server } }, null, 2);
}
