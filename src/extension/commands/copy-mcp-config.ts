/** `msgbrowse.copyMcpConfig(['vscode' | 'mcpServers'])`: copies a config running the bundled CLI for other MCP
 * clients (flavor picked when not given) and resolves with the copied text, or undefined when cancelled. */
import * as vscode from 'vscode';
import type { ArchiveService } from '../archive-service';
import { mcpConfigSnippet, type ConfigFlavor } from '../mcp-config';
import { readSettings } from '../settings';
import type { Command } from './command-manager';

export class CopyMcpConfigCommand implements Command {
  readonly id = 'msgbrowse.copyMcpConfig';

  constructor(
    private readonly extensionPath: string,
    private readonly archive: ArchiveService,
  ) {}

  async execute(flavor?: unknown): Promise<string | undefined> {
    let f: ConfigFlavor | undefined = flavor === 'vscode' || flavor === 'mcpServers' ? flavor : undefined;
    if (!f) {
      const pick = await vscode.window.showQuickPick(
        [
          { label: 'VS Code / Copilot (.vscode/mcp.json)', flavor: 'vscode' as const },
          { label: 'Claude Desktop, Claude Code, Cursor… ("mcpServers")', flavor: 'mcpServers' as const },
        ],
        { title: 'msgbrowse: MCP config for which client?' },
      );
      f = pick?.flavor;
    }
    if (!f) return undefined;
    const text = mcpConfigSnippet(f, this.extensionPath, this.archive.currentPath, readSettings());
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage('msgbrowse: MCP config copied to the clipboard', 4000);
    return text;
  }
}
