#!/usr/bin/env node
// The official MCP conformance runner (@modelcontextprotocol/conformance, pinned in package.json) against the built
// CLI (dist/cli.js) over streamable HTTP.
//
//   node scripts/test-conformance.mjs [--verbose]
//
// Unpacks the bundled demo archive (media/demo/msgbrowse.sqlite.gz) into a temp dir, starts `dist/cli.js --http` on a
// free loopback port with a random bearer token, and puts a loopback proxy in front of it (the runner cannot send
// headers): the proxy adds `Authorization: Bearer <token>` and maps the proxy's own loopback Host/Origin to the
// server's; any other Host or Origin passes through untouched, so the runner's dns-rebinding-protection scenario
// still tests the server's guard. SSE responses are streamed through unbuffered. Runs every scenario of the runner (`--suite all`) under a Node >= 22
// (the runner requires it) and compares each scenario's outcome with scripts/conformance-baseline.json, which lists
// ONLY scenarios that need the runner's own fixture tools, resources or prompts (test_image_content,
// test://static-text, …), each with its reason:
//   - a scenario not in the baseline that fails, fails the run;
//   - a baseline scenario that passes, fails the run ("fixed, remove it from the baseline");
//   - a baseline entry the runner does not know, fails the run.
// Prints the runner's summary, a table of every scenario, and `N passed, N failed` (scenarios); exits 0 only if all
// went as expected. Processes and temp files are cleaned up on every exit path.
//
// Node >= 22: the current Node if new enough, else $MSGBROWSE_CONFORMANCE_NODE, else NODE24/NODE22 from
// <test host dir>/host.env (written by scripts/test-host/setup.sh; the dir is $MSGBROWSE_TEST_HOST_DIR, default
// ~/.cache/msgbrowse-test-host). Nothing is downloaded. --verbose also prints the runner's full output.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { ensureBundle } from './inspector/harness.mjs';
import { readHostEnv } from './test-host/host-env.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNNER = '@modelcontextprotocol/conformance';
const BASELINE = path.join(root, 'scripts', 'conformance-baseline.json');
const MIN_NODE_MAJOR = 22;
const RUN_TIMEOUT_MS = 5 * 60_000;
const verbose = process.argv.includes('--verbose');
const started = Date.now();
const note = (msg) => process.stderr.write(`test-conformance: ${msg}\n`);

// ── Cleanup, on every exit path ────────────────────────────────────────────────────────────────────────────────────
const cleanups = [];
let cleaned = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  for (const fn of cleanups.reverse()) {
    try {
      await fn();
    } catch {
      /* best effort */
    }
  }
}
/** Synchronous last resort (process 'exit'): kill what is still running, remove the temp dir. */
const exitCleanups = [];
process.on('exit', () => {
  for (const fn of exitCleanups) {
    try {
      fn();
    } catch {
      /* best effort */
    }
  }
});
let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    if (interrupted) return;
    interrupted = true;
    note(`${sig}: stopping the runner and the server, removing temp files`);
    void cleanup().finally(() => {
      console.log(`interrupted (${sig})\n0 passed, 1 failed`);
      process.exit(130);
    });
  });
}

async function finish(code, line) {
  if (interrupted) return new Promise(() => {}); // the signal handler reports and exits
  await cleanup();
  if (line) console.log(line);
  process.exit(code);
}

async function fatal(step, e) {
  if (interrupted) return new Promise(() => {});
  console.log(`FAIL  ${step}: ${e instanceof Error ? e.message : String(e)}`);
  await finish(1, '0 passed, 1 failed');
}

// ── Node >= 22 ─────────────────────────────────────────────────────────────────────────────────────────────────────
function majorOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  const m = /^v(\d+)\./.exec((r.stdout ?? '').trim());
  return m ? { major: Number(m[1]), version: r.stdout.trim() } : undefined;
}

