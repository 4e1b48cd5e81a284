/** Shared helpers for the CLI tests: a fresh production bundle copied where no node_modules can be reached. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';

export const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The Node that runs the CLI under test: MSGBROWSE_CLI_NODE (npm test sets it to the Node 22 and Node 24 binaries of the
 * test host, so the CLI is proven under every major the README claims), else the Node running the tests.
 */
export const CLI_NODE = process.env.MSGBROWSE_CLI_NODE || process.execPath;
export const CLI_NODE_VERSION =
  spawnSync(CLI_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim() || `unknown (${CLI_NODE})`;

function newestMtime(dir: string, skip: (p: string) => boolean): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (skip(p)) continue;
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p, skip));
    else newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds `dist/` with the project's own `node esbuild.js` unless `dist/cli.js` is newer than every CLI source. */
export function ensureBuiltCli(): string {
  const cli = path.join(ROOT, 'dist', 'cli.js');
  const sources = Math.max(
    newestMtime(path.join(ROOT, 'src'), (p) => p.includes(`${path.sep}extension`)),
    fs.statSync(path.join(ROOT, 'esbuild.js')).mtimeMs,
    fs.statSync(path.join(ROOT, 'package.json')).mtimeMs,
  );
  const fresh =
    fs.existsSync(cli) && fs.existsSync(path.join(ROOT, 'dist', 'sqlite3.wasm')) && fs.statSync(cli).mtimeMs >= sources;
  if (!fresh) {
    const r = spawnSync(process.execPath, ['esbuild.js'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`node esbuild.js failed:\n${r.stdout}\n${r.stderr}`);
  }
  return path.join(ROOT, 'dist');
}

/** True when some ancestor of `dir` (inclusive) holds a node_modules folder. */
export function nodeModulesReachable(dir: string): boolean {
  let d = path.resolve(dir);
  for (;;) {
    if (fs.existsSync(path.join(d, 'node_modules'))) return true;
    const up = path.dirname(d);
    if (up === d) return false;
    d = up;
  }
}

/** Copies dist/ into a temp dir with no node_modules above it; returns the copied cli.js. */
export function isolatedCli(tmpRoot: string): string {
  const dist = ensureBuiltCli();
  const target = path.join(tmpRoot, 'dist');
  fs.cpSync(dist, target, { recursive: true });
  if (nodeModulesReachable(target))
    throw new Error(`node_modules reachable from ${target}; cannot prove the bundle is self-contained`);
  return path.join(target, 'cli.js');
}

let sandboxHome: string | undefined;

/** A throwaway HOME (so default cache dirs never touch the real one); removed at process exit. */
function testHome(): string {
  if (!sandboxHome) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-cli-home-'));
    sandboxHome = dir;
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return sandboxHome;
}

/**
 * A minimal environment: no inherited NODE_PATH / NODE_OPTIONS (tsx loaders) or MSGBROWSE_* settings, and a
 * sandbox HOME / XDG_CACHE_HOME.
 */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = testHome();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CACHE_HOME: path.join(home, '.cache'),
    LANG: 'C.UTF-8',
  };
  return { ...env, ...extra };
}

/**
 * A client pinned to 2026-07-28 that answers the "which conversation?" question with `conversationId`; `check` asks
 * for conversation "MJ" (two in the curated archive) and asserts the question came and its answer was used.
 */
export function clientChoosing(name: string, conversationId: number): { client: Client; check: () => Promise<void> } {
  const client = new Client(
    { name, version: '0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } },
  );
  let asked: string | undefined;
  // The SDK client fulfils input_required through this handler and calls the tool again with the answer.
  client.setRequestHandler('elicitation/create', async (req) => {
    asked = (req.params as { message: string }).message;
    return { action: 'accept', content: { conversation: String(conversationId) } };
  });
  const check = async () => {
    const r = await client.callTool({ name: 'get_conversation', arguments: { name: 'MJ', limit: 2 } });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    assert.equal((r.structuredContent as { conversation_id: number }).conversation_id, conversationId);
    assert.match(asked ?? '', /"MJ" is the name of 2 conversations/);
  };
  return { client, check };
}
