#!/usr/bin/env node
// `npm start`: the one command a newcomer runs. Installs and builds what is missing, unpacks the bundled demo archive
// (media/demo/msgbrowse.sqlite.gz, the one the extension ships) to ./data/msgbrowse.sqlite, prints its summary, then
// serves it over MCP (streamable HTTP on loopback) and shows how to connect a client. Ctrl-C stops it. Pass
// `-- --stdio` to serve over stdio instead.
//
// Fast on a fresh clone (seconds, not minutes): the install skips lifecycle scripts, because nothing on this path needs
// a native module — the server is SQLite's WebAssembly build, and esbuild runs from its platform package. The
// test-only native module (better-sqlite3) is built by `npm test` / `npm run bench` when they first need it.
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const run = (cmd, argv, opts = {}) => {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`\n✖ ${cmd} ${argv.join(' ')} failed (exit ${r.status ?? r.signal}).`);
    process.exit(r.status ?? 1);
  }
};
const newest = (dir) => {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
};

if (!fs.existsSync(path.join(root, 'node_modules/.package-lock.json'))) {
  console.error('• Installing dependencies (npm ci --ignore-scripts: no native builds needed to serve)…');
  run('npm', ['ci', '--ignore-scripts', '--no-fund', '--no-audit']);
}
const cli = path.join(root, 'dist/cli.js');
if (!fs.existsSync(cli) || newest(path.join(root, 'src')) > fs.statSync(cli).mtimeMs) {
  console.error('• Building dist/ (esbuild)…');
  run('node', ['esbuild.js']);
}
const dataDir = path.join(root, 'data');
const archive = path.join(dataDir, 'msgbrowse.sqlite');
if (!fs.existsSync(archive)) {
  console.error('• Unpacking the demo archive to data/msgbrowse.sqlite…');
  fs.mkdirSync(dataDir, { recursive: true });
  const tmp = `${archive}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, zlib.gunzipSync(fs.readFileSync(path.join(root, 'media/demo/msgbrowse.sqlite.gz'))));
  fs.renameSync(tmp, archive);
}

console.error('• Demo archive summary:\n');
run('node', [cli, '--archive', dataDir, '--summary']);

// Anything else after `npm start --` goes to the server (e.g. --listen 127.0.0.1:9000).
const serveArgs = [
  '--archive',
  dataDir,
  ...(args.includes('--stdio') ? [] : ['--http']),
  ...args.filter((a) => a !== '--stdio'),
];
console.error(`\n• Starting: msgbrowse-mcp ${serveArgs.join(' ')}  (Ctrl-C to stop)\n`);
const child = spawn('node', [cli, ...serveArgs], { cwd: root, stdio: 'inherit' });
// package.json runs us with `exec`, so npm's forwarded SIGINT/SIGTERM reach this process (a shell in between would
// hold them); we pass them on. If npm itself is killed outright, our parent changes: stop the server with it.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
const parent = process.ppid;
setInterval(() => process.ppid !== parent && child.kill('SIGTERM'), 500).unref();
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
