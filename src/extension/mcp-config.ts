/** `msgbrowse: Copy MCP Config for Other Clients`: how other MCP clients start the bundled CLI (`dist/cli.js`). */
import path from 'node:path';
import type { Launch } from '../mcp';
import type { Settings } from './settings';

/**
 * The bundled CLI over stdio with this window's archive, embeddings and privacy settings, so another client sees
 * what Copilot sees: the same conversations hidden, the same secrets redacted.
 */
export function cliLaunch(
  extensionPath: string,
  archivePath: string | undefined,
  settings: Pick<Settings, 'embedBaseUrl' | 'embedModel' | 'excludeConversations' | 'redact'>,
): Launch {
  const args = [path.join(extensionPath, 'dist', 'cli.js')];
  if (archivePath) args.push('--archive', archivePath);
  if (!settings.redact) args.push('--no-redact');
  const env: Record<string, string> = {
    MSGBROWSE_LLM_BASE_URL: settings.embedBaseUrl,
    MSGBROWSE_LLM_EMBED_MODEL: settings.embedModel,
  };
  // The CLI reads one name (or source:name) per line.
  if (settings.excludeConversations.length)
    env.MSGBROWSE_EXCLUDE_CONVERSATIONS = settings.excludeConversations.join('\n');
  // `node` from the other client's PATH: this process's execPath is VS Code's own binary, not a Node.
  return { transport: 'stdio', command: 'node', args, env };
}
