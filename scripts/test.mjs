#!/usr/bin/env node
// `npm test`: the whole suite, the same on a laptop and in CI.
//   1. type-check (tsc --noEmit)      2. production bundles (esbuild), then the release artifacts (scripts/release.ts)
//   3. unit + protocol tests (node:test); then the MCP App view in Debian Chromium (test/app/: after the test host
//      install in a full run, which brings Chromium; right after step 3 with --unit, skipped when no Chromium)
//   4. the official MCP Inspector (CLI mode) as an independent client of the built server, then the official MCP
//      conformance runner (@modelcontextprotocol/conformance) against it over HTTP, compared with its baseline
//   5. the CLI's protocol tests again under Node 22 and Node 24 (the README claims Node 20+)
//   6. integration tests inside a real VS Code extension host (installs the offline host on first run)
// Ends with one line `N passed, N failed` over all suites. `--unit` runs steps 1–3 (and the app view) only.
//
// Under CI=true the offline test host is installed cold on every run — a fresh directory and a fresh npm cache — so a
// cached host can never hide a broken install step (about 3 minutes). Elsewhere it is cached in
// ${MSGBROWSE_TEST_HOST_DIR:-~/.cache/msgbrowse-test-host}.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNative } from './ensure-native.mjs';
import { readHostEnv } from './test-host/host-env.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const unitOnly = process.argv.includes('--unit');
const totals = { passed: 0, failed: 0, skipped: 0 };
const failedSteps = [];

/** A step that cannot run because an earlier one failed: one line, counted as a failure. */
function blocked(title, why) {
  console.log(`\n━━ ${title} ━━\n${why}\n── ${title}: FAILED (not run)`);
  failedSteps.push(title);
  totals.failed += 1;
}

