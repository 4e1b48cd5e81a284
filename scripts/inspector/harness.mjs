// Process plumbing for scripts/test-inspector.mjs: the built server, the fixture archive, and inspector runs.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

function newestMtime(dir, skip) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (skip(p)) continue;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p, skip) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** Runs `node esbuild.js` when dist/cli.js is missing or older than the CLI sources; returns whether it built. */
export function ensureBundle(root) {
  const cli = path.join(root, 'dist', 'cli.js');
  const sources = Math.max(
    newestMtime(path.join(root, 'src'), (p) => p.includes(`${path.sep}extension`)),
    fs.statSync(path.join(root, 'esbuild.js')).mtimeMs,
    fs.statSync(path.join(root, 'package.json')).mtimeMs,
  );
  const fresh =
    fs.existsSync(cli) && fs.existsSync(path.join(root, 'dist', 'sqlite3.wasm')) && fs.statSync(cli).mtimeMs >= sources;
  if (fresh) return false;
  const r = spawnSync(process.execPath, ['esbuild.js'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node esbuild.js failed:\n${r.stdout}\n${r.stderr}`);
  return true;
}

/** True when `dir` or an ancestor holds node_modules (then the bundle could lean on it). */
export function nodeModulesReachable(dir) {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'node_modules'))) return true;
    if (path.dirname(d) === d) return false;
  }
}

/** Writes the curated fixture archive into `dir` (scripts/gen-fixtures.ts via tsx); returns its JSON summary. */
export function writeCuratedArchive(root, dir) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/gen-fixtures.ts', '--curated', dir], {
    cwd: root,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`gen-fixtures --curated failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/** name → sha256 of every file in `dir` (so added -wal/-shm files show up too). */
export function digestDir(dir) {
  const out = {};
  for (const name of fs.readdirSync(dir).sort()) {
    out[name] = createHash('sha256')
      .update(fs.readFileSync(path.join(dir, name)))
      .digest('hex');
  }
  return out;
}

/**
 * Runs the official inspector in CLI mode: `<node24> <entry> --cli <target...> <args...>` with `env`.
 * Resolves { code, stdout, stderr, json } (json: parsed stdout, or undefined when stdout is not JSON).
 */
export function runInspector(inspector, env, target, args, timeoutMs = 60_000) {
  return new Promise((resolve) => {
    const child = spawn(inspector.node, [inspector.entry, '--cli', ...target, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      stderr += `\n(timed out after ${timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      let json;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/**
 * Starts `node <cli> --http --listen 127.0.0.1:0 ...` and resolves once its banner names the URL:
 * { url, stop(): Promise<number|null> (SIGTERM, then the exit code), stderr() }.
 */
export function startHttpServer(cliArgs, env, timeoutMs = 30_000) {
  const child = spawn(process.execPath, cliArgs, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await exited;
    clearTimeout(t);
    return code;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`HTTP server printed no URL within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /serving .* at (http:\/\/127\.0\.0\.1:\d+\/mcp)\b/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], stop, stderr: () => stderr });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`HTTP server exited (${code}) before serving:\n${stderr}`));
    });
  });
}
