#!/usr/bin/env node
// Integration tests in a real VS Code extension host: build the bundles, bundle the mocha suite, generate the
// fixture archives and run them through @vscode/test-electron (code-server host here, see scripts/test-host/).
// Prints `N passed, N failed` last; exit code 0 only when everything passed.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = (args, what) => {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`integration: ${what} failed`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
};
run(['esbuild.js'], 'building the extension (node esbuild.js)');
run(['scripts/build-integration.js'], 'bundling the integration suite');
const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/integration/runTest.ts'], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
