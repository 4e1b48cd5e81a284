// The endpoint file (0600): how the bridge finds the extension host's MCP endpoint and its secret, rewritten whenever
// the endpoint starts. Only its path goes into the server definition VS Code stores and forwards, never the secret.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const ENDPOINT_FILE_VERSION = 1;

export interface BridgeEndpoint {
  v: typeof ENDPOINT_FILE_VERSION;
  /** The extension host's: the bridge exits when it is gone. */
  pid: number;
  kind: 'socket' | 'tcp';
  socketPath?: string;
  host?: string;
  port?: number;
  path: string;
  /** The secret header's name. */
  header: string;
  secret: string;
}

/** Atomically, so the bridge never reads half a file. */
export function writeBridgeEndpoint(file: string, ep: BridgeEndpoint): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(ep), { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/** Throws one plain sentence on anything wrong. */
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

/** One file per extension host: every VS Code window has its own, and all share the extension's global storage. */
export function bridgeEndpointFile(dir: string, pid = process.pid): string {
  return path.join(dir, `${pid}.json`);
}

/** Removes the files of extension hosts that are gone (a crash skips the removal on stop). */
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
