/** What `--http` prints on stderr once it listens: the URL, where the token comes from, and ready-to-paste client config. */
import { NAME } from './identity';
import type { StoredToken } from './token';

function clientConfig(url: string, token: string): string {
  const headers = { Authorization: `Bearer ${token}` };
  return [
    'VS Code (.vscode/mcp.json):',
    JSON.stringify({ servers: { msgbrowse: { type: 'http', url, headers } } }, null, 2),
    'Claude Code:',
    `  claude mcp add --transport http msgbrowse ${url} --header "Authorization: Bearer ${token}"`,
  ].join('\n');
}

/** One write, so a reader of stderr sees the URL and the client config together. An env token is never echoed. */
export function servingBanner(archive: string, url: string, token: string, stored?: StoredToken): string {
  const banner = [`${NAME}: serving ${archive} at ${url}`];
  if (stored) {
    banner.push(
      `${NAME}: token ${stored.created ? 'made and kept' : 'kept'} in ${stored.file} (the same at every start; --rotate-token makes a new one, MSGBROWSE_MCP_TOKEN sets your own): ${token}`,
      clientConfig(url, token),
    );
  } else {
    banner.push(`${NAME}: token from MSGBROWSE_MCP_TOKEN (send it as "Authorization: Bearer <token>")`);
  }
  return `${banner.join('\n')}\n`;
}