/** { bin, version, origin } of a Node >= 22, or throws saying where it looked and how to get one. */
function findNode() {
  if (Number(process.versions.node.split('.')[0]) >= MIN_NODE_MAJOR) {
    return { bin: process.execPath, version: process.version, origin: 'the current node' };
  }
  const tried = [];
  const explicit = process.env.MSGBROWSE_CONFORMANCE_NODE;
  if (explicit) {
    const v = majorOf(explicit);
    if (v && v.major >= MIN_NODE_MAJOR)
      return { bin: explicit, version: v.version, origin: 'MSGBROWSE_CONFORMANCE_NODE' };
    tried.push(`MSGBROWSE_CONFORMANCE_NODE=${explicit} (${v ? v.version : 'not runnable'})`);
  }
  const hostDir = process.env.MSGBROWSE_TEST_HOST_DIR || path.join(os.homedir(), '.cache', 'msgbrowse-test-host');
  const hostEnv = readHostEnv(hostDir);
  for (const key of ['NODE24', 'NODE22']) {
    const bin = hostEnv[key];
    if (!bin) continue;
    const v = fs.existsSync(bin) ? majorOf(bin) : undefined;
    if (v && v.major >= MIN_NODE_MAJOR) return { bin, version: v.version, origin: `${hostDir}/host.env ${key}` };
    tried.push(`${key}=${bin} (${v ? v.version : 'missing'})`);
  }
  if (!Object.keys(hostEnv).length) tried.push(`${path.join(hostDir, 'host.env')} (missing)`);
  throw new Error(
    `${RUNNER} needs Node >= ${MIN_NODE_MAJOR} and this is ${process.version}; none found (tried: ${tried.join('; ')}). ` +
      `Install the test host (bash scripts/test-host/setup.sh, which writes NODE24/NODE22 into host.env; ` +
      `MSGBROWSE_TEST_HOST_DIR picks its dir), set MSGBROWSE_CONFORMANCE_NODE to a Node >= ${MIN_NODE_MAJOR} binary, ` +
      `or run this script with Node >= ${MIN_NODE_MAJOR}.`,
  );
}

/** The installed runner's entry, checked against the exact pin in package.json. */
function findRunner() {
  const pinned = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies?.[RUNNER];
  if (!pinned) throw new Error(`${RUNNER} is not a devDependency in package.json`);
  const pkgRoot = path.join(root, 'node_modules', ...RUNNER.split('/'));
  let installed;
  try {
    installed = JSON.parse(fs.readFileSync(path.join(pkgRoot, 'package.json'), 'utf8'));
  } catch {
    throw new Error(`${RUNNER} is not installed in node_modules: run npm ci`);
  }
  if (installed.version !== pinned) {
    throw new Error(`node_modules has ${RUNNER}@${installed.version}, package.json pins ${pinned}: run npm ci`);
  }
  return { entry: path.join(pkgRoot, installed.bin.conformance), version: installed.version };
}

/** scenario → reason; every reason a non-empty string. */
function readBaseline() {
  const raw = JSON.parse(fs.readFileSync(BASELINE, 'utf8'));
  const entries = Object.entries(raw).filter(([k]) => !k.startsWith('$'));
  for (const [k, v] of entries) {
    if (typeof v !== 'string' || !v.trim())
      throw new Error(`${path.relative(root, BASELINE)}: "${k}" needs a reason (a string)`);
  }
  return new Map(entries);
}

// ── The proxy: bearer token in, the proxy's loopback Host/Origin mapped to the server's, everything else untouched ───
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

