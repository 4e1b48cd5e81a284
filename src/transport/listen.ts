/** Where the HTTP server listens: loopback TCP, or a Unix socket / Windows named pipe nobody else can reach. */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { isIP } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export type ListenTarget =
  | {
      /** Default `127.0.0.1`. Anything that is not loopback needs `allowRemote: true`. */
      host?: string;
      /** 0 (default) picks a free port. */
      port?: number;
      allowRemote?: boolean;
    }
  | {
      /** A Unix socket or Windows pipe; `'auto'`: one in a new private temp dir, or a random pipe, removed on close. */
      socketPath: string;
    };

export type BoundEndpoint =
  | { kind: 'tcp'; host: string; port: number; remote: boolean }
  | { kind: 'socket'; path: string; createdDir?: string };

export class ListenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListenError';
  }
}

/** True for `localhost`, `127.0.0.0/8`, `::1` and IPv4-mapped loopback. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h) || h === '0:0:0:0:0:0:0:1';
  return false;
}

export function isWildcardHost(host: string): boolean {
  const h = host.trim().replace(/^\[(.*)\]$/, '$1');
  return h === '0.0.0.0' || h === '::' || h === '';
}

const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'no such local address',
  ENOTFOUND: 'no such local address',
};

async function listenOn(server: Server, arg: { host: string; port: number } | { path: string }): Promise<void> {
  const listening = once(server, 'listening'); // rejects on 'error'
  server.listen(arg);
  try {
    await listening;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const where = 'path' in arg ? arg.path : `${arg.host}:${arg.port}`;
    throw new ListenError(`cannot listen on ${where}: ${LISTEN_ERRORS[err.code ?? ''] ?? err.message}`);
  }
}

/** Binds `server` to the target; refuses non-loopback hosts unless `allowRemote`. */
export async function bind(server: Server, target: ListenTarget): Promise<BoundEndpoint> {
  if ('socketPath' in target) {
    let socketPath = target.socketPath;
    let createdDir: string | undefined;
    if (socketPath === 'auto') {
      if (process.platform === 'win32') {
        socketPath = `\\\\.\\pipe\\msgbrowse-mcp-${randomBytes(16).toString('hex')}`;
      } else {
        createdDir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-mcp-'));
        fs.chmodSync(createdDir, 0o700);
        socketPath = path.join(createdDir, 'mcp.sock');
      }
    } else if (process.platform !== 'win32') {
      const dir = path.dirname(socketPath);
      const st = fs.statSync(dir, { throwIfNoEntry: false });
      if (!st?.isDirectory()) throw new ListenError(`cannot listen on ${socketPath}: directory ${dir} does not exist`);
      if ((st.mode & 0o077) !== 0)
        throw new ListenError(
          `cannot listen on ${socketPath}: directory ${dir} is accessible to other users; use a private (0700) directory`,
        );
    }
    try {
      await listenOn(server, { path: socketPath });
    } catch (e) {
      if (createdDir) fs.rmSync(createdDir, { recursive: true, force: true });
      throw e;
    }
    if (process.platform !== 'win32') fs.chmodSync(socketPath, 0o600);
    return { kind: 'socket', path: socketPath, createdDir };
  }

  const host = target.host ?? '127.0.0.1';
  const port = target.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ListenError(`invalid port ${port}: use 0 (any free port) to 65535`);
  const remote = !isLoopbackHost(host);
  if (remote && !target.allowRemote)
    throw new ListenError(
      `refusing to listen on ${host}: not a loopback address (127.0.0.1, ::1, localhost); ` +
        'allow remote access explicitly (--allow-remote) if you really want other machines to reach your archive',
    );
  const bindHost = host.replace(/^\[(.*)\]$/, '$1');
  await listenOn(server, { host: bindHost, port });
  const addr = server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  return { kind: 'tcp', host: bindHost, port: actualPort, remote };
}

/** Removes what `bind` created for a socket listener. */
export function cleanupEndpoint(ep: BoundEndpoint): void {
  if (ep.kind !== 'socket') return;
  if (ep.createdDir) fs.rmSync(ep.createdDir, { recursive: true, force: true });
  else if (process.platform !== 'win32') fs.rmSync(ep.path, { force: true });
}
