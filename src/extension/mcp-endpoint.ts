/**
 * The in-process MCP endpoint: streamable HTTP on a private Unix socket (VS Code ≥ 1.105), else on 127.0.0.1.
 * Every request must carry the per-session secret header; refusals are 404, never 401/403 (those would start
 * VS Code's OAuth flow).
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { createMcpServer, type McpTrafficEvent } from '../mcp';
import type { ServerContext } from '../core';
import { serveHttp, sweepStaleBridgeEndpoints, writeBridgeEndpoint, type HttpServerHandle } from '../transport';
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

/** Unix sockets for HTTP MCP servers arrived in VS Code 1.105 (not used on Windows, where TCP is simpler). */
function supportsSocket(version: string, platform: NodeJS.Platform): boolean {
  if (platform === 'win32') return false;
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  return major > 1 || (major === 1 && minor >= 105);
}

export class McpEndpoint implements vscode.Disposable {
  /** Hears the MCP traffic of every session started from now on (the test hooks set it). */
  observe?: (e: McpTrafficEvent) => void;
  private handle: HttpServerHandle | undefined;
  private starting: Promise<EndpointInfo> | undefined;
  private info: EndpointInfo | undefined;
  private started = 0;
  /** Fresh per listener, so a copy of an older endpoint file is useless. */
  private secret = randomBytes(32).toString('base64url');

  constructor(
    private readonly context: ServerContext,
    private readonly preferred: () => EndpointKind | 'auto',
    private readonly log: vscode.LogOutputChannel,
    /** What the stdio bridge reads (0600): rewritten with the secret when the listener starts, removed when it stops. */
    readonly endpointFile?: string,
  ) {}

  get current(): EndpointInfo | undefined {
    return this.info;
  }

  sessionCount(): number {
    return this.handle?.sessionCount() ?? 0;
  }

  private wantedKind(): EndpointKind {
    const p = this.preferred();
    if (p === 'tcp') return 'tcp';
    return supportsSocket(vscode.version, process.platform) ? 'socket' : 'tcp';
  }

  /** Starts the listener if needed (or restarts it when the preferred kind changed). */
  ensure(): Promise<EndpointInfo> {
    if (this.info && this.info.kind === this.wantedKind()) return Promise.resolve(this.info);
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async start(): Promise<EndpointInfo> {
    await this.stop();
    if (this.started++ > 0) this.secret = randomBytes(32).toString('base64url');
    const kind = this.wantedKind();
    const handle = await serveHttp({
      createServer: () => createMcpServer(this.context, this.observe ? { observe: this.observe } : {}),
      listen: kind === 'socket' ? { socketPath: 'auto' } : { host: '127.0.0.1', port: 0 },
      secret: this.secret,
      secretHeader: SECRET_HEADER,
      log: (level, message) => this.log[level](`mcp: ${message}`),
    });
    this.handle = handle;
    const headers = { [SECRET_HEADER]: this.secret };
    const ep = handle.endpoint;
    const where = ep.kind === 'socket' ? ep.path : `${ep.host}:${ep.port}`;
    const fingerprint = createHash('sha256').update(`${where}\n${this.secret}`).digest('hex').slice(0, 12);
    this.info =
      ep.kind === 'socket'
        ? {
            kind: 'socket',
            uri: vscode.Uri.from({ scheme: 'unix', path: ep.path, fragment: '/mcp' }),
            socketPath: ep.path,
            headers,
            fingerprint,
          }
        : { kind: 'tcp', uri: vscode.Uri.parse(handle.url), host: ep.host, port: ep.port, headers, fingerprint };
    if (this.endpointFile) {
      sweepStaleBridgeEndpoints(path.dirname(this.endpointFile));
      writeBridgeEndpoint(this.endpointFile, {
        v: 1,
        pid: process.pid,
        kind: ep.kind,
        ...(ep.kind === 'socket' ? { socketPath: ep.path } : { host: ep.host, port: ep.port }),
        path: '/mcp',
        header: SECRET_HEADER,
        secret: this.secret,
      });
    }
    this.log.info(`MCP server listening on ${ep.kind === 'socket' ? `unix socket ${ep.path}` : handle.url}`);
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