function startProxy(upstream, token) {
  const up = new URL(upstream);
  const upHost = up.host.toLowerCase();
  const upOrigin = `http://${upHost}`;
  const agent = new http.Agent({ keepAlive: true });
  let own = { hosts: new Set(), origins: new Set() };
  const server = http.createServer((req, res) => {
    const headers = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k)) headers[k] = v;
    const host = String(req.headers.host ?? '').toLowerCase();
    if (own.hosts.has(host)) headers.host = upHost;
    const origin = req.headers.origin;
    if (typeof origin === 'string' && own.origins.has(origin.trim().toLowerCase().replace(/\/$/, '')))
      headers.origin = upOrigin;
    headers.authorization = `Bearer ${token}`;
    const out = http.request(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers, agent },
      (upRes) => {
        const resHeaders = {};
        for (const [k, v] of Object.entries(upRes.headers)) if (!HOP_BY_HOP.has(k)) resHeaders[k] = v;
        res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, resHeaders);
        res.flushHeaders(); // an SSE stream's headers go out before its first event
        upRes.on('data', (chunk) => res.write(chunk)); // each chunk as it arrives: no buffering
        upRes.on('end', () => res.end());
        upRes.on('error', () => res.destroy());
      },
    );
    out.on('error', (e) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`conformance proxy: upstream error: ${e.message}`);
      } else res.destroy();
    });
    // The client went away (e.g. it closed an SSE stream): drop the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      own = {
        hosts: new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]),
        origins: new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]),
      };
      resolve({
        url: `http://127.0.0.1:${port}${up.pathname}`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            agent.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

// ── The server ─────────────────────────────────────────────────────────────────────────────────────────────────────
/**
 * Starts `node <cli> --http --listen 127.0.0.1:0 ...` (the current Node: the CLI claims Node 20+) and resolves with
 * its URL once the banner names it. Registered for cleanup before it is awaited, so an early signal stops it too.
 */
function startServer(cliArgs, env, timeoutMs = 30_000) {
  const child = spawn(process.execPath, cliArgs, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (running()) child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(t);
  };
  exitCleanups.push(() => running() && child.kill('SIGKILL'));
  cleanups.push(stop);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the server printed no URL within ${timeoutMs} ms:\n${stderr}`)),
      timeoutMs,
    );
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /serving .* at (http:\/\/127\.0\.0\.1:\d+\/mcp)\b/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1] });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before serving:\n${stderr}`));
    });
  });
}

// ── Running the runner ─────────────────────────────────────────────────────────────────────────────────────────────
function runRunner(node, entry, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(node, [entry, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const kill = () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL');
    exitCleanups.push(kill);
    cleanups.push(kill);
    let out = '';
    const onData = (d) => {
      out += d;
      if (verbose) process.stdout.write(d);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, RUN_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, out, timedOut });
    });
  });
}

const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');
const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim();

/** scenario → checks (the runner's checks.json of each `server-<scenario>-<timestamp>` result dir). */
function readChecks(dir) {
  const out = new Map();
  if (!fs.existsSync(dir)) return out;
  for (const name of fs.readdirSync(dir)) {
    const m = /^server-(.+)-(\d{4}-\d{2}-\d{2}T[\d-]+Z)$/.exec(name);
    const file = path.join(dir, name, 'checks.json');
    if (m && fs.existsSync(file)) out.set(m[1], JSON.parse(fs.readFileSync(file, 'utf8')));
  }
  return out;
}

