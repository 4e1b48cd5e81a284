/**
 * Registers the msgbrowse MCP server with VS Code (`vscode.lm.registerMcpServerDefinitionProvider`, feature-detected).
 * The definition points at the in-process endpoint and carries the per-session secret; its version follows the
 * archive service so Copilot re-reads the tools whenever the archive or the settings change.
 */
import * as vscode from 'vscode';
import type { ArchiveService } from './archive-service';
import { MCP_PROVIDER_ID, MCP_SERVER_LABEL } from './constants';
import type { McpEndpoint } from './mcp-endpoint';

export function mcpApiAvailable(): boolean {
  const lm = (vscode as { lm?: { registerMcpServerDefinitionProvider?: unknown } }).lm;
  return (
    typeof lm?.registerMcpServerDefinitionProvider === 'function' &&
    typeof (vscode as { McpHttpServerDefinition?: unknown }).McpHttpServerDefinition === 'function'
  );
}

export class McpProvider implements vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition> {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.emitter.event;
  /** How often VS Code asked for / resolved definitions (for diagnostics and tests). */
  provided = 0;
  resolved = 0;

  constructor(
    private readonly archive: ArchiveService,
    private readonly endpoint: McpEndpoint,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  register(): vscode.Disposable {
    const reg = vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, this);
    const sub = this.archive.onDidChangeDefinition(() => this.changed());
    return vscode.Disposable.from(reg, sub, this.emitter);
  }

  /** Listener or archive changed: make VS Code fetch a definition with a new version. */
  changed(): void {
    this.log.debug(`MCP definition changed (version ${this.archive.version})`);
    this.emitter.fire();
  }

  async provideMcpServerDefinitions(): Promise<vscode.McpHttpServerDefinition[]> {
    this.provided++;
    const ep = await this.endpoint.ensure();
    return [new vscode.McpHttpServerDefinition(MCP_SERVER_LABEL, ep.uri, { ...ep.headers }, this.archive.version)];
  }

  async resolveMcpServerDefinition(def: vscode.McpHttpServerDefinition): Promise<vscode.McpHttpServerDefinition> {
    this.resolved++;
    const ep = await this.endpoint.ensure();
    def.uri = ep.uri;
    def.headers = { ...ep.headers };
    this.log.info(`VS Code is starting the msgbrowse MCP server (${ep.kind}, version ${this.archive.version})`);
    return def;
  }
}
