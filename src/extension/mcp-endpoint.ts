// The in-process MCP endpoint: streamable HTTP on a private Unix socket, else on 127.0.0.1, behind a per-listener
// secret header; refusals are 404, never 401/403 (those would start VS Code's OAuth flow).
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { createMcpServer, type McpServerOptions } from '../mcp';
import type { ServerContext } from '../core';
// Not the barrel: it re-exports the stdio bridge, whose MCP client the extension host never runs.
import { sweepStaleBridgeEndpoints, writeBridgeEndpoint } from '../transport/bridge-endpoint';
import { type HttpServerHandle, serveHttp } from '../transport/http';
import { SECRET_HEADER } from './constants';

type EndpointKind = 'socket' | 'tcp';

export interface EndpointInfo {
  kind: EndpointKind;
  uri: vscode.Uri;
  socketPath?: string;
  host?: string;
  port?: number;
  headers: Record<string, string>;
  /** Hash of where it listens and its secret: in the definition's version, so either change is a new definition. */
  fingerprint: string;
}

export class McpEndpoint implements vscode.Disposable {
  private handle: HttpServerHandle | undefined;
  private starting: Promise<EndpointInfo> | undefined;
  private info: EndpointInfo | undefined;

  constructor(
    private readonly context: ServerContext,
    private readonly preferred: () => EndpointKind | 'auto',
    private readonly log: vscode.LogOutputChannel,
    /** What the stdio bridge reads (0600): rewritten with the secret when the listener starts, removed when it stops. */
    readonly endpointFile?: string,
    private readonly serverOptions: McpServerOptions = {},
  ) {}

  get current(): EndpointInfo | undefined {
    return this.info;
  }

  sessionCount(): number {
    return this.handle?.sessionCount() ?? 0;
  }

  /** Unix sockets for HTTP MCP servers arrived in VS Code 1.105; on Windows TCP is simpler. */
  private wantedKind(): EndpointKind {
    const [major, minor] = (/^(\d+)\.(\d+)/.exec(vscode.version) ?? []).slice(1).map(Number);
    const sockets = process.platform !== 'win32' && (major > 1 || (major === 1 && minor >= 105));
    return sockets && this.preferred() !== 'tcp' ? 'socket' : 'tcp';
  }

  ensure(): Promise<EndpointInfo> {
    if (this.info && this.info.kind === this.wantedKind()) return Promise.resolve(this.info);
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async start(): Promise<EndpointInfo> {
    await this.stop();
    // Fresh per listener, so a copy of an older endpoint file is useless.
    const secret = randomBytes(32).toString('base64url');
    const handle = await serveHttp({
      createServer: () => createMcpServer(this.context, this.serverOptions),
      listen: this.wantedKind() === 'socket' ? { socketPath: 'auto' } : { host: '127.0.0.1', port: 0 },
      secret,
      secretHeader: SECRET_HEADER,
      log: (level, message) => this.log[level](`mcp: ${message}`),
    });
    this.handle = handle;
    const ep = handle.endpoint;
    const socket = ep.kind === 'socket';
    const where = socket ? { socketPath: ep.path } : { host: ep.host, port: ep.port };
    const uri = socket
      ? vscode.Uri.from({ scheme: 'unix', path: ep.path, fragment: '/mcp' })
      : vscode.Uri.parse(handle.url);
    const place = socket ? ep.path : `${ep.host}:${ep.port}`;
    const fingerprint = createHash('sha256').update(`${place}\n${secret}`).digest('hex').slice(0, 12);
    this.info = { kind: ep.kind, uri, ...where, headers: { [SECRET_HEADER]: secret }, fingerprint };
    if (this.endpointFile) {
      sweepStaleBridgeEndpoints(path.dirname(this.endpointFile));
      const file = { pid: process.pid, kind: ep.kind, ...where, path: '/mcp', header: SECRET_HEADER, secret };
      writeBridgeEndpoint(this.endpointFile, { v: 1, ...file });
    }
    this.log.info(`MCP server listening on ${socket ? `unix socket ${ep.path}` : handle.url}`);
    return this.info;
  }

  async stop(): Promise<void> {
    const h = this.handle;
    this.handle = undefined;
    this.info = undefined;
    if (h && this.endpointFile) fs.rmSync(this.endpointFile, { force: true });
    if (h) await h.close().catch(() => {});
  }

  dispose(): void {
    void this.stop();
  }
}