function pad(s, n) {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

async function main() {
  let node, runner, baseline;
  try {
    node = findNode();
    runner = findRunner();
    baseline = readBaseline();
  } catch (e) {
    return fatal('prerequisites', e);
  }
  note(`${RUNNER}@${runner.version} under Node ${node.version} (${node.origin})`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-conformance-'));
  exitCleanups.push(() => fs.rmSync(tmp, { recursive: true, force: true }));
  cleanups.push(() => fs.rmSync(tmp, { recursive: true, force: true }));

  // The built CLI and the demo archive the extension ships (no native module or tsx needed, so any Node runs this).
  const archive = path.join(tmp, 'archive', 'msgbrowse.sqlite');
  try {
    if (ensureBundle(root)) note('built dist/ with node esbuild.js');
    fs.mkdirSync(path.dirname(archive));
    fs.writeFileSync(
      archive,
      zlib.gunzipSync(fs.readFileSync(path.join(root, 'media', 'demo', 'msgbrowse.sqlite.gz'))),
    );
  } catch (e) {
    return fatal('build the bundle and unpack the demo archive', e);
  }
  const home = path.join(tmp, 'home');
  fs.mkdirSync(home);
  const token = randomBytes(24).toString('hex');
  let server;
  try {
    server = await startServer(
      [
        path.join(root, 'dist', 'cli.js'),
        '--archive',
        archive,
        '--cache-dir',
        path.join(tmp, 'cache'),
        '--http',
        '--listen',
        '127.0.0.1:0',
      ],
      {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        XDG_CACHE_HOME: path.join(home, '.cache'),
        LANG: 'C.UTF-8',
        MSGBROWSE_LLM_EMBED_MODEL: '', // semantic search off: deterministic, no network
        MSGBROWSE_MCP_TOKEN: token,
      },
    );
  } catch (e) {
    return fatal('start dist/cli.js --http', e);
  }
  let proxy;
  try {
    proxy = await startProxy(server.url, token);
  } catch (e) {
    return fatal('start the loopback proxy', e);
  }
  cleanups.push(() => proxy.close());
  note(`server ${server.url}, proxy ${proxy.url}`);

  // Every scenario the runner has (`--suite all`: the active suite plus its pending ones).
  const resultsDir = path.join(tmp, 'results');
  const run = await runRunner(
    node.bin,
    runner.entry,
    ['server', '--url', proxy.url, '--suite', 'all', '-o', resultsDir],
    tmp,
  );
  if (interrupted) return new Promise(() => {}); // the signal handler reports and exits
  const out = stripAnsi(run.out);
  const checks = readChecks(resultsDir);
  /** The runner's own summary: `✓ name: N passed, M failed` per scenario. */
  const summaryAt = out.indexOf('=== SUMMARY ===');
  const summaryLines = summaryAt >= 0 ? out.slice(summaryAt).trim().split('\n') : [];
  const outcomes = new Map();
  for (const l of summaryLines) {
    const m = /^([✓✗]) (\S+): (\d+) passed, (\d+) failed$/.exec(l.trim());
    if (m) outcomes.set(m[2], { ok: m[1] === '✓', passed: Number(m[3]), failed: Number(m[4]) });
  }
  if (run.timedOut || outcomes.size === 0) {
    if (!verbose) process.stdout.write(run.out.slice(-4000));
    return fatal(
      `run ${RUNNER}`,
      run.timedOut
        ? `timed out after ${RUN_TIMEOUT_MS / 1000} s`
        : `no summary in its output (exit ${run.code}); see above`,
    );
  }

  console.log(`\n${RUNNER}@${runner.version} summary:`);
  for (const l of summaryLines.slice(1)) if (l.trim()) console.log(`  ${l.trim()}`);

  // Compare with the baseline.
  const rows = [];
  let passed = 0;
  let failed = 0;
  let expected = 0;
  for (const [scenario, o] of outcomes) {
    const list = checks.get(scenario) ?? [];
    // Passed = no FAILURE check (the runner's own rule); count the checks from checks.json when there is one.
    const ok = list.length ? !list.some((c) => c.status === 'FAILURE') : o.ok;
    const warnings = list.filter((c) => c.status === 'WARNING').length;
    const failures = list
      .filter((c) => c.status === 'FAILURE')
      .map((c) => `${c.id}: ${oneLine(c.errorMessage ?? c.description)}`);
    const inBaseline = baseline.has(scenario);
    let verdict;
    if (ok && !inBaseline) {
      verdict = warnings ? `pass (${warnings} warning${warnings > 1 ? 's' : ''})` : 'pass';
      passed++;
    } else if (!ok && inBaseline) {
      verdict = 'expected failure (baseline)';
      expected++;
    } else if (ok && inBaseline) {
      verdict = `FIXED: passes now, remove it from ${path.relative(root, BASELINE)}`;
      failed++;
    } else {
      verdict = 'FAIL';
      failed++;
    }
    rows.push({ scenario, verdict, failures, bad: verdict === 'FAIL' || verdict.startsWith('FIXED') });
  }
  for (const scenario of baseline.keys()) {
    if (!outcomes.has(scenario)) {
      rows.push({
        scenario,
        verdict: `UNKNOWN: not a scenario of ${RUNNER}@${runner.version}; remove it from the baseline`,
        failures: [],
        bad: true,
      });
      failed++;
    }
  }

  const w = Math.max(...rows.map((r) => r.scenario.length));
  console.log(`\nscenario${' '.repeat(Math.max(1, w - 6))}  outcome`);
  for (const r of rows) {
    console.log(`${r.bad ? '✗' : '·'} ${pad(r.scenario, w)}  ${r.verdict}`);
    if (r.bad) for (const f of r.failures) console.log(`    ${f}`);
  }
  if (rows.some((r) => r.bad && r.verdict === 'FAIL')) {
    console.log(
      `\nA scenario not in ${path.relative(root, BASELINE)} failed. The baseline is only for scenarios that need the runner's own` +
        ` fixture tools/resources/prompts; rerun with --verbose for the runner's full output.`,
    );
  }
  note(`${((Date.now() - started) / 1000).toFixed(1)} s`);
  await finish(failed ? 1 : 0, `${passed} passed, ${failed} failed, ${expected} expected failures (baseline)`);
}

main().catch((e) => fatal('unexpected error', e));
