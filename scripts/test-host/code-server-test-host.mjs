#!/usr/bin/env node
/**
 * A drop-in `vscodeExecutablePath` for @vscode/test-electron's runTests(): runs the extension tests inside a REAL
 * VS Code extension host — code-server (VS Code server + Node extension host) driven by headless Chromium —
 * using VS Code's own smoke-test-driver route (workbench URL `payload` + window.codeAutomationExit).
 *
 * Host location: CS_NODE / CS_ENTRY / CHROMIUM env vars, else `${MSGBROWSE_TEST_HOST_DIR:-~/.cache/msgbrowse-test-host}/host.env`
 * (written by scripts/test-host/setup.sh). Options: TEST_TIMEOUT_S (default 300), VERBOSE=1 (all workbench logs),
 * SHOT=file.png (screenshot at the end, or when a log line contains SHOT_ON), KEEP_TMP=1, TEST_LOG_PREFIX (default msgbrowse-it).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const verbose = process.env.VERBOSE === '1';
const timeoutS = Number(process.env.TEST_TIMEOUT_S || 300);
/** Without VERBOSE, only extension-host log lines containing `[<prefix>]` are printed (prefix stripped). */
const logPrefix = process.env.TEST_LOG_PREFIX ?? 'msgbrowse-it';
/** With SHOT and SHOT_ON, the screenshot is taken when a forwarded log line contains SHOT_ON (else at the end). */
const shotOn = process.env.SHOT_ON;

/** console.log arguments as forwarded by the workbench: apply printf-style %s/%d/%i/%f/%o/%j. */
function formatLog(args) {
  const list = Array.isArray(args) ? [...args] : [args];
  const str = (a) => (typeof a === 'string' ? a : JSON.stringify(a));
  let first = list.length ? str(list.shift()) : '';
  first = first.replace(/%[sdifoOj%]/g, (m) => (m === '%%' ? '%' : list.length ? str(list.shift()) : m));
  return [first, ...list.map(str)].join(' ');
}

function fail(msg) {
  console.error(`code-server-test-host: ${msg}`);
  process.exit(1);
}

function hostConfig() {
  const cfg = { CS_NODE: process.env.CS_NODE, CS_ENTRY: process.env.CS_ENTRY, CHROMIUM: process.env.CHROMIUM };
  const dir = process.env.MSGBROWSE_TEST_HOST_DIR || path.join(os.homedir(), '.cache', 'msgbrowse-test-host');
  const envFile = path.join(dir, 'host.env');
  if (fs.existsSync(envFile)) {
    for (const line of fs.readFileSync(envFile, 'utf8').split('\n')) {
      const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
      if (m && !cfg[m[1]]) cfg[m[1]] = m[2];
    }
  }
  cfg.CHROMIUM ||= '/usr/bin/chromium';
  for (const k of ['CS_NODE', 'CS_ENTRY', 'CHROMIUM']) {
    if (!cfg[k] || !fs.existsSync(cfg[k])) fail(`${k} not found (${cfg[k] ?? 'unset'}); run scripts/test-host/setup.sh first`);
  }
  return cfg;
}

