#!/usr/bin/env node
// Builds the test- and bench-only native module (better-sqlite3, the fixture generator's writer and the benchmarks'
// native baseline) when the installed copy cannot load — as after `npm start`, which installs with --ignore-scripts so
// a newcomer's first command never spends two minutes compiling SQLite. Quiet when there is nothing to do.
//   node scripts/ensure-native.mjs        (npm test, npm run bench, npm run fixtures and npm run demo call it)
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const probe = "new (require('better-sqlite3'))(':memory:').close()";
const loads = () => spawnSync(process.execPath, ['-e', probe], { cwd: root, stdio: 'ignore' }).status === 0;

export function ensureNative() {
  if (loads()) return true;
  console.error('• Building better-sqlite3 for the tests and benchmarks (npm rebuild, about 2 minutes on 2 cores)…');
  const r = spawnSync('npm', ['rebuild', 'better-sqlite3', '--no-fund', '--no-audit'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0 || !loads()) {
    console.error(
      '✖ better-sqlite3 could not be built (needs python3, make and a C++ compiler); see the npm output above.',
    );
    return false;
  }
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exit(ensureNative() ? 0 : 1);
