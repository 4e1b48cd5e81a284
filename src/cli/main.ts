/** `msgbrowse-mcp`: the MCP server over stdio (default) or loopback HTTP. Over stdio, stdout carries only JSON-RPC. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ARCHIVE_FILE_NAME,
  compiledEngineModule,
  createRuntime,
  DEFAULT_ANSWER_BUDGET,
  embedConfigFromEnv,
  LedgerWriter,
  prewarmEngine,
  type Runtime,
  unmatchedExclusionLines,
  workerOpener,
} from '../core';
import { type CliOptions, excludeLines, ledgerProblem, parseBridge, parseCli, USAGE } from './args';
import type { Launch } from '../mcp/client-configs';
import { servingBanner } from './banner';
import { storedToken, type StoredToken } from './token';
import { CliError, oneLine } from './errors';
import { AUTHORITY, NAME, VERSION } from './identity';
import { type CliLogger, makeLogger } from './log';
import { printSummary } from './summary-printer';

/**
 * This same CLI over stdio with this server's archive, privacy and embeddings options (never the API key), for the
 * banner's clients that start their own server. Absolute paths: a desktop client's PATH may lack node.
 */
function stdioLaunch(opts: CliOptions, env: NodeJS.ProcessEnv): Launch {
  // `--flag=value`: a conversation named like a flag ("-=Gamers=-") stays one value.
  const args = [process.argv[1], '--archive', opts.archive, ...opts.exclude.map((x) => `--exclude=${x}`)];
  if (!opts.redact) args.push('--no-redact');
  if (opts.linkScheme !== 'vscode') args.push(`--link-scheme=${opts.linkScheme}`);
  // The same ledger: what the second client is shown is recorded too.
  if (opts.ledger) args.push(`--ledger=${opts.ledger}`);
  if (opts.maxResultBytes !== DEFAULT_ANSWER_BUDGET) args.push(`--max-result-bytes=${opts.maxResultBytes}`);
  const passed = ['MSGBROWSE_LLM_BASE_URL', 'MSGBROWSE_LLM_EMBED_MODEL', 'MSGBROWSE_LLM_TIMEOUT'] as const;
  const launchEnv = Object.fromEntries(passed.flatMap((k) => (env[k] !== undefined ? [[k, env[k] as string]] : [])));
  return { transport: 'stdio', command: process.execPath, args, env: launchEnv };
}

/** A text file as written: UTF-8 (BOM or not) or UTF-16 with its BOM, what Windows tools write by default. */
function decodeText(buf: Buffer): string | undefined {
  if (buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2).toString('utf16le');
  if (buf[0] === 0xfe && buf[1] === 0xff) return Buffer.from(buf.subarray(2)).swap16().toString('utf16le');
  const text = buf.toString('utf8').replace(/^\uFEFF/, '');
  // NUL bytes: UTF-16 without a BOM, or not text; read as UTF-8 its names would match nothing and hide nothing.
  return text.includes('\0') ? undefined : text;
}

/** MSGBROWSE_EXCLUDE_FILE's names added to the exclusions; a file that cannot be read stops the start. */
function withExcludeFile(opts: CliOptions): CliOptions {
  if (!opts.excludeFile) return opts;
  const problem = (why: string) =>
    new CliError(
      `cannot read MSGBROWSE_EXCLUDE_FILE ${opts.excludeFile} (${why}): give a text file (UTF-8 or UTF-16) with one conversation name (or source:name) per line, or unset it`,
      2,
    );
  let buf: Buffer;
  try {
    buf = fs.readFileSync(opts.excludeFile);
  } catch (e) {
    throw problem((e as NodeJS.ErrnoException).code ?? oneLine(e));
  }
  const text = decodeText(buf);
  if (text === undefined) throw problem('it holds NUL bytes: not UTF-8 text');
  return { ...opts, exclude: [...new Set([...opts.exclude, ...excludeLines(text)])] };
}

/** Opens the archive once so a bad path fails at start with one clear line. */
async function openOrFail(runtime: Runtime, archive: string): Promise<void> {
  if (!fs.existsSync(archive))
    throw new CliError(
      `archive not found: ${archive} — pass --archive PATH (a msgbrowse.sqlite file or its data dir) or set MSGBROWSE_DATA_DIR`,
    );
  try {
    await runtime.context.archive();
  } catch (e) {
    throw new CliError(`cannot open archive: ${oneLine(e)}`);
  }
}

