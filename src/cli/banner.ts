/** What `--http` prints on stderr once it listens: the URL, where the token comes from, and ready-to-paste client config. */
// Not the mcp barrel: --version and --bridge would load the whole server with it.
import { clientConfigs, type Launch } from '../mcp/client-configs';
import { NAME } from './identity';
import type { StoredToken } from './token';

/** Every client's configuration for `url`; Claude Desktop starts its servers itself, so it gets `stdio`. */
function clientConfig(url: string, token: string, stdio: Launch): string {
  const http = clientConfigs({ transport: 'http', url, headers: { Authorization: `Bearer ${token}` } });
  const desktop = clientConfigs(stdio).filter((c) => c.client === 'claude-desktop');
  return [...http, ...desktop].map((c) => `${c.label} — ${c.where}:\n${c.text}`).join('\n');
}

/**
 * One write, so a reader of stderr sees the URL and the client config together. An env token is never echoed.
 * `stdio`: how to start this same CLI over stdio, for clients that start their servers themselves.
 */
export function servingBanner(
  archive: string,
  url: string,
  token: string,
  stdio: Launch,
  stored?: StoredToken,
): string {
  const banner = [`${NAME}: serving ${archive} at ${url}`];
  if (stored) {
    banner.push(
      `${NAME}: token ${stored.created ? 'made and kept' : 'kept'} in ${stored.file} (the same at every start; --rotate-token makes a new one, MSGBROWSE_MCP_TOKEN sets your own): ${token}`,
      clientConfig(url, token, stdio),
    );
  } else {
    banner.push(`${NAME}: token from MSGBROWSE_MCP_TOKEN (send it as "Authorization: Bearer <token>")`);
  }
  return `${banner.join('\n')}\n`;
}
