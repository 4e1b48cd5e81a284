// The MCP server definition: a stdio bridge (`dist/cli.js --bridge <endpoint file>`) to the in-process endpoint, as
// the Copilot harness reaches neither Unix sockets nor proxied loopback HTTP. The secret stays out of it (VS Code
// stores definitions): the bridge reads the endpoint file.
import * as vscode from 'vscode';
import type { ArchiveService } from './archive-service';
import { MCP_PROVIDER_ID, MCP_SERVER_LABEL } from './constants';
import type { McpEndpoint } from './mcp-endpoint';

export function mcpApiAvailable(): boolean {
  const lm = (vscode as { lm?: { registerMcpServerDefinitionProvider?: unknown } }).lm;
  return (
    typeof lm?.registerMcpServerDefinitionProvider === 'function' &&
    typeof (vscode as { McpStdioServerDefinition?: unknown }).McpStdioServerDefinition === 'function'
  );
}

export class McpProvider implements vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.emitter.event;
  private lastFingerprint: string | undefined;

  constructor(
    private readonly archive: ArchiveService,
    private readonly endpoint: McpEndpoint,
    private readonly log: vscode.LogOutputChannel,
    private readonly cliPath: string,
  ) {}

  register(): vscode.Disposable {
    const reg = vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, this);
    const sub = this.archive.onDidChangeDefinition(() => this.changed());
    return vscode.Disposable.from(reg, sub, this.emitter);
  }

  /** Listener or archive changed: make VS Code fetch a definition with a new version. */
  private changed(): void {
    this.log.debug(`MCP definition changed (version ${this.archive.version})`);
    this.emitter.fire();
  }

  async provideMcpServerDefinitions(): Promise<vscode.McpStdioServerDefinition[]> {
    const ep = await this.endpoint.ensure();
    const file = this.endpoint.endpointFile;
    if (!file) throw new Error('msgbrowse: the MCP endpoint has no endpoint file');
    if (this.lastFingerprint !== undefined && this.lastFingerprint !== ep.fingerprint)
      queueMicrotask(() => this.changed());
    this.lastFingerprint = ep.fingerprint;
    const args = [this.cliPath, '--bridge', file];
    // ELECTRON_RUN_AS_NODE: Electron's binary (desktop VS Code) runs as plain Node; harmless where it is Node already.
    const env = { ELECTRON_RUN_AS_NODE: '1' };
    const version = `${this.archive.version}+${ep.fingerprint}`;
    return [new vscode.McpStdioServerDefinition(MCP_SERVER_LABEL, process.execPath, args, env, version)];
  }

  async resolveMcpServerDefinition(def: vscode.McpStdioServerDefinition): Promise<vscode.McpStdioServerDefinition> {
    // Only makes sure the listener (and its endpoint file) exist; the definition is already complete.
    const ep = await this.endpoint.ensure();
    const version = def.version ?? this.archive.version;
    this.log.info(`VS Code is starting the msgbrowse MCP bridge (${ep.kind}, version ${version})`);
    return def;
  }
}
