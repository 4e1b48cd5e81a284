#!/usr/bin/env node
// The official MCP conformance runner (@modelcontextprotocol/conformance, pinned in package.json) against the built
// CLI (dist/cli.js) over streamable HTTP, with the frozen requirement set of each revision the CLI serves.
//
//   node scripts/test-conformance.mjs [--verbose] [--keep]
//
// Unpacks the bundled demo archive (media/demo/msgbrowse.sqlite.gz) into a temp dir, starts `dist/cli.js --http` on a
// free loopback port with a random bearer token, and puts a loopback proxy in front of it (the runner cannot send
// headers): the proxy adds `Authorization: Bearer <token>` and maps the proxy's own loopback Host/Origin to the
// server's; any other Host or Origin passes through untouched, so the runner's dns-rebinding-protection scenario
// still tests the server's guard. SSE responses are streamed through unbuffered. Then, under a Node >= 22 (the runner
// requires it), `conformance server --requirements <revision> --expected-failures scripts/conformance/<revision>.yaml`
// for 2025-11-25 (initialize-era sessions) and 2026-07-28 (stateless, per-request `_meta`). The runner judges: a
// failing check not in the baseline, or a baseline entry that passes, fails its run. This script adds that every
// baseline entry names a scenario (and check) the run has and says why (`- scenario:check # reason`), and prints a
// table of every scenario and `N passed, N failed, N expected failures`; exits 0 only if both runs went as expected.
// --keep leaves the runner's results (checks.json per scenario) and says where. Processes and temp files are cleaned
// up on every exit path.
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
const BASELINE_DIR = path.join(root, 'scripts', 'conformance');
/** The revisions whose frozen requirement sets (`--requirements`) CI runs; a baseline file for each. */
const REVISIONS = ['2025-11-25', '2026-07-28'];
const MIN_NODE_MAJOR = 22;
const RUN_TIMEOUT_MS = 5 * 60_000;
const verbose = process.argv.includes('--verbose');
const keep = process.argv.includes('--keep');
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
  return { entry: path.join(pkgRoot, installed.bin.conformance), version: installed.version, root: pkgRoot };
}

/**
 * revision → { file, entries: scenario (or scenario:check) → reason }. The runner reads the file itself; this only
 * insists that every entry says why on its line (`- name # reason`), so nothing is excused without a reason.
 */
