/**
 * Runs the integration suite inside a real VS Code extension host with @vscode/test-electron's runTests().
 * Here (offline) the host is code-server driven by Chromium through scripts/test-host/code-server-test-host.mjs
 * (VSCODE_TEST_EXECUTABLE, or found automatically once scripts/test-host/setup.sh has run). Only with
 * MSGBROWSE_TEST_VSCODE=download (what `npm test` sets off the offline route, e.g. on macOS) does runTests download
 * desktop VS Code. Never skips: no host → one line saying what is missing and how to install it, and the run fails.
 * Ends with the line `N passed, N failed`.
 *
 *   node --import tsx test/integration/runTest.ts      (after `node esbuild.js` and `node scripts/build-integration.js`)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { unzipSync } from 'fflate';
import { TEST_HOOKS_ENV } from '../../src/extension/test-api';
import { MANIFEST_ENV, type IntegrationResults } from './manifest';
import { prepare } from './prepare';

const repo = path.resolve(__dirname, '..', '..');

/** The host to run in: an executable, `download` (desktop VS Code through @vscode/test-electron), or why there is none. */
function hostExecutable(): { exe?: string; missing?: string } {
  if (process.env.VSCODE_TEST_EXECUTABLE) {
    const exe = path.resolve(process.env.VSCODE_TEST_EXECUTABLE);
    return fs.existsSync(exe) ? { exe } : { missing: `VSCODE_TEST_EXECUTABLE=${exe} does not exist` };
  }
  if (process.env.MSGBROWSE_TEST_VSCODE === 'download') return {};
  const hostDir = process.env.MSGBROWSE_TEST_HOST_DIR || path.join(os.homedir(), '.cache', 'msgbrowse-test-host');
  if (fs.existsSync(path.join(hostDir, 'host.env')))
    return { exe: path.join(repo, 'scripts', 'test-host', 'code-server-test-host.mjs') };
  return {
    missing:
      `the offline VS Code test host is not installed (no ${path.join(hostDir, 'host.env')}); install it with ` +
      '`bash scripts/test-host/setup.sh` (`npm test` runs it on Linux with apt-get), or set VSCODE_TEST_EXECUTABLE, ' +
      'or MSGBROWSE_TEST_VSCODE=download to let @vscode/test-electron download desktop VS Code',
  };
}

/**
 * `code-server --install-extension` with the released VSIX, into a scratch folder: VS Code's own install accepts it
 * (manifest, engine, packaging). The suite then runs its files unpacked, in development mode, because VS Code gives
 * test hooks only to an extension under development. Returns why it was refused, or undefined.
 */
