/**
 * `msgbrowse-mcp`: the msgbrowse MCP server over stdio (default) or loopback streamable HTTP.
 * stdout carries only JSON-RPC in stdio mode; every log line goes to stderr.
 * The entry (bundled to dist/cli.js): wires the argument parser, the logger, the runtime, the transports,
 * the --summary printer and the HTTP banner. Like src/extension/ it is a top-level adapter; it never imports `vscode`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ARCHIVE_FILE_NAME,
  type CitationFormat,
  compiledEngineModule,
  createRuntime,
  embedConfigFromEnv,
  LedgerWriter,
  prewarmEngine,
  type Runtime,
  unmatchedExclusionLines,
  workerOpener,
} from '../core';
import { ledgerProblem, parseBridge, parseCli, USAGE } from './args';
import { servingBanner } from './banner';
import { stateDir, storedToken, TOKEN_FILE_NAME, type StoredToken } from './token';
import { CliError, oneLine } from './errors';
import { AUTHORITY, NAME, VERSION } from './identity';
import { makeLogger } from './log';
import { printSummary } from './summary-printer';

/** Opens the archive once so a bad path fails at start with one clear line. */
async function openOrFail(runtime: Runtime, archive: string): Promise<void> {
  if (!fs.existsSync(archive)) {
    throw new CliError(
      `archive not found: ${archive} — pass --archive PATH (a msgbrowse.sqlite file or its data dir) or set MSGBROWSE_DATA_DIR`,
    );
  }
  try {
    await runtime.context.archive();
  } catch (e) {
    throw new CliError(`cannot open archive: ${oneLine(e)}`);
  }
}

