#!/usr/bin/env node
/**
 * A drop-in `vscodeExecutablePath` for @vscode/test-electron's runTests(): runs the extension tests inside a REAL
 * VS Code extension host — code-server (VS Code server + Node extension host) driven by headless Chromium —
 * using VS Code's own smoke-test-driver route (workbench URL `payload` + window.codeAutomationExit).
 *
 * Host location: CS_NODE / CS_ENTRY / CHROMIUM env vars, else `${MSGBROWSE_TEST_HOST_DIR:-~/.cache/msgbrowse-test-host}/host.env`
 * (written by scripts/test-host/setup.sh). Options: TEST_TIMEOUT_S (default 300), VERBOSE=1 (all workbench logs),
 * SHOT=file.png (screenshot at the end, or when a log line contains SHOT_ON), KEEP_TMP=1, TEST_LOG_PREFIX (default msgbrowse-it).
 * Several --extensionDevelopmentPath arguments are all loaded: the web workbench reads its `payload` into a Map (a
 * repeated key keeps only the last), so they are copied side by side into one folder, which VS Code scans as a
 * folder of development extensions.
 *
 * MSGBROWSE_TEST_AGENT_CHAT=1 (off by default) prepares VS Code's own chat agent for offline tests:
 * - before the first workbench load it writes `builtinChatExtensionEnablementMigration` = "true" into the web
 *   workbench's global storage (IndexedDB `vscode-web-state-db-global`, store `ItemTable`, opened same-origin from
 *   /healthz), so the bundled Copilot Chat agent runs with an extension's model and no sign-in (an internal key of
 *   VS Code 1.139: re-check it when the host version changes);
 * - it serves DOM requests from the tests: a workbench log line `[msgbrowse-dom] {"op":…,"reply":"<file>",…}` is
 *   answered by writing JSON to `<file>` (ops: `links` = data-href of every `.interactive-list a[data-href]`;
 *   `click` = click the first such link whose data-href starts with `href`).
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
    if (!cfg[k] || !fs.existsSync(cfg[k]))
      fail(`${k} not found (${cfg[k] ?? 'unset'}); run scripts/test-host/setup.sh first`);
  }
  return cfg;
}

function parseArgs(argv) {
  const out = { folder: undefined, devPaths: [] };
  for (const a of argv) {
    const m = /^--([^=]+)=(.*)$/.exec(a);
    if (m && m[1] === 'extensionDevelopmentPath') out.devPaths.push(m[2]);
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
const devPaths = args.devPaths.map((p) => path.resolve(p));
const agentChat = process.env.MSGBROWSE_TEST_AGENT_CHAT === '1';
const testsPath = path.resolve(args.extensionTestsPath);
const port = await freePort();
const logFile = path.join(tmp, 'code-server.log');
const logFd = fs.openSync(logFile, 'a');

const child = spawn(
  cfg.CS_NODE,
  [
    cfg.CS_ENTRY,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--user-data-dir',
    userData,
    '--extensions-dir',
    extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--vscode-option',
    'enable-smoke-test-driver',
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

/** The one development location: the extension itself, or a folder holding copies of several. */
function devLocation() {
  if (devPaths.length === 1) return devPaths[0];
  const dir = path.join(tmp, 'dev-extensions');
  for (const [i, p] of devPaths.entries()) {
    fs.cpSync(p, path.join(dir, `${i}-${path.basename(p)}`), { recursive: true, dereference: true });
  }
  return dir;
}

/** Before the first workbench load: mark the built-in chat extension's enablement migration done (see the header). */
async function seedAgentChat(page, port) {
  await page.goto(`http://127.0.0.1:${port}/healthz`);
  await page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open('vscode-web-state-db-global');
        open.onupgradeneeded = () => {
          if (!open.result.objectStoreNames.contains('ItemTable')) open.result.createObjectStore('ItemTable');
        };
        open.onerror = () => reject(new Error(String(open.error)));
        open.onsuccess = () => {
          const db = open.result;
          const tx = db.transaction('ItemTable', 'readwrite');
          tx.objectStore('ItemTable').put('true', 'builtinChatExtensionEnablementMigration');
          tx.oncomplete = () => {
            db.close();
            resolve(undefined);
          };
          tx.onerror = () => reject(new Error(String(tx.error)));
        };
      }),
  );
}

/** One DOM request of the tests (see the header): answered by writing JSON to its reply file. */
async function domRequest(page, json) {
  let req;
  try {
    req = JSON.parse(json);
  } catch {
    return;
  }
  const reply = (body) => fs.writeFileSync(req.reply, JSON.stringify(body));
  try {
    const links = page.locator('.interactive-list a[data-href]');
    if (req.op === 'links') {
      reply({
        ok: true,
        links: await links.evaluateAll((as) =>
          as.map((a) => ({ href: a.getAttribute('data-href'), text: a.textContent })),
        ),
      });
    } else if (req.op === 'click') {
      // The last matching link: the answer's, after any the tool's output may show.
      const all = await links.evaluateAll((as) => as.map((a) => a.getAttribute('data-href') ?? ''));
      let i = -1;
      all.forEach((h, j) => {
        if (h.startsWith(req.href)) i = j;
      });
      if (i < 0)
        return reply({ ok: false, error: `no rendered link starting with ${req.href}; links: ${all.join(', ')}` });
      const link = links.nth(i);
      await link.scrollIntoViewIfNeeded({ timeout: 5_000 }).catch(() => {});
      // force: the chat list repaints while the response settles, so actionability checks may never settle.
      await link.click({ timeout: 10_000, force: true });
      reply({ ok: true, clicked: all[i] });
    } else {
      reply({ ok: false, error: `unknown op ${req.op}` });
    }
  } catch (e) {
    reply({ ok: false, error: e instanceof Error ? e.message : String(e) });
  }
}

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
    new Promise((_, rej) =>
      child.once('exit', (c) => rej(new Error(`code-server exited early (${c}); log: ${logFile}`))),
    ),
  ]);
  const { chromium } = require('playwright-core');
  browser = await chromium.launchPersistentContext(path.join(tmp, 'chromium'), {
    executablePath: cfg.CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1400, height: 900 },
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  const authority = `127.0.0.1:${port}`;
  const done = new Promise((resolve) => {
    void page.exposeFunction('codeAutomationExit', (code) => resolve(Number(code) || 0));
  });
  await page.exposeFunction('codeAutomationLog', async (level, args) => {
    const text = formatLog(args);
    if (agentChat && text.includes('[msgbrowse-dom] ')) {
      void domRequest(page, text.slice(text.indexOf('[msgbrowse-dom] ') + 16));
      return;
    }
    if (shotOn && process.env.SHOT && text.includes(shotOn)) {
      await page.screenshot({ path: process.env.SHOT }).catch((e) => console.error(`screenshot failed: ${e}`));
      console.error(`code-server-test-host: screenshot written to ${process.env.SHOT}`);
    }
    if (verbose) console.log(`[${level}] ${text}`);
    else if (logPrefix && text.includes(`[${logPrefix}]`))
      console.log(text.slice(text.indexOf(`[${logPrefix}]`) + logPrefix.length + 3));
  });
  if (agentChat) await seedAgentChat(page, port);
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', `vscode-remote://${authority}${devLocation()}`],
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
  if (!verbose && fs.existsSync(logFile))
    console.error(fs.readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n'));
  exitCode = 1;
}
await cleanup();
process.exit(exitCode);