function installVsix(vsix: string, extensionsDir: string): string | undefined {
  const hostDir = process.env.MSGBROWSE_TEST_HOST_DIR || path.join(os.homedir(), '.cache', 'msgbrowse-test-host');
  const env = Object.fromEntries(
    fs
      .readFileSync(path.join(hostDir, 'host.env'), 'utf8')
      .split('\n')
      .flatMap((l) => (/^[A-Z0-9_]+=/.test(l) ? [[l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]] : [])),
  );
  const r = spawnSync(env.CS_NODE, [env.CS_ENTRY, '--extensions-dir', extensionsDir, '--install-extension', vsix], {
    encoding: 'utf8',
    // Its data and config under the scratch folder, never the person's ~/.config/code-server.
    env: {
      ...process.env,
      XDG_DATA_HOME: path.join(extensionsDir, '.xdg'),
      XDG_CONFIG_HOME: path.join(extensionsDir, '.xdg'),
    },
  });
  const out = `${r.stdout}${r.stderr}`;
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
    publisher: string;
    name: string;
    version: string;
  };
  const installed = path.join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`, 'package.json');
  if (r.status !== 0 || !fs.existsSync(installed)) return `exit ${r.status}: ${out.trim()}`;
  console.log(`integration: code-server installed ${path.basename(vsix)} (${out.trim().split('\n').pop()})`);
  return undefined;
}

async function main(): Promise<number> {
  const suite = path.join(repo, 'out', 'integration', 'suite.js');
  for (const f of [suite, path.join(repo, 'dist', 'extension.js'), path.join(repo, 'dist', 'viewer.js')]) {
    if (!fs.existsSync(f)) {
      console.error(
        `integration: ${path.relative(repo, f)} is missing; run node esbuild.js && node scripts/build-integration.js`,
      );
      console.log('0 passed, 1 failed');
      return 1;
    }
  }
  const host = hostExecutable();
  if (host.missing) {
    console.error(`integration: ${host.missing}`);
    console.log('0 passed, 1 failed');
    return 1;
  }
  const exe = host.exe;
  const prepared = await prepare();
  // Run the extension from a staged copy holding only what ships: the released VSIX's `extension/` folder, as VS Code
  // installs it (MSGBROWSE_IT_VSIX, what `npm test` passes), else the files it would pack. Either way the bundles need
  // no node_modules, and a concurrent rebuild of dist/ cannot pull files from under the running host.
  const staged = path.join(prepared.root, 'extension');
  const vsix = process.env.MSGBROWSE_IT_VSIX;
  if (vsix && exe?.endsWith('code-server-test-host.mjs')) {
    const accepted = installVsix(vsix, path.join(prepared.root, 'installed-extensions'));
    if (accepted) {
      console.error(`integration: code-server refused ${path.relative(repo, vsix)}: ${accepted}`);
      await prepared.close();
      console.log('0 passed, 1 failed');
      return 1;
    }
  }
  if (vsix) {
    for (const [name, data] of Object.entries(unzipSync(fs.readFileSync(vsix)))) {
      if (!name.startsWith('extension/') || name.endsWith('/')) continue;
      const to = path.join(staged, name.slice('extension/'.length));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.writeFileSync(to, data);
    }
  } else {
    for (const entry of ['package.json', 'dist', 'media', 'README.md', 'LICENSE']) {
      const from = path.join(repo, entry);
      if (fs.existsSync(from)) fs.cpSync(from, path.join(staged, entry), { recursive: true });
    }
  }
  // The scripted-model test extension of the agent suite (test/integration/agent-extension): a second
  // development extension beside ours, staged from test/ (never part of the VSIX).
  const agentExtension = path.join(prepared.root, 'agent-extension');
  fs.cpSync(path.join(repo, 'test', 'integration', 'agent-extension'), agentExtension, { recursive: true });
  console.log(
    `integration: host ${exe ? path.relative(repo, exe) : 'downloaded by @vscode/test-electron'}; extension ${vsix ? `from ${path.relative(repo, vsix)}` : 'from the working tree'}; fixtures in ${prepared.root}`,
  );
  let runError: string | undefined;
  const userData = path.join(prepared.root, 'user-data');
  const extensionsDir = path.join(prepared.root, 'extensions');
  try {
    await runTests({
      vscodeExecutablePath: exe,
      extensionDevelopmentPath: [staged, agentExtension],
      extensionTestsPath: suite,
      launchArgs: [
        prepared.manifest.workspace,
        `--user-data-dir=${userData}`,
        `--extensions-dir=${extensionsDir}`,
        '--disable-extensions',
      ],
      // TEST_HOOKS_ENV: the extension attaches its test hooks (src/extension/test-api.ts) only when asked, under tests.
      // MSGBROWSE_TEST_AGENT_CHAT: the host wrapper seeds the workbench so VS Code's own chat agent runs offline with
      // the test model, and serves the suite's DOM requests (scripts/test-host/code-server-test-host.mjs).
      extensionTestsEnv: {
        [MANIFEST_ENV]: prepared.manifestFile,
        [TEST_HOOKS_ENV]: '1',
        MSGBROWSE_TEST_AGENT_CHAT: '1',
        ...(process.env.MSGBROWSE_IT_GREP ? { MSGBROWSE_IT_GREP: process.env.MSGBROWSE_IT_GREP } : {}),
      },
    });
  } catch (e) {
    runError = e instanceof Error ? e.message : String(e);
  } finally {
    await prepared.close();
  }
  let results: IntegrationResults | undefined;
  try {
    results = JSON.parse(fs.readFileSync(prepared.manifest.resultsFile, 'utf8')) as IntegrationResults;
  } catch {
    /* the suite never ran */
  }
  if (process.env.KEEP_FIXTURES !== '1') fs.rmSync(prepared.root, { recursive: true, force: true });
  if (!results) {
    console.error(`integration: the suite did not report results${runError ? ` (${runError})` : ''}`);
    console.log('0 passed, 1 failed');
    return 1;
  }
  for (const f of results.failures) console.error(`FAILED: ${f.title}\n  ${f.error.split('\n').join('\n  ')}`);
  const failed = results.failed + (runError && results.failed === 0 ? 1 : 0);
  if (runError && results.failed === 0) console.error(`integration: host run failed: ${runError}`);
  console.log(`${results.passed} passed, ${failed} failed`);
  return failed === 0 && results.passed > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`integration: ${e instanceof Error ? e.message : String(e)}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
