/**
 * Where the time of one MCP tool call goes (issue 15, item 4):
 *   npx tsx bench/mcp-overhead.ts [archive name, default m100k_e768]
 * `search_messages` keyword-only (no embedding model), laid out like the CLI and the extension: runtime and MCP
 * server on this thread, the archive in the engine worker, an SDK client over an in-memory transport. For the
 * same queries it times: the keyword SQL natively (better-sqlite3) and in our WASM engine in-thread, and all three
 * statements the keyword half runs (search, hit extras, receipt count) both ways; every archive
 * call the tool makes (through the worker, grouped by method); the handler alone; the SDK's input and output
 * validation; JSON serialisation of the result; and the whole call from the client. Then the same call over
 * stdio to the built CLI (what a real client pays).
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readIdentity } from '../src/archive/file-identity';
import { openArchive } from '../src/archive/index';
import { ARCHIVE_QUERIES, type Snapshot } from '../src/archive/methods';
import { listConversations } from '../src/archive/queries/conversations';
import { embeddingModels } from '../src/archive/queries/embeddings';
import { summaryCounts } from '../src/archive/queries/summary';
import type { AsyncArchive } from '../src/archive/types';
import { createRuntime, workerOpener } from '../src/core/index';
import { createMcpServer } from '../src/mcp/index';
import { searchMessages } from '../src/mcp/tools/search-messages';
import type { ToolEnv } from '../src/mcp/tool';
import { ensureArchive } from './lib/data';
import { openNativeKeyword } from './lib/native-keyword';
import { callTool, ensureCliBundle, startCliSession } from './lib/mcp';
import { dist, ms, table } from './lib/stats';
import { widePrefix } from './lib/trace';

const ROUNDS = 25;

/** Each query once (warm-up), then ROUNDS rounds of all of them in turn: the median, and each query's median. */
async function timeQueries(
  fn: (q: string) => Promise<unknown> | unknown,
  queries: string[],
): Promise<{ median: number; per: Map<string, number> }> {
  for (const q of queries) await fn(q); // warm-up
  const samples: number[] = [];
  const byQuery = new Map<string, number[]>(queries.map((q) => [q, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const q of queries) {
      const t = performance.now();
      await fn(q);
      const d = performance.now() - t;
      samples.push(d);
      byQuery.get(q)!.push(d);
    }
  }
  return { median: dist(samples).median, per: new Map([...byQuery].map(([q, v]) => [q, dist(v).median])) };
}

/** Per-query medians of the rows the keyword ratio is made of (filled as the rows below are timed). */
const perQuery = new Map<string, Map<string, number>>();

async function timeEach(
  fn: (q: string) => Promise<unknown> | unknown,
  queries: string[],
  keep?: string,
): Promise<number> {
  const { median, per } = await timeQueries(fn, queries);
  if (keep) perQuery.set(keep, per);
  return median;
}

async function main(): Promise<void> {
  const a = ensureArchive(process.argv[2] ?? 'm100k_e768');
  // The e2e section's keyword queries (bench/sections/e2e.ts), so the figures line up with its keyword-only row.
  const queries = [
    'with',
    a.desc.sampleWords.rare[0],
    'coffee tonight',
    widePrefix(a.desc.seed).prefix,
    'cafe',
    'dinner weekend',
    'flight hotel',
    a.desc.sampleWords.medium[3],
  ];
  const rows: [string, number][] = [];

  // The keyword SQL itself: natively and in our engine, in-thread (what search_messages asks the archive first).
  const nativeDb = openNativeKeyword(a.file);
  const { sql: nsql, schema } = nativeDb;
  const limit = 20;
  rows.push([
    'keyword SQL natively (better-sqlite3, in-thread)',
    await timeEach((q) => nativeDb.search(q), queries, 'native'),
  ]);
  const sync = await openArchive(a.file);
  rows.push([
    'keyword SQL in our WASM engine, in-thread (public Archive API)',
    await timeEach((q) => sync.searchKeyword({ query: q, limit }), queries),
  ]);
  // Everything the keyword half asks the archive, in one thread: the search, the hits' reactions and attachment
  // names, the receipt's count (search_messages runs these three; the rows above are the first one alone).
  const memo = new Map<string, unknown>();
  const once = <T>(k: string, f: () => T): T =>
    memo.has(k) ? (memo.get(k) as T) : (memo.set(k, f()), memo.get(k) as T);
  const nativeSnapshot: Snapshot = {
    sql: nsql,
    schema,
    path: a.file,
    conversations: () => once('conversations', () => listConversations(nsql, schema)),
    models: () => once('models', () => embeddingModels(nsql, schema)),
    counts: () => once('counts', () => summaryCounts(nsql, nativeSnapshot.conversations())),
    identity: () => readIdentity(a.file),
    memo: (k, f) => once(`memo:${k}`, f),
    exclude: [],
  };
  const wholeTool =
    (run: {
      search: (q: string) => { id: number; hash: string }[];
      extras: (hashes: string[], ids: number[]) => unknown;
      counts: () => unknown;
    }) =>
    (q: string) => {
      const hits = run.search(q);
      run.extras(
        hits.map((h) => h.hash),
        [...new Set(hits.map((h) => h.id))],
      );
      run.counts();
    };
  rows.push([
    "the keyword half's whole SQL natively: search + hit extras + receipt count (better-sqlite3, in-thread)",
    await timeEach(
      wholeTool({
        search: (q) => ARCHIVE_QUERIES.searchKeyword(nativeSnapshot, { query: q, limit }),
        extras: (h, i) => ARCHIVE_QUERIES.hitExtras(nativeSnapshot, h, i),
        counts: () => ARCHIVE_QUERIES.scopeCounts(nativeSnapshot, {}),
      }),
      queries,
    ),
  ]);
  rows.push([
    'the same three in our WASM engine, in-thread',
    await timeEach(
      wholeTool({
        search: (q) => sync.searchKeyword({ query: q, limit }),
        extras: (h, i) => sync.hitExtras(h, i),
        counts: () => sync.scopeCounts({}),
      }),
      queries,
      'wasm',
    ),
  ]);

  // The tool as served: runtime + server here, archive in the engine worker.
  const calls = new Map<string, number[]>();
  const opener = workerOpener();
  const runtime = createRuntime({
    archivePath: a.file,
    embed: { baseUrl: 'http://127.0.0.1:9/v1', model: '' },
    citation: { scheme: 'vscode', authority: 'msgbrowse.msgbrowse-vscode' },
    version: 'bench',
    openArchive: async (p) => {
      const opened = await opener(p);
      const timed = new Proxy(opened.archive, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver) as unknown;
          if (typeof v !== 'function' || typeof prop !== 'string' || prop === 'close' || prop === 'excluding') return v;
          return async (...args: unknown[]) => {
            const t = performance.now();
            try {
              return await (v as (...x: unknown[]) => Promise<unknown>).apply(target, args);
            } finally {
              const list = calls.get(prop) ?? [];
              list.push(performance.now() - t);
              calls.set(prop, list);
            }
          };
        },
      }) as AsyncArchive;
      return { ...opened, archive: timed };
    },
  });
  const ctx = runtime.context;
  const def = searchMessages;
  const env = (): ToolEnv => ({
    ctx,
    archive: () => ctx.archive(),
    signal: new AbortController().signal,
    warn: () => {},
    budget: 8192,
  });
  const args = (q: string) => def.inputSchema.parse({ query: q });
  await def.handler(args(queries[0]), env());
  calls.clear();
  const handlerMs = await timeEach((q) => def.handler(args(q), env()), queries);
  const perCall = queries.length * (ROUNDS + 1);
  for (const [method, list] of [...calls].sort((x, y) => x[0].localeCompare(y[0]))) {
    rows.push([
      `… archive call through the engine worker: ${method} (${(list.length / perCall).toFixed(1)} per tool call)`,
      dist(list).median,
    ]);
  }
  rows.push(['tool handler alone (archive calls + hit shaping + receipt + markdown)', handlerMs]);
  const sample = await def.handler(args(queries[0]), env());
  const result = {
    content: [{ type: 'text', text: sample.text }, ...(sample.resources ?? [])],
    structuredContent: sample.structured,
  };
  rows.push([
    'SDK input validation (zod, inputSchema)',
    await timeEach((q) => def.inputSchema.safeParseAsync({ query: q }), queries),
  ]);
  rows.push([
    'SDK output validation (zod, outputSchema on structuredContent)',
    await timeEach(() => def.outputSchema.safeParseAsync(sample.structured), queries),
  ]);
  rows.push([
    `JSON serialisation of the result (${(JSON.stringify(result).length / 1024).toFixed(1)} KB)`,
    await timeEach(() => JSON.stringify(result), queries),
  ]);

  const [ct, st] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(ctx);
  await server.connect(st);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(ct);
  await client.listTools();
  rows.push([
    'whole call from an SDK client, in-memory transport (client validates too)',
    await timeEach((q) => callTool(client, 'search_messages', { query: q }), queries),
  ]);
  await client.close();

  const cli = ensureCliBundle((m) => process.stderr.write(`${m}\n`));
  const s = await startCliSession(cli, a.file, {
    cacheDir: fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-overhead-')),
    embedModel: '',
  });
  try {
    rows.push([
      'whole call over stdio to the built CLI (dist/cli.js)',
      await timeEach((q) => callTool(s.client, 'search_messages', { query: q }), queries, 'stdio'),
    ]);
    rows.push(['ping over stdio to the built CLI (transport floor)', await timeEach(() => s.client.ping(), queries)]);
  } finally {
    await s.close();
  }
  // The same call from a client that only parses the JSON (as VS Code's own does, without the SDK's zod schemas):
  // the difference to the row above is the SDK client's time, not the server's.
  const raw = await rawStdioSession(cli, a.file);
  try {
    rows.push([
      '… the same call from a minimal JSON-RPC client (JSON.parse only, no SDK)',
      await timeEach(
        (q) => raw.call('tools/call', { name: 'search_messages', arguments: { query: q } }),
        queries,
        'raw',
      ),
    ]);
  } finally {
    raw.close();
  }
  await runtime.dispose();
  sync.close();
  nativeDb.close();
  console.log(
    table(
      [`search_messages keyword-only, ${a.spec.name}, ${queries.length} queries × ${ROUNDS}`, 'median ms'],
      rows.map(([k, v]) => [k, ms(v)]),
    ),
  );
  // Per query: the ratio the issue asks about (the call over stdio against the search SQL natively), and what the
  // call costs outside SQLite (the call over stdio minus the keyword half's whole SQL in our engine, in-thread).
  const [native, wasm, stdio, bare] = ['native', 'wasm', 'stdio', 'raw'].map((k) => perQuery.get(k)!);
  console.log();
  console.log(
    table(
      [
        'query (medians, ms)',
        'search SQL natively',
        "keyword half's SQL, our engine in-thread",
        'whole call over stdio (SDK client)',
        'call / native SQL',
        'outside SQLite',
        'the call from a minimal client',
        'its ratio',
      ],
      queries.map((q) => [
        q,
        ms(native.get(q)!),
        ms(wasm.get(q)!),
        ms(stdio.get(q)!),
        `${(stdio.get(q)! / native.get(q)!).toFixed(1)}×`,
        ms(stdio.get(q)! - wasm.get(q)!),
        ms(bare.get(q)!),
        `${(bare.get(q)! / native.get(q)!).toFixed(1)}×`,
      ]),
    ),
  );
}

