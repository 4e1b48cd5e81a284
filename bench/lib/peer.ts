/** The native peer (bench/peer/server.ts) bundled like our CLI, so neither pays for loading modules one by one. */
import { buildSync } from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO } from './proc';

export function ensurePeerBundle(log: (m: string) => void): string {
  const src = path.join(REPO, 'bench', 'peer', 'server.ts');
  // Inside node_modules, where the bundle's require('better-sqlite3') resolves.
  const out = path.join(REPO, 'node_modules', '.cache', 'msgbrowse-peer', 'peer.js');
  if (!fs.existsSync(out) || fs.statSync(out).mtimeMs < fs.statSync(src).mtimeMs) {
    log('bundling the native peer (bench/peer/server.ts)');
    buildSync({
      entryPoints: [src],
      outfile: out,
      bundle: true,
      minify: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['better-sqlite3'],
      logLevel: 'error',
    });
  }
  return out;
}
