/**
 * Ready-to-paste configurations of this server for the common MCP clients: the CLI's `--http` banner and the
 * extension's *Copy MCP Config for Other Clients* both print these, so every client is described once.
 */

/** How a client starts or reaches the server. */
export type Launch =
  | { transport: 'stdio'; command: string; args: string[]; env?: Record<string, string> }
  | { transport: 'http'; url: string; headers: Record<string, string> };

export type ClientId = 'vscode' | 'vscode-link' | 'claude-desktop' | 'claude-code' | 'cursor';

export interface ClientConfig {
  client: ClientId;
  /** The client, as its users call it. */
  label: string;
  /** Where the text goes. */
  where: string;
  text: string;
}

const SERVER_NAME = 'msgbrowse';

/** `{ command, args, env }` or `{ url, headers }`, with the `type` key some clients want. */
export function entry(launch: Launch, typed: boolean): Record<string, unknown> {
  if (launch.transport === 'http')
    return { ...(typed ? { type: 'http' } : {}), url: launch.url, headers: launch.headers };
  const env = launch.env && Object.keys(launch.env).length ? { env: launch.env } : {};
  return { ...(typed ? { type: 'stdio' } : {}), command: launch.command, args: launch.args, ...env };
}

const json = (v: unknown) => JSON.stringify(v, null, 2);

/** POSIX shell quoting: bare when safe, else single quotes. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function claudeCodeCommand(launch: Launch): string {
  if (launch.transport === 'http') {
    const headers = Object.entries(launch.headers).map(([k, v]) => ` --header ${shellQuote(`${k}: ${v}`)}`);
    return `claude mcp add --transport http ${SERVER_NAME} ${shellQuote(launch.url)}${headers.join('')}`;
  }
  const env = Object.entries(launch.env ?? {}).map(([k, v]) => ` --env ${shellQuote(`${k}=${v}`)}`);
  return `claude mcp add ${SERVER_NAME}${env.join('')} -- ${[launch.command, ...launch.args].map(shellQuote).join(' ')}`;
}

/** VS Code's install link: opens VS Code on "Install MCP server" with this configuration filled in. */
export function vscodeInstallLink(launch: Launch): string {
  return `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name: SERVER_NAME, ...entry(launch, true) }))}`;
}

/** One configuration per client. Claude Desktop's config file starts local servers only: none for HTTP. */
export function clientConfigs(launch: Launch): ClientConfig[] {
  const mcpServers = (typed: boolean, extra: Record<string, unknown> = {}) =>
    json({ mcpServers: { [SERVER_NAME]: { ...entry(launch, typed), ...extra } } });
  const out: ClientConfig[] = [
    {
      client: 'vscode',
      label: 'VS Code and Copilot CLI',
      where:
        '.mcp.json in the workspace root, or ~/.copilot/mcp-config.json for every workspace (VS Code 1.140+; older versions read .vscode/mcp.json, with "servers" for "mcpServers")',
      text: mcpServers(true, { tools: ['*'] }),
    },
    {
      client: 'vscode-link',
      label: 'VS Code install link',
      where: 'open it (VS Code asks before it adds the server)',
      text: vscodeInstallLink(launch),
    },
  ];
  if (launch.transport === 'stdio')
    out.push({
      client: 'claude-desktop',
      label: 'Claude Desktop',
      where: 'claude_desktop_config.json (Settings → Developer → Edit Config), or install the .mcpb bundle instead',
      text: mcpServers(false),
    });
  out.push(
    { client: 'claude-code', label: 'Claude Code', where: 'run it in a terminal', text: claudeCodeCommand(launch) },
    {
      client: 'cursor',
      label: 'Cursor',
      where: '~/.cursor/mcp.json, or .cursor/mcp.json in the project',
      text: mcpServers(false),
    },
  );
  return out;
}