/** The built CLI over stdio, driven by newline-delimited JSON-RPC written and parsed here (one request at a time). */
async function rawStdioSession(
  cli: string,
  archive: string,
): Promise<{ call: (method: string, params: unknown) => Promise<unknown>; close: () => void }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('MSGBROWSE_')) env[k] = v;
  env.MSGBROWSE_LLM_EMBED_MODEL = '';
  env.MSGBROWSE_MCP_LOG = 'warn';
  const child = spawn(
    process.execPath,
    [cli, '--archive', archive, '--cache-dir', fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-overhead-raw-'))],
    { env, stdio: ['pipe', 'pipe', 'ignore'] },
  );
  let buffered = '';
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    buffered += d;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const msg = JSON.parse(buffered.slice(0, nl)) as {
        id?: number;
        method?: string;
        result?: { isError?: boolean };
        error?: { message: string };
      };
      buffered = buffered.slice(nl + 1);
      // Notifications and requests of the server's own (no id of ours) are not answers.
      const p = msg.method === undefined && msg.id !== undefined ? pending.get(msg.id) : undefined;
      if (!p) continue;
      pending.delete(msg.id!);
      if (msg.error || msg.result?.isError) p.reject(new Error(JSON.stringify(msg.error ?? msg.result)));
      else p.resolve(msg.result);
    }
  });
  child.on('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`the CLI exited (${code}) before answering`));
    pending.clear();
  });
  let id = 0;
  const call = (method: string, params: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      pending.set(++id, { resolve, reject });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await call('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench-raw', version: '1' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return { call, close: () => child.kill() };
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