/** The --ledger writer, refused when the ledger would be inside the archive's folder (the file or its data dir). */
function openLedger(file: string, archive: string, log: ReturnType<typeof makeLogger>): LedgerWriter {
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

/**
 * Settles once the engine worker has been started: the worker is made as soon as this thread's engine compile ends
 * (it is handed the compiled module), and loading the MCP server holds this thread for 50-150 ms, so that load
 * waits for the compile, then lets the continuations that start the worker run first.
 */
async function workerStarting(): Promise<void> {
  await compiledEngineModule().catch(() => undefined);
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * The MCP server and the one transport this run serves over, imported on demand (see main). Over stdio the one
 * server is made here too, so its tools, schemas and Ajv are set up while the archive is still opening.
 */
async function loadServing(http: boolean, context: Runtime['context']) {
  const { createMcpServer } = await import('../mcp/index');
  if (http) {
    const { serveHttp } = await import('../transport/http');
    return { kind: 'http' as const, createMcpServer, serveHttp };
  }
  const { serveStdio } = await import('../transport/stdio');
  return { kind: 'stdio' as const, server: createMcpServer(context), serveStdio };
}

export async function main(argv = process.argv.slice(2), env = process.env): Promise<number> {
  const log = makeLogger(env);
  const bridge = parseBridge(argv, process.cwd());
  if (bridge) {
    // A thin relay for VS Code: the server, the archive and the secret stay in the extension host.
    const { runBridge } = await import('../transport/bridge');
    return runBridge({ endpointFile: bridge.bridge, log: (level, message) => log(level, message) });
  }
  const opts = parseCli(argv, env, process.cwd());
  if (opts === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (opts === 'version') {
    process.stdout.write(`${NAME} ${VERSION}\n`);
    return 0;
  }

  // Start warm: compile the WASM engine while the rest starts up (the engine worker gets the compiled module).
  prewarmEngine();
  const citation: CitationFormat = { scheme: opts.linkScheme, authority: AUTHORITY };
  const ledger = opts.ledger ? openLedger(opts.ledger, opts.archive, log) : undefined;
  const runtime = createRuntime({
    // Serving (stdio or HTTP): queries and vector scans run in the engine worker, as in the extension, so a heavy
    // call neither stalls the transport (pings, other sessions) nor outlives its cancellation. The one-shot
    // --summary stays in this thread. This thread, which only waits meanwhile, scans part of each unfiltered vector
    // search beside the worker: at most half of it and at most 10 ms, so the transport waits no longer than that
    // (about 3 ms at 100k vectors; the extension host never scans).
    openArchive: opts.summary ? undefined : workerOpener({ log, helpScans: true }),
    archivePath: opts.archive,
    embed: embedConfigFromEnv(env),
    citation,
    redact: opts.redact,
    privacy: { excludeConversations: opts.exclude },
    answerBudget: opts.maxResultBytes,
    cacheDir: opts.cacheDir,
    version: VERSION,
    log,
    // Serving: have the vector index ready before the first semantic query. --summary builds it on demand.
    prewarmSemantic: !opts.summary,
    // Serving: count the messages on every (re)open, so the first tool call finds the counts its receipt or
    // listing needs already made.
    prewarmCounts: !opts.summary,
    // Serving: notice msgbrowse's writes (imports, re-imports, WAL commits) so subscribed clients hear of them.
    ...(opts.summary ? {} : { watchIntervalMs: 1000 }),
    // --ledger: every tool call and resource read served, as the extension records them (core/ledger.ts).
    ...(ledger ? { disclose: (d) => void ledger.append(d) } : {}),
  });
  let disposed = false;
  const dispose = async () => {
    if (disposed) return;
    disposed = true;
    await runtime.dispose();
  };

  try {
    // The MCP server and its transport are loaded and made while the engine worker, once started, opens the
    // archive on another core: that takes this thread 50-150 ms. Clients are served once the archive opened.
    log.muted = true;
    const opening = openOrFail(runtime, opts.archive);
    const serving = opts.summary ? undefined : workerStarting().then(() => loadServing(opts.http, runtime.context));
    void serving?.catch(() => undefined);
    await opening;
    log.muted = false;
    // The start line says what a person should know about the archive's schema (a newer msgbrowse wrote it).
    const st = runtime.status().archive;
    const archiveLabel = st.state === 'open' && st.notice ? `${opts.archive} (${st.notice})` : opts.archive;
    if (ledger) log('info', `disclosure ledger: ${ledger.file}`);
    // An exclusion that hides nothing is said before anything is served (a typo must not pass for privacy).
    for (const line of unmatchedExclusionLines(await runtime.exclusions())) log('warn', `--exclude ${line}`);
    if (opts.summary) {
      await printSummary(runtime, citation, opts.query);
      return 0;
    }
    if (!opts.redact)
      log(
        'warn',
        'secret redaction is off (--no-redact): MCP clients receive one-time codes, card numbers, IBANs and passwords as written',
      );

    const served = (await serving)!;
    if (served.kind === 'stdio') {
      const handle = await served.serveStdio(served.server);
      log('info', `serving ${archiveLabel} over stdio`);
      const why = await handle.closed;
      log('debug', `stdio session ended (${why})`);
      return 0;
    }

    const envToken = env.MSGBROWSE_MCP_TOKEN?.trim();
    if (envToken && envToken.length < 16)
      log('warn', 'MSGBROWSE_MCP_TOKEN is short; use at least 16 random characters');
    if (envToken && opts.rotateToken)
      log('warn', '--rotate-token: MSGBROWSE_MCP_TOKEN is set and wins; the stored token is replaced all the same');
    let stored: StoredToken | undefined;
    try {
      stored =
        envToken && !opts.rotateToken
          ? undefined
          : storedToken(path.join(stateDir(env), TOKEN_FILE_NAME), opts.rotateToken);
    } catch (e) {
      throw new CliError(`cannot keep the HTTP token: ${oneLine(e)} — set MSGBROWSE_MCP_TOKEN instead`);
    }
    if (stored?.tightened) log('warn', `${stored.file} could be read by other users; it is private (0600) again`);
    const token = envToken || stored!.token;
    let handle: Awaited<ReturnType<typeof served.serveHttp>>;
    try {
      handle = await served.serveHttp({
        createServer: () => served.createMcpServer(runtime.context),
        listen: { host: opts.listen.host, port: opts.listen.port, allowRemote: opts.allowRemote },
        secret: token,
        log,
      });
    } catch (e) {
      throw new CliError(oneLine(e));
    }
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
    process.stderr.write(
      servingBanner(
        archiveLabel,
        handle.url,
        token,
        envToken ? { from: 'env' } : { from: 'file', file: stored!.file, created: stored!.created },
      ),
    );
    await stopped;
    log('info', 'shutting down');
    await handle.close();
    return 0;
  } finally {
    await dispose();
  }
}

function isMain(): boolean {
  // Bundled (dist/cli.js, the msgbrowse-mcp bin) or run directly with tsx (src/cli/main.ts); not when imported by tests.
  const entry = process.argv[1] ? path.resolve(process.argv[1]) : '';
  return /(?:^|[\\/])(cli\.(?:js|ts|cjs|mjs)|cli[\\/]main\.ts|msgbrowse-mcp)$/.test(entry);
}

if (isMain()) {
  process.on('unhandledRejection', (e) => {
    process.stderr.write(`${NAME}: error: ${oneLine(e)}\n`);
  });
  main().then(
    (code) => {
      process.exitCode = code;
      // Give stdout a moment to flush, then leave even if a stray handle lingers.
      setTimeout(() => process.exit(code), 200).unref();
    },
    (e: unknown) => {
      const code = e instanceof CliError ? e.exitCode : 1;
      process.stderr.write(`${NAME}: ${e instanceof CliError ? '' : 'error: '}${oneLine(e)}\n`);
      process.exitCode = code;
      setTimeout(() => process.exit(code), 200).unref();
    },
  );
}