/** The --ledger writer, checked against the archive file `archive` resolves to. */
function openLedger(file: string, archive: string, log: CliLogger): LedgerWriter {
  let archiveFile = archive;
  try {
    if (fs.statSync(archive).isDirectory()) archiveFile = path.join(archive, ARCHIVE_FILE_NAME);
  } catch {
    /* openOrFail reports a missing archive */
  }
  const problem = ledgerProblem(file, archiveFile);
  if (problem) throw new CliError(problem, 2);
  return new LedgerWriter(file, { archivePath: () => archiveFile, log: (m) => log('warn', m) });
}

/** Loading the MCP server holds this thread, so it waits for the engine compile and lets the worker start first. */
async function workerStarting(): Promise<void> {
  await compiledEngineModule().catch(() => undefined);
  await new Promise((resolve) => setImmediate(resolve));
}

/** Imported on demand; over stdio the server is made here too. Both serve both protocol eras. */
async function loadServing(http: boolean, context: Runtime['context'], log: CliLogger) {
  const { createMcpServer, listenWatch, serverSink } = await import('../mcp/index');
  if (http) {
    const [{ serveHttp }, { modernLeg }] = await Promise.all([
      import('../transport/http'),
      import('../transport/http-modern'),
    ]);
    const createServer = () => createMcpServer(context);
    // 2026-07-28 clients' subscriptions/listen streams: one watch for the endpoint, published on the SDK's bus.
    const modern = modernLeg(createServer, {
      listens: (notify) => listenWatch(context, notify),
      onerror: (e) => log('debug', `2026-07-28 request: ${e.message}`),
    });
    return { kind: 'http' as const, createServer, serveHttp, modern };
  }
  const { serveStdio } = await import('../transport/stdio');
  const server = createMcpServer(context);
  return { kind: 'stdio' as const, server, serveStdio, listens: listenWatch(context, serverSink(server)) };
}

type Serving = Awaited<ReturnType<typeof loadServing>>;

// Serving uses the engine worker, so a heavy call neither stalls the transport nor outlives its cancellation; the
// one-shot --summary stays in this thread and prewarms nothing.
function makeRuntime(opts: CliOptions, env: NodeJS.ProcessEnv, log: CliLogger, ledger?: LedgerWriter): Runtime {
  const serving = !opts.summary;
  return createRuntime({
    archivePath: opts.archive,
    embed: embedConfigFromEnv(env),
    citation: { scheme: opts.linkScheme, authority: AUTHORITY },
    redact: opts.redact,
    privacy: { excludeConversations: opts.exclude },
    answerBudget: opts.maxResultBytes,
    // This thread only waits meanwhile, so it scans a bounded share of each unfiltered vector search.
    openArchive: serving ? workerOpener({ log, helpScans: true }) : undefined,
    cacheDir: opts.cacheDir,
    version: VERSION,
    log,
    prewarmSemantic: serving,
    prewarmCounts: serving,
    ...(serving ? { watchIntervalMs: 1000 } : {}),
    ...(ledger ? { disclose: (d) => void ledger.append(d) } : {}),
  });
}

