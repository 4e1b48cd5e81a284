// Where msgbrowse keeps its archive when `msgbrowse.archivePath` is not set, in msgbrowse's own order:
// `MSGBROWSE_DATA_DIR`, `./data` of each workspace folder, `~/.config/msgbrowse`, `<os.UserConfigDir>/msgbrowse`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ARCHIVE_FILE_NAME } from '../core';

export interface DiscoveryEnv {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
  workspaceFolders: string[];
  exists(file: string): boolean;
}

export interface Candidate {
  file: string;
  why: string;
}

/** Go's os.UserConfigDir. */
export function userConfigDir(e: Pick<DiscoveryEnv, 'env' | 'platform' | 'home'>): string | undefined {
  if (e.platform === 'win32') return e.env.APPDATA || undefined;
  if (e.platform === 'darwin') return path.join(e.home, 'Library', 'Application Support');
  const xdg = e.env.XDG_CONFIG_HOME;
  return xdg && path.isAbsolute(xdg) ? xdg : path.join(e.home, '.config');
}

export function candidates(e: DiscoveryEnv): Candidate[] {
  const out: Candidate[] = [];
  const add = (dir: string | undefined, why: string) => {
    if (!dir) return;
    const file = path.join(dir, ARCHIVE_FILE_NAME);
    if (!out.some((c) => c.file === file)) out.push({ file, why });
  };
  add(e.env.MSGBROWSE_DATA_DIR, 'MSGBROWSE_DATA_DIR');
  for (const ws of e.workspaceFolders) add(path.join(ws, 'data'), `workspace ${path.basename(ws)}/data`);
  add(path.join(e.home, '.config', 'msgbrowse'), '~/.config/msgbrowse');
  const ucd = userConfigDir(e);
  if (ucd) add(path.join(ucd, 'msgbrowse'), 'msgbrowse desktop app data');
  return out;
}

/** The first existing candidate, or undefined plus the list that was searched (for the welcome view). */
export function discoverArchive(e: DiscoveryEnv): { found?: Candidate; searched: Candidate[] } {
  const searched = candidates(e);
  return { found: searched.find((c) => e.exists(c.file)), searched };
}

export function defaultDiscoveryEnv(workspaceFolders: string[]): DiscoveryEnv {
  return { env: process.env, platform: process.platform, home: os.homedir(), workspaceFolders, exists: isFile };
}

export function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
