/**
 * Registers the msgbrowse MCP server with VS Code (`vscode.lm.registerMcpServerDefinitionProvider`, feature-detected).
 *
 * The one definition is a stdio server: the bundled CLI as a thin bridge (`dist/cli.js --bridge <endpoint file>`,
 * run by the editor's own runtime with ELECTRON_RUN_AS_NODE=1) that relays to the in-process endpoint. It is complete
 * as provideMcpServerDefinitions returns it — no `${…}` variables, nothing filled in by resolve — because the Copilot
 * harness (agent host) receives exactly that; its native MCP client cannot open Unix sockets and sends loopback HTTP
 * through HTTP(S)_PROXY, while a stdio server works in both harnesses and behind any proxy (measured; README).
 * The secret is not in the definition (VS Code stores definitions): the bridge reads it from the 0600 endpoint file
 * in global storage. The version carries the endpoint's fingerprint, so a new listener or secret is a new definition.
 */
import * as vscode from 'vscode';
import type { ArchiveService } from './archive-service';
import { MCP_PROVIDER_ID, MCP_SERVER_LABEL } from './constants';
import type { EndpointInfo, McpEndpoint } from './mcp-endpoint';

export function mcpApiAvailable(): boolean {
  const lm = (vscode as { lm?: { registerMcpServerDefinitionProvider?: unknown } }).lm;
  return (
    typeof lm?.registerMcpServerDefinitionProvider === 'function' &&
    typeof (vscode as { McpStdioServerDefinition?: unknown }).McpStdioServerDefinition === 'function'
  );
}

/** What the definition holds, plain (the test hooks export it; the bridge's command line). */
export interface BridgeDefinition {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  version: string;
}

/** The bridge's definition for the endpoint `ep` (pure apart from process.execPath). */
export function bridgeDefinition(
  cliPath: string,
  endpointFile: string,
  archiveVersion: string,
  ep: EndpointInfo,
): BridgeDefinition {
  return {
    label: MCP_SERVER_LABEL,
    command: process.execPath,
    args: [cliPath, '--bridge', endpointFile],
    // Electron's binary (desktop VS Code) runs as plain Node with this; harmless where execPath is Node already.
    env: { ELECTRON_RUN_AS_NODE: '1' },
    version: `${archiveVersion}+${ep.fingerprint}`,
  };
}

export class McpProvider implements vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.emitter.event;
  /** How often VS Code asked for / resolved definitions (for diagnostics and tests). */
  provided = 0;
  resolved = 0;
  /** The last definition returned by provideMcpServerDefinitions (tests export it). */
  lastProvided: BridgeDefinition | undefined;
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
  changed(): void {
    this.log.debug(`MCP definition changed (version ${this.archive.version})`);
    this.emitter.fire();
  }

  private async definition(): Promise<BridgeDefinition> {
    const ep = await this.endpoint.ensure();
    if (!this.endpoint.endpointFile) throw new Error('msgbrowse: the MCP endpoint has no endpoint file');
    if (this.lastFingerprint !== undefined && this.lastFingerprint !== ep.fingerprint)
      queueMicrotask(() => this.changed());
    this.lastFingerprint = ep.fingerprint;
    return bridgeDefinition(this.cliPath, this.endpoint.endpointFile, this.archive.version, ep);
  }

  private static toVscode(d: BridgeDefinition): vscode.McpStdioServerDefinition {
    return new vscode.McpStdioServerDefinition(d.label, d.command, [...d.args], { ...d.env }, d.version);
  }

  async provideMcpServerDefinitions(): Promise<vscode.McpStdioServerDefinition[]> {
    this.provided++;
    const d = await this.definition();
    this.lastProvided = d;
    return [McpProvider.toVscode(d)];
  }

  async resolveMcpServerDefinition(def: vscode.McpStdioServerDefinition): Promise<vscode.McpStdioServerDefinition> {
    this.resolved++;
    // Only makes sure the listener (and its endpoint file) exist; the definition is already complete.
    const ep = await this.endpoint.ensure();
    this.log.info(
      `VS Code is starting the msgbrowse MCP bridge (${ep.kind}, version ${def.version ?? this.archive.version})`,
    );
    return def;
  }
}
