/** The --http token, stable across restarts so a saved client configuration keeps working; 0600 in a 0700 folder. */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

function stateDir(env: NodeJS.ProcessEnv): string {
  const home = os.homedir();
  const xdg = env.XDG_STATE_HOME?.trim();
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'msgbrowse-mcp');
  // An empty or relative HOME would put the token under the current folder (perhaps beside the archive).
  if (!path.isAbsolute(home))
    throw new Error(`the home folder is ${JSON.stringify(home)}, not an absolute path; set HOME or XDG_STATE_HOME`);
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'msgbrowse-mcp');
  if (process.platform === 'win32')
    return path.join(env.LOCALAPPDATA?.trim() || path.join(home, 'AppData', 'Local'), 'msgbrowse-mcp');
  return path.join(home, '.local', 'state', 'msgbrowse-mcp');
}

export interface StoredToken {
  token: string;
  file: string;
  created: boolean;
  /** The file could be read by others and was made private again. */
  tightened: boolean;
}

const VALID = /^[A-Za-z0-9_-]{32,}$/;

/** The token kept in the user's state folder, made at first use or (`rotate`) replaced. */
export function storedToken(env: NodeJS.ProcessEnv, rotate: boolean): StoredToken {
  const file = path.join(stateDir(env), 'http-token');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  if (!rotate) {
    try {
      const token = fs.readFileSync(file, 'utf8').trim();
      if (VALID.test(token)) {
        const loose = process.platform !== 'win32' && (fs.statSync(file).mode & 0o077) !== 0;
        if (loose) fs.chmodSync(file, 0o600);
        return { token, file, created: false, tightened: loose };
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  const token = randomBytes(24).toString('base64url');
  // Written beside and renamed over: a reader never sees half a token, and the file is private from its first byte.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return { token, file, created: true, tightened: false };
}