export async function main(argv = process.argv.slice(2), env = process.env): Promise<number> {
  const log = makeLogger(env);
  const bridge = parseBridge(argv, process.cwd());
  if (bridge) {
    // A thin relay for VS Code: the server, the archive and the secret stay in the extension host.
    const { runBridge } = await import('../transport/bridge');
    return runBridge({ endpointFile: bridge.bridge, log });
  }
  const parsed = parseCli(argv, env, process.cwd());
  if (parsed === 'help' || parsed === 'version') {
    process.stdout.write(parsed === 'help' ? USAGE : `${NAME} ${VERSION}\n`);
    return 0;
  }
  const opts = withExcludeFile(parsed);
  prewarmEngine();
  const ledger = opts.ledger ? openLedger(opts.ledger, opts.archive, log) : undefined;
  const runtime = makeRuntime(opts, env, log, ledger);
  try {
    // The MCP server and its transport load while the engine worker opens the archive on another core.
    log.muted = true;
    const opening = openOrFail(runtime, opts.archive);
    const serving = opts.summary
      ? undefined
      : workerStarting().then(() => loadServing(opts.http, runtime.context, log));
    void serving?.catch(() => undefined);
    await opening;
    log.muted = false;
    const st = runtime.status().archive;
    const archiveLabel = st.state === 'open' && st.notice ? `${opts.archive} (${st.notice})` : opts.archive;
    if (ledger) log('info', `disclosure ledger: ${ledger.file}`);
    // An exclusion that hides nothing is said before anything is served (a typo must not pass for privacy).
    for (const line of unmatchedExclusionLines(await runtime.exclusions())) log('warn', `--exclude ${line}`);
    if (opts.summary) {
      await printSummary(runtime, opts.query);
      return 0;
    }
    if (!opts.redact)
      log(
        'warn',
        'secret redaction is off (--no-redact): MCP clients receive one-time codes, card numbers and security codes, IBANs, passwords and API keys as written',
      );
    const served = (await serving)!;
    if (served.kind === 'http') return await serveHttp(served, opts, env, log, archiveLabel);
    const handle = await served.serveStdio(served.server, { listens: served.listens });
    log('info', `serving ${archiveLabel} over stdio`);
    log('debug', `stdio session ended (${await handle.closed})`);
    return 0;
  } finally {
    await runtime.dispose();
  }
}

/** The --http token: MSGBROWSE_MCP_TOKEN, else the stored one (made at first use, replaced by --rotate-token). */
function httpToken(env: NodeJS.ProcessEnv, rotate: boolean, log: CliLogger) {
  const envToken = env.MSGBROWSE_MCP_TOKEN?.trim();
  if (envToken && envToken.length < 16) log('warn', 'MSGBROWSE_MCP_TOKEN is short; use at least 16 random characters');
  if (envToken && rotate)
    log('warn', '--rotate-token: MSGBROWSE_MCP_TOKEN is set and wins; the stored token is replaced all the same');
  let stored: StoredToken | undefined;
  try {
    if (!envToken || rotate) stored = storedToken(env, rotate);
  } catch (e) {
    throw new CliError(`cannot keep the HTTP token: ${oneLine(e)} — set MSGBROWSE_MCP_TOKEN instead`);
  }
  if (stored?.tightened) log('warn', `${stored.file} could be read by other users; it is private (0600) again`);
  return envToken ? { token: envToken } : { token: stored!.token, stored };
}

async function serveHttp(
  served: Extract<Serving, { kind: 'http' }>,
  opts: CliOptions,
  env: NodeJS.ProcessEnv,
  log: CliLogger,
  archiveLabel: string,
): Promise<number> {
  const { token, stored } = httpToken(env, opts.rotateToken, log);
  const handle = await served
    .serveHttp({
      createServer: served.createServer,
      modern: served.modern,
      listen: { ...opts.listen, allowRemote: opts.allowRemote },
      secret: token,
      log,
    })
    .catch((e: unknown) => {
      throw new CliError(oneLine(e));
    });
  // Listen for the stop signals before announcing the URL: whoever reads the banner may stop us at once.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  process.stderr.write(servingBanner(archiveLabel, handle.url, token, stdioLaunch(opts, env), stored));
  await stopped;
  log('info', 'shutting down');
  await handle.close();
  return 0;
}

function isMain(): boolean {
  // Bundled (dist/cli.js, the msgbrowse-mcp bin) or run directly with tsx (src/cli/main.ts); not when imported by tests.
  const entry = process.argv[1] ? path.resolve(process.argv[1]) : '';
  return /(?:^|[\\/])(cli\.(?:js|ts|cjs|mjs)|cli[\\/]main\.ts|msgbrowse-mcp)$/.test(entry);
}

if (isMain()) {
  process.on('unhandledRejection', (e) => process.stderr.write(`${NAME}: error: ${oneLine(e)}\n`));
  const exit = (code: number) => {
    process.exitCode = code;
    // Give stdout a moment to flush, then leave even if a stray handle lingers.
    setTimeout(() => process.exit(code), 200).unref();
  };
  main().then(exit, (e: unknown) => {
    process.stderr.write(`${NAME}: ${e instanceof CliError ? '' : 'error: '}${oneLine(e)}\n`);
    exit(e instanceof CliError ? e.exitCode : 1);
  });
}
