/**
 * MCP plumbing for the end-to-end and cold-start sections: a local OpenAI-compatible embeddings endpoint on
 * 127.0.0.1:0 (returns realistic query vectors: the benchmark's query set for the archive's model), the production
 * CLI bundle (dist/cli.js, rebuilt with `node esbuild.js` when older than src/), and an SDK client over stdio.
 */
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { embedText } from '../../test/fixtures';
import { REPO } from './proc';

export interface EmbedServer {
  baseUrl: string;
  requests: number;
  close(): Promise<void>;
}

/** Query text → one of `vectors` (stable by hash), or the fixtures' hashed bag-of-words when none are given. */
export async function startEmbedServer(dim: number, vectors: Float32Array[] = []): Promise<EmbedServer> {
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      state.requests++;
      try {
        const { input } = JSON.parse(body) as { input: string | string[] };
        const texts = Array.isArray(input) ? input : [input];
        const data = texts.map((t, index) => {
          let h = 0;
          for (const ch of t) h = (h * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
          const embedding = vectors.length ? Array.from(vectors[h % vectors.length]) : embedText(t, dim, 'bench');
          return { object: 'embedding', index, embedding };
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data, model: 'bench' }));
      } catch (e) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(e) } }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** dist/cli.js, rebuilt with the project's esbuild.js when missing or older than any source file. */
export function ensureCliBundle(log: (m: string) => void): string {
  const cli = path.join(REPO, 'dist', 'cli.js');
  const fresh = fs.existsSync(cli) && fs.statSync(cli).mtimeMs >= newestMtime(path.join(REPO, 'src'));
  if (!fresh) {
    log('building dist/ with `node esbuild.js` (dist/cli.js is missing or older than src/)');
    execFileSync(process.execPath, [path.join(REPO, 'esbuild.js')], { cwd: REPO, stdio: 'ignore' });
  }
  return cli;
}

export interface CliSession {
  client: Client;
  /** ms from spawn to an initialized MCP session. */
  connectMs: number;
  /** Peak resident memory of the server process so far (VmHWM), bytes. */
  peakRss(): number | undefined;
  /** Resident memory of the server process now (VmRSS), bytes. */
  rss(): number | undefined;
  stderr: () => string;
  close(): Promise<void>;
}

/** `nodeArgs` go to node before the script: how a server's V8 is profiled (`--cpu-prof`) or traced (`--log-deopt`). */
export async function startCliSession(
  cli: string,
  archive: string,
  opts: { cacheDir: string; embedBaseUrl?: string; embedModel: string; extraArgs?: string[]; nodeArgs?: string[] },
): Promise<CliSession> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('MSGBROWSE_')) env[k] = v;
  env.MSGBROWSE_LLM_EMBED_MODEL = opts.embedModel;
  if (opts.embedBaseUrl) env.MSGBROWSE_LLM_BASE_URL = opts.embedBaseUrl;
  env.MSGBROWSE_MCP_LOG = 'warn';
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...(opts.nodeArgs ?? []),
      cli,
      '--archive',
      archive,
      '--cache-dir',
      opts.cacheDir,
      ...(opts.extraArgs ?? []),
    ],
    env,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'msgbrowse-bench', version: '1.0.0' });
  await client.connect(transport);
  const connectMs = performance.now() - t0;
  return {
    client,
    connectMs,
    stderr: () => err,
    peakRss: () => procStatus(transport.pid, 'VmHWM'),
    rss: () => procStatus(transport.pid, 'VmRSS'),
    close: async () => {
      await client.close();
    },
  };
}

/** A byte figure of /proc/<pid>/status (VmRSS, VmHWM…), or undefined off Linux. */
function procStatus(pid: number | null, field: string): number | undefined {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args }, { timeout: 600_000 })) as ToolResult;
}

export function toolText(r: ToolResult): string {
  return (r.content ?? [])
    .map((c) => c.text ?? '')
    .join(' ')
    .slice(0, 300);
}
