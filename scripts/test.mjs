#!/usr/bin/env node
// `npm test`: the whole suite, the same on a laptop and in CI.
//   1. type-check (tsc --noEmit)      2. production bundles (esbuild)
//   3. unit + protocol tests (node:test)
//   4. the official MCP Inspector (CLI mode) as an independent client of the built server
//   5. integration tests inside a real VS Code extension host (installs the offline host on first run)
// Ends with one line `N passed, N failed` over all suites. `--unit` runs steps 1–3 only.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const unitOnly = process.argv.includes('--unit');
const totals = { passed: 0, failed: 0, skipped: 0 };
let failedSteps = [];

function step(title, cmd, argv, { parse, env } = {}) {
  return new Promise((resolve) => {
    console.log(`\n━━ ${title} ━━`);
    const started = Date.now();
    const child = spawn(cmd, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; process.stdout.write(d); });
    child.stderr.on('data', (d) => { out += d; process.stderr.write(d); });
    child.on('close', (code) => {
      const counts = parse ? parse(out) : undefined;
      if (counts) {
        totals.passed += counts.passed;
        totals.failed += counts.failed;
        totals.skipped += counts.skipped ?? 0;
      }
      const ok = code === 0 && (!counts || counts.failed === 0);
      if (!ok) failedSteps.push(title);
      console.log(`── ${title}: ${ok ? 'ok' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      resolve(ok);
    });
  });
}

/** node:test prints `ℹ pass N`, `ℹ fail N`, `ℹ skipped N` (spec reporter). */
function parseNodeTest(out) {
  const n = (k) => Number((out.match(new RegExp(`^ℹ ${k} (\\d+)`, 'm')) ?? [])[1] ?? NaN);
  const passed = n('pass');
  const failed = n('fail') + (n('cancelled') || 0);
  if (Number.isNaN(passed) || Number.isNaN(failed)) return { passed: 0, failed: 1 };
  return { passed, failed, skipped: (n('skipped') || 0) + (n('todo') || 0) };
}

/** The integration runner prints `N passed, N failed` alone on a line. */
function parsePlain(out) {
  const m = [...out.matchAll(/^(\d+) passed, (\d+) failed/gm)].pop();
  return m ? { passed: Number(m[1]), failed: Number(m[2]) } : { passed: 0, failed: 1 };
}

const unitFiles = ['test/unit', 'test/integration/unit'].flatMap((dir) =>
  fs
    .readdirSync(path.join(root, dir))
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => `${dir}/${f}`),
);

const tsc = path.join(root, 'node_modules/.bin/tsc');
if (!fs.existsSync(tsc)) {
  console.log('Installing dependencies (npm ci)…');
  if (spawnSync('npm', ['ci', '--no-fund', '--no-audit'], { cwd: root, stdio: 'inherit' }).status !== 0) process.exit(1);
}

await step('Type-check', tsc, ['-p', '.', '--noEmit']);
await step('Type-check the webview script', tsc, ['-p', 'media/viewer', '--noEmit']);
await step('Build bundles', 'node', ['esbuild.js']);
await step(
  `Unit and protocol tests (${unitFiles.length} files)`,
  'node',
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...unitFiles],
  { parse: parseNodeTest, env: { CI: process.env.CI ?? '' } },
);
// Offline route to a real VS Code (code-server + Debian Chromium, see scripts/test-host/). Elsewhere, or with
// VSCODE_TEST_EXECUTABLE set, @vscode/test-electron uses that executable or downloads desktop VS Code as usual.
const offlineHost =
  process.platform === 'linux' &&
  !process.env.VSCODE_TEST_EXECUTABLE &&
  spawnSync('sh', ['-c', 'command -v apt-get && command -v dpkg-query'], { stdio: 'ignore' }).status === 0;

if (!unitOnly) {
  if (offlineHost) {
    await step('Install the offline VS Code test host (first run only)', 'bash', ['scripts/test-host/setup.sh']);
  }
  await step('Independent client: the official MCP Inspector (CLI mode) against dist/cli.js', 'node', ['scripts/test-inspector.mjs'], {
    parse: parsePlain,
  });
  await step('Integration tests in a real VS Code extension host', 'node', ['scripts/test-integration.mjs'], {
    parse: parsePlain,
  });
}

console.log(`\n${failedSteps.length ? `Failed steps: ${failedSteps.join(', ')}` : 'All steps passed.'}`);
console.log(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(failedSteps.length || totals.failed ? 1 : 0);