function step(title, cmd, argv, { parse, env } = {}) {
  return new Promise((resolve) => {
    console.log(`\n━━ ${title} ━━`);
    const started = Date.now();
    const child = spawn(cmd, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      out += d;
      process.stderr.write(d);
    });
    child.on('close', (code) => {
      const counts = parse ? parse(out) : undefined;
      if (counts) {
        totals.passed += counts.passed;
        totals.failed += counts.failed;
        totals.skipped += counts.skipped ?? 0;
      }
      const ok = code === 0 && (!counts || counts.failed === 0);
      if (!ok) failedSteps.push(title);
      console.log(
        `── ${title}: ${ok ? 'ok' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
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

/** Every `*.test.ts` under test/ (a folder per src/ layer, plus stress/ and fixtures/); test/integration/ runs inside
 * VS Code (step 6), test/app/ in Chromium (its own step, after the test host that brings Chromium), not here. */
const allTestFiles = fs
  .readdirSync(path.join(root, 'test'), { recursive: true })
  .map((f) => `test/${String(f).split(path.sep).join('/')}`)
  .filter((f) => f.endsWith('.test.ts'))
  .sort();
const unitFiles = allTestFiles.filter((f) => !f.startsWith('test/integration/') && !f.startsWith('test/app/'));
const appFiles = allTestFiles.filter((f) => f.startsWith('test/app/'));
/** The MCP App view (dist/thread-app.html) in the test host's Debian Chromium through playwright-core. */
const appViewStep = (env) =>
  step(
    'MCP App view in Chromium (Playwright, ext-apps AppBridge as the host)',
    'node',
    ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...appFiles],
    {
      parse: parseNodeTest,
      env,
    },
  );

const tsc = path.join(root, 'node_modules/.bin/tsc');
if (!fs.existsSync(tsc)) {
  console.log('Installing dependencies (npm ci)…');
  if (spawnSync('npm', ['ci', '--no-fund', '--no-audit'], { cwd: root, stdio: 'inherit' }).status !== 0)
    process.exit(1);
}
// `npm start` installs with --ignore-scripts; the fixture generator and the parity tests need better-sqlite3 built.
if (!ensureNative()) process.exit(1);

await step('Format and lint (Biome; `npm run format` fixes)', path.join(root, 'node_modules/.bin/biome'), [
  'check',
  '.',
]);
await step('Type-check', tsc, ['-p', '.', '--noEmit']);
await step('Type-check the webview script', tsc, ['-p', 'media/viewer', '--noEmit']);
await step('Type-check the MCP App view', tsc, ['-p', 'media/app', '--noEmit']);
await step('Build bundles', 'node', ['esbuild.js']);
// What people install (VSIX, npm package, MCP Bundle, server.json): the unit step installs the package and the bundle,
// the integration step runs the extension from the VSIX.
const released = await step('Release artifacts (npm run release -- --allow-dirty)', 'node', [
  '--import',
  'tsx',
  'scripts/release.ts',
  '--allow-dirty',
]);
const vsixFile = path.join(root, 'release', `${pkg.name}-${pkg.version}.vsix`);
await step(
  `Unit and protocol tests (${unitFiles.length} files)`,
  'node',
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...unitFiles],
  { parse: parseNodeTest, env: { CI: process.env.CI ?? '' } },
);
// Offline route to a real VS Code (code-server + Debian Chromium, see scripts/test-host/). Elsewhere, or with
// VSCODE_TEST_EXECUTABLE set, @vscode/test-electron uses that executable or downloads desktop VS Code.
const offlineHost =
  process.platform === 'linux' &&
  !process.env.VSCODE_TEST_EXECUTABLE &&
  spawnSync('sh', ['-c', 'command -v apt-get && command -v dpkg-query'], { stdio: 'ignore' }).status === 0;

if (unitOnly) await appViewStep({});

if (!unitOnly) {
  const hostEnv = {};
  let freshHostDir;
  if (process.env.CI === 'true' && !process.env.MSGBROWSE_TEST_HOST_DIR && offlineHost) {
    freshHostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-test-host-cold-'));
    Object.assign(hostEnv, { MSGBROWSE_TEST_HOST_DIR: freshHostDir, MSGBROWSE_TEST_HOST_FRESH_NPM_CACHE: '1' });
    console.log(`\nCI: installing the offline test host cold into ${freshHostDir} (fresh npm cache)`);
  }
  if (!offlineHost && !process.env.VSCODE_TEST_EXECUTABLE) hostEnv.MSGBROWSE_TEST_VSCODE = 'download';
  const hostDir =
    hostEnv.MSGBROWSE_TEST_HOST_DIR ||
    process.env.MSGBROWSE_TEST_HOST_DIR ||
    path.join(os.homedir(), '.cache', 'msgbrowse-test-host');
  const hostReady = offlineHost
    ? await step(
        'Install the offline VS Code test host (first run only; every run under CI)',
        'bash',
        ['scripts/test-host/setup.sh'],
        { env: hostEnv },
      )
    : true;
  await appViewStep(hostEnv);
  await step(
    'Independent client: the official MCP Inspector (CLI mode) against dist/cli.js',
    'node',
    ['scripts/test-inspector.mjs'],
    {
      parse: parsePlain,
      env: freshHostDir ? { ...hostEnv, npm_config_cache: path.join(freshHostDir, 'npm-cache') } : hostEnv,
    },
  );
  // The official conformance runner (devDependency, exact pin) under the test host's Node >= 22: the frozen requirement
  // sets of 2025-11-25 and 2026-07-28; each baseline (scripts/conformance/) lists only checks that need the runner's
  // own fixture tools/resources/prompts.
  await step(
    'Official MCP conformance runner (2025-11-25 and 2026-07-28 requirement sets) against dist/cli.js over HTTP',
    'node',
    ['scripts/test-conformance.mjs'],
    {
      parse: parsePlain,
      env: hostEnv,
    },
  );
  const cliTests = [
    'test/cli/stdio.test.ts',
    'test/cli/http.test.ts',
    'test/cli/live-surface.test.ts',
    'test/release/install.test.ts',
  ];
  const nodes = offlineHost && hostReady ? readHostEnv(hostDir) : {};
  for (const major of ['22', '24']) {
    const title = `CLI protocol tests with the CLI under Node ${major}`;
    const bin = nodes[`NODE${major}`];
    if (!offlineHost) {
      console.log(
        `\n(${title}: skipped off the offline route; run them with MSGBROWSE_CLI_NODE=<node ${major}> node --import tsx --test ${cliTests.join(' ')})`,
      );
    } else if (!bin || !fs.existsSync(bin)) {
      blocked(
        title,
        `Node ${major} is missing from ${hostDir}/host.env: the test host install failed above (bash scripts/test-host/setup.sh installs it).`,
      );
    } else {
      await step(
        title,
        'node',
        ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...cliTests],
        {
          parse: parseNodeTest,
          env: { MSGBROWSE_CLI_NODE: bin },
        },
      );
    }
  }
  const integration = 'Integration tests in a real VS Code extension host';
  if (hostReady)
    await step(integration, 'node', ['scripts/test-integration.mjs'], {
      parse: parsePlain,
      env: { ...hostEnv, ...(released ? { MSGBROWSE_IT_VSIX: vsixFile } : {}) },
    });
  else
    blocked(
      integration,
      `The offline VS Code test host is not installed (see the install step above); fix it, then run: bash scripts/test-host/setup.sh`,
    );
  if (freshHostDir) fs.rmSync(freshHostDir, { recursive: true, force: true });
}

console.log(`\n${failedSteps.length ? `Failed steps: ${failedSteps.join(', ')}` : 'All steps passed.'}`);
console.log(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(failedSteps.length || totals.failed ? 1 : 0);