function parseArgs(argv) {
  const out = { folder: undefined };
  for (const a of argv) {
    const m = /^--([^=]+)=(.*)$/.exec(a);
    if (m) out[m[1]] = m[2];
    else if (!a.startsWith('--')) out.folder = a;
  }
  return out;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitHealthy(port, deadline) {
  while (Date.now() < deadline) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('code-server did not become healthy');
}

const args = parseArgs(process.argv.slice(2));
if (!args.extensionDevelopmentPath || !args.extensionTestsPath) {
  fail('expected --extensionDevelopmentPath=… and --extensionTestsPath=… (as passed by runTests)');
}
const cfg = hostConfig();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-cs-'));
const userData = path.resolve(args['user-data-dir'] || path.join(tmp, 'user-data'));
const extensionsDir = path.resolve(args['extensions-dir'] || path.join(tmp, 'extensions'));
fs.mkdirSync(userData, { recursive: true });
fs.mkdirSync(extensionsDir, { recursive: true });
const folder = path.resolve(args.folder || tmp);
const devPath = path.resolve(args.extensionDevelopmentPath);
const testsPath = path.resolve(args.extensionTestsPath);
const port = await freePort();
const logFile = path.join(tmp, 'code-server.log');
const logFd = fs.openSync(logFile, 'a');

const child = spawn(
  cfg.CS_NODE,
  [
    cfg.CS_ENTRY,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--user-data-dir', userData,
    '--extensions-dir', extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--vscode-option', 'enable-smoke-test-driver',
    folder,
  ],
  {
    detached: true,
    stdio: ['ignore', verbose ? 'inherit' : logFd, verbose ? 'inherit' : logFd],
    env: {
      ...process.env,
      XDG_CONFIG_HOME: path.join(tmp, 'xdg-config'),
      XDG_DATA_HOME: path.join(tmp, 'xdg-data'),
      XDG_CACHE_HOME: path.join(tmp, 'xdg-cache'),
    },
  },
);

let browser;
let exitCode = 1;
let finished = false;

async function cleanup() {
  if (finished) return;
  finished = true;
  try {
    await browser?.close();
  } catch {
    /* already gone */
  }
  if (child.exitCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const t = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, 5000);
    await gone;
    clearTimeout(t);
  }
  fs.closeSync(logFd);
  if (process.env.KEEP_TMP === '1') console.error(`code-server-test-host: kept ${tmp}`);
  else fs.rmSync(tmp, { recursive: true, force: true });
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => void cleanup().then(() => process.exit(130)));
}

try {
  const deadline = Date.now() + timeoutS * 1000;
  await Promise.race([
    waitHealthy(port, Date.now() + 60_000),
    new Promise((_, rej) => child.once('exit', (c) => rej(new Error(`code-server exited early (${c}); log: ${logFile}`)))),
  ]);
  const { chromium } = require('playwright-core');
  browser = await chromium.launchPersistentContext(path.join(tmp, 'chromium'), {
    executablePath: cfg.CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 900 },
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  const authority = `127.0.0.1:${port}`;
  const done = new Promise((resolve) => {
    void page.exposeFunction('codeAutomationExit', (code) => resolve(Number(code) || 0));
  });
  await page.exposeFunction('codeAutomationLog', async (level, args) => {
    const text = formatLog(args);
    if (shotOn && process.env.SHOT && text.includes(shotOn)) {
      await page.screenshot({ path: process.env.SHOT }).catch((e) => console.error(`screenshot failed: ${e}`));
      console.error(`code-server-test-host: screenshot written to ${process.env.SHOT}`);
    }
    if (verbose) console.log(`[${level}] ${text}`);
    else if (logPrefix && text.includes(`[${logPrefix}]`)) console.log(text.slice(text.indexOf(`[${logPrefix}]`) + logPrefix.length + 3));
  });
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', `vscode-remote://${authority}${devPath}`],
    ['extensionTestsPath', `vscode-remote://${authority}${testsPath}`],
    ['skipWelcome', 'true'],
  ]);
  const url = `http://${authority}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(payload)}`;
  await page.goto(url);
  const timer = new Promise((resolve) =>
    setTimeout(() => resolve('timeout'), Math.max(1000, deadline - Date.now())).unref(),
  );
  const result = await Promise.race([done, timer]);
  if (process.env.SHOT && !shotOn) await page.screenshot({ path: process.env.SHOT }).catch(() => {});
  if (result === 'timeout') {
    console.error(`code-server-test-host: tests did not finish within ${timeoutS} s (log: ${logFile})`);
    exitCode = 1;
  } else {
    exitCode = result;
  }
} catch (e) {
  console.error(`code-server-test-host: ${e instanceof Error ? e.message : String(e)}`);
  if (!verbose && fs.existsSync(logFile)) console.error(fs.readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n'));
  exitCode = 1;
}
await cleanup();
process.exit(exitCode);
