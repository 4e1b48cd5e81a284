/** What `--http` prints on stderr once it listens: the URL, where the token comes from, and ready-to-paste client config. */
import { NAME } from './identity';

function clientConfig(url: string, token: string): string {
  const headers = { Authorization: `Bearer ${token}` };
  return [
    'VS Code (.vscode/mcp.json):',
    JSON.stringify({ servers: { msgbrowse: { type: 'http', url, headers } } }, null, 2),
    'Claude Code:',
    `  claude mcp add --transport http msgbrowse ${url} --header "Authorization: Bearer ${token}"`,
  ].join('\n');
}

/**
 * The whole banner, newline-terminated, for one write (so a reader of stderr sees the URL and the client config
 * together). A generated token is shown with the client config; a token from MSGBROWSE_MCP_TOKEN is never echoed.
 */
export function servingBanner(archive: string, url: string, token: string, tokenFromEnv: boolean): string {
  const banner = [`${NAME}: serving ${archive} at ${url}`];
  if (!tokenFromEnv) {
    banner.push(`${NAME}: token (set MSGBROWSE_MCP_TOKEN to choose your own): ${token}`);
    banner.push(clientConfig(url, token));
  } else {
    banner.push(`${NAME}: token from MSGBROWSE_MCP_TOKEN (send it as "Authorization: Bearer <token>")`);
  }
  return banner.join('\n') + '\n';
}
