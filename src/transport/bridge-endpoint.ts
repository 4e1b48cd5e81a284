/**
 * The endpoint file: how a local bridge process (`msgbrowse-mcp --bridge FILE`) finds the in-process MCP endpoint of
 * the VS Code extension host and proves it may use it. Written by the extension (0600, in its global storage, never
 * synced), rewritten with a fresh secret whenever the endpoint starts; read by the bridge at start. Only the path of
 * this file goes into the MCP server definition VS Code stores and forwards — never the secret.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const ENDPOINT_FILE_VERSION = 1;

export interface BridgeEndpoint {
  v: typeof ENDPOINT_FILE_VERSION;
  /** The extension host's process id: the bridge exits when it is gone. */
  pid: number;
  kind: 'socket' | 'tcp';
  socketPath?: string;
  host?: string;
  port?: number;
  /** HTTP request path of the MCP endpoint (`/mcp`). */
  path: string;
  /** The secret header's name and value. */
  header: string;
  secret: string;
}

/** Writes the file atomically with mode 0600 (its folder 0700 when created here). */
export function writeBridgeEndpoint(file: string, ep: BridgeEndpoint): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(ep), { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/** Reads and checks the file; throws one plain sentence on anything wrong. */
export function readBridgeEndpoint(file: string): BridgeEndpoint {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'ENOENT'
        ? `no msgbrowse endpoint file at ${file}: open VS Code with the msgbrowse extension (it writes this file when its MCP server starts)`
        : `cannot read the msgbrowse endpoint file ${file}: ${code ?? String(e)}`,
    );
  }
  let ep: Partial<BridgeEndpoint>;
  try {
    ep = JSON.parse(text) as Partial<BridgeEndpoint>;
  } catch {
    throw new Error(`the msgbrowse endpoint file ${file} is not valid JSON`);
  }
  const ok =
    ep.v === ENDPOINT_FILE_VERSION &&
    typeof ep.pid === 'number' &&
    (ep.kind === 'socket'
      ? typeof ep.socketPath === 'string'
      : ep.kind === 'tcp' && typeof ep.host === 'string' && typeof ep.port === 'number') &&
    typeof ep.path === 'string' &&
    typeof ep.header === 'string' &&
    typeof ep.secret === 'string' &&
    ep.secret.length > 0;
  if (!ok) throw new Error(`the msgbrowse endpoint file ${file} has an unexpected format (another extension version?)`);
  return ep as BridgeEndpoint;
}

/** Whether process `pid` still exists (EPERM: it exists, owned by someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The endpoint file of this process in `dir`: one per extension host (`<pid>.json`), since every VS Code window has
 * its own extension host and endpoint but all share the extension's global storage.
 */
export function bridgeEndpointFile(dir: string, pid = process.pid): string {
  return path.join(dir, `${pid}.json`);
}

/** Removes endpoint files in `dir` left by extension hosts that are gone (a crash skips the removal on stop). */
export function sweepStaleBridgeEndpoints(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^(\d+)\.json$/.exec(name);
    if (m && Number(m[1]) !== process.pid && !processAlive(Number(m[1])))
      fs.rmSync(path.join(dir, name), { force: true });
  }
}
