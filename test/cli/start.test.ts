/**
 * `npm start` as a process supervisor or a shell script stops it: a signal sent to the npm process (not its process
 * group, as Ctrl-C would) must stop the server it started, and so must npm being killed outright.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { ensureBuiltCli, ROOT } from './helpers';

const state = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-start-'));
after(() => fs.rmSync(state, { recursive: true, force: true }));

/** Starts `npm start -- --listen 127.0.0.1:0` and resolves with npm's process and the port once the server listens. */
async function npmStart() {
  const npm = spawn('npm', ['start', '--', '--listen', '127.0.0.1:0'], {
    cwd: ROOT,
    env: { ...process.env, XDG_STATE_HOME: state, MSGBROWSE_LLM_EMBED_MODEL: '', MSGBROWSE_MCP_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  npm.stdout.resume();
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not serve within 120 s:\n${stderr}`)), 120_000);
    npm.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /serving .* at http:\/\/127\.0\.0\.1:(\d+)\//.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    npm.once('exit', (code) => reject(new Error(`npm start exited (${code}) before serving:\n${stderr}`)));
  });
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  return { npm, port, exited };
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** Waits (generously: this is liveness, not speed) until nothing listens on `port`. */
async function closes(port: number): Promise<boolean> {
  for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    if (!(await accepts(port))) return true;
  }
  return false;
}

describe('npm start stops when told to', { concurrency: false }, () => {
  ensureBuiltCli();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
    it(`kill -${signal.slice(3)} on the npm process: the server stops listening`, async () => {
      const { npm, port, exited } = await npmStart();
      try {
        assert.equal(await accepts(port), true);
        npm.kill(signal);
        assert.equal(await closes(port), true, `the server still listens on ${port} after ${signal} to npm`);
        await exited;
      } finally {
        npm.kill('SIGKILL');
      }
    });
  }
});
