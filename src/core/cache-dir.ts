/** Where the persistent vector-index cache lives: the user's cache dir, never beside the archive. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const CACHE_DIR_NAME = 'msgbrowse-vscode';

export function defaultCacheDir(
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, CACHE_DIR_NAME);
  // An empty or relative HOME must not put the cache under the current folder: the temp folder then.
  if (!path.isAbsolute(home)) home = os.tmpdir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Caches', CACHE_DIR_NAME);
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA?.trim() || path.join(home, 'AppData', 'Local');
    return path.join(local, CACHE_DIR_NAME, 'Cache');
  }
  return path.join(home, '.cache', CACHE_DIR_NAME);
}

/**
 * True when `cacheDir` is the archive's own directory or inside it (we never write there), compared as written and as
 * real paths (a symlink on either side must not lead a write in beside the archive).
 */
export function isBesideArchive(cacheDir: string, archiveFile: string): boolean {
  const within = (c: string, dir: string) => c === dir || c.startsWith(dir + path.sep);
  const dir = path.resolve(path.dirname(archiveFile));
  const c = path.resolve(cacheDir);
  return (
    within(c, dir) || within(realPath(c), realPath(dir)) || within(realPath(c), path.dirname(realPath(archiveFile)))
  );
}

/** `p` with symlinks resolved as far as it exists; the part not created yet is appended as written. */
function realPath(p: string): string {
  const rest: string[] = [];
  for (let cur = path.resolve(p); ; ) {
    try {
      return path.join(fs.realpathSync.native(cur), ...rest);
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return path.resolve(p);
      rest.unshift(path.basename(cur));
      cur = parent;
    }
  }
}