function readBaselines() {
  const out = new Map();
  for (const revision of REVISIONS) {
    const file = path.join(BASELINE_DIR, `${revision}.yaml`);
    const entries = new Map();
    let section;
    for (const [i, line] of fs.readFileSync(file, 'utf8').split('\n').entries()) {
      const head = /^(\w+):\s*(\[\])?\s*(#.*)?$/.exec(line);
      if (head) section = head[1];
      const m = /^\s+-\s+([^\s#]+)\s*(?:#\s*(.*))?$/.exec(line);
      if (!m) continue;
      if (section !== 'server')
        throw new Error(`${path.relative(root, file)}:${i + 1}: only server entries belong here`);
      if (!m[2]?.trim()) throw new Error(`${path.relative(root, file)}:${i + 1}: "${m[1]}" needs a reason (# …)`);
      entries.set(m[1], m[2].trim());
    }
    out.set(revision, { file, entries });
  }
  return out;
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

/** scenario → why the runner runs but never scores it, from its frozen requirement file (`not_scored`, server leg). */
function notScoredOf(runner, revision) {
  const text = fs.readFileSync(path.join(runner.root, 'requirements', `${revision}.yaml`), 'utf8');
  const out = new Map();
  for (const m of text.matchAll(/- scenario: (\S+)\s+leg: server\s+reason: (\S+)/g)) out.set(m[1], m[2]);
  return out;
}

function pad(s, n) {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

async function main() {
  let node, runner, baselines;
  try {
    node = findNode();
    runner = findRunner();
    baselines = readBaselines();
  } catch (e) {
    return fatal('prerequisites', e);
  }
  note(`${RUNNER}@${runner.version} under Node ${node.version} (${node.origin})`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-conformance-'));
  exitCleanups.push(() => !keep && fs.rmSync(tmp, { recursive: true, force: true }));
  cleanups.push(() => !keep && fs.rmSync(tmp, { recursive: true, force: true }));

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

  // Each revision's frozen requirement set, judged by the runner against its baseline (exit 0 = as expected).
  let failedRuns = 0;
  let passed = 0;
  let expected = 0;
  let failed = 0;
  for (const [revision, baseline] of baselines) {
    const resultsDir = path.join(tmp, `results-${revision}`);
    const args = ['server', '--url', proxy.url, '--requirements', revision, '-o', resultsDir];
    const run = await runRunner(node.bin, runner.entry, [...args, '--expected-failures', baseline.file], tmp);
    if (interrupted) return new Promise(() => {}); // the signal handler reports and exits
    const out = stripAnsi(run.out);
    const checks = readChecks(resultsDir);
    if (run.timedOut || checks.size === 0) {
      if (!verbose) process.stdout.write(run.out.slice(-4000));
      return fatal(
        `run ${RUNNER} --requirements ${revision}`,
        run.timedOut ? `timed out after ${RUN_TIMEOUT_MS / 1000} s` : `no results (exit ${run.code}); see above`,
      );
    }
    console.log(
      `\n── --requirements ${revision} (${checks.size} scenarios; baseline ${path.relative(root, baseline.file)})`,
    );
    const notScored = notScoredOf(runner, revision);
    const w = Math.max(...[...checks.keys()].map((k) => k.length));
    for (const [scenario, list] of [...checks].sort(([a], [b]) => a.localeCompare(b))) {
      // The runner's rule: a FAILURE or a WARNING fails a check.
      const failures = list.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      const reasonOf = (c) => baseline.entries.get(scenario) ?? baseline.entries.get(`${scenario}:${c.id}`);
      const unexcused = failures.filter((c) => !reasonOf(c));
      let verdict = 'pass';
      if (notScored.has(scenario)) verdict = `not scored by the runner (${notScored.get(scenario)})`;
      else if (unexcused.length) verdict = 'FAIL';
      else if (failures.length)
        verdict = `expected failure (${failures.length} of ${list.length} checks): ${reasonOf(failures[0])}`;
      if (verdict === 'FAIL') failed++;
      else if (verdict === 'pass') passed++;
      else if (verdict.startsWith('expected')) expected++;
      console.log(`${verdict === 'FAIL' ? '✗' : '·'} ${pad(scenario, w)}  ${verdict}`);
      if (verdict === 'FAIL')
        for (const c of unexcused) console.log(`    ${c.id}: ${oneLine(c.errorMessage ?? c.description)}`);
    }
    // The runner ignores an entry naming a check its scenario does not have (a typo, a renamed check): this does not.
    for (const entry of baseline.entries.keys()) {
      const [scenario, check] = entry.split(':');
      const list = checks.get(scenario);
      if (list && (!check || list.some((c) => c.id === check))) continue;
      failedRuns++;
      const what = list ? `scenario ${scenario} has no check ${check}` : 'not a scenario of this requirement set';
      console.log(`✗ ${entry}: ${what}; remove it from ${path.relative(root, baseline.file)}`);
    }
    // The runner's own verdict decides: it also fails on a baseline entry that passes now (stale).
    const tail = out.trim().split('\n').slice(-12).join('\n');
    if (run.code !== 0) {
      failedRuns++;
      console.log(`\n${RUNNER} --requirements ${revision} exited ${run.code}:\n${tail}`);
    }
  }
  note(`${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (keep) note(`results kept in ${tmp}`);
  await finish(
    failedRuns ? 1 : 0,
    `${passed} passed, ${failedRuns ? Math.max(failed, 1) : 0} failed, ${expected} expected failures (baseline)`,
  );
}

main().catch((e) => fatal('unexpected error', e));
