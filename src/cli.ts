/**
 * `msgbrowse-mcp`: the msgbrowse MCP server over stdio (default) or loopback streamable HTTP.
 * stdout carries only JSON-RPC in stdio mode; every log line goes to stderr.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { embedConfigFromEnv } from './embed/config';
import { createMcpServer } from './mcp/index';
import { messageLink } from './core/citation';
import type { CitationFormat, LogLevel } from './core/context';
import { createRuntime, defaultCacheDir, workerOpener, type Runtime } from './core/index';
import { isLoopbackHost, serveHttp, serveStdio } from './transport/index';
import pkg from '../package.json';

const NAME = 'msgbrowse-mcp';
const VERSION: string = pkg.version;
const AUTHORITY = `${pkg.publisher}.${pkg.name}`;
const DEFAULT_LISTEN = '127.0.0.1:8788';

const USAGE = `Usage: ${NAME} [options]

Serves a msgbrowse message archive (read-only) to MCP clients.

Options:
  --archive PATH       msgbrowse.sqlite or its data dir
                       (default: $MSGBROWSE_DATA_DIR/msgbrowse.sqlite, else ./data/msgbrowse.sqlite)
  --http               serve streamable HTTP at /mcp instead of stdio
  --listen HOST:PORT   HTTP address (default ${DEFAULT_LISTEN}; loopback only unless --allow-remote)
  --allow-remote       allow a non-loopback --listen address (anyone with the token can read your archive)
  --link-scheme NAME   scheme of citation links (default vscode; e.g. vscode-insiders, cursor)
  --cache-dir DIR      vector index cache (default $XDG_CACHE_HOME/msgbrowse-vscode or ~/.cache/msgbrowse-vscode)
  --summary            print the archive summary and a sample keyword search, then exit
  --query TEXT         the keyword query --summary runs (default: a word from the archive)
  --help, -h           show this help
  --version, -v        print the version

Environment:
  MSGBROWSE_DATA_DIR          data dir holding msgbrowse.sqlite
  MSGBROWSE_MCP_TOKEN         bearer token for --http (default: a random one, printed at start)
  MSGBROWSE_LLM_BASE_URL      embeddings endpoint (default http://127.0.0.1:4000/v1)
  MSGBROWSE_LLM_EMBED_MODEL   embedding model (default local-embed; empty disables semantic search)
  MSGBROWSE_LLM_API_KEY       embeddings API key (optional)
  MSGBROWSE_MCP_LOG           log level on stderr: debug, info (default), warn, error
`;

/** A user-facing failure: printed as one line, exit code attached. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

interface CliOptions {
  archive: string;
  http: boolean;
  listen: { host: string; port: number };
  allowRemote: boolean;
  linkScheme: string;
  cacheDir: string;
  summary: boolean;
  query?: string;
}

const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];

interface CliLogger {
  (level: LogLevel, message: string): void;
  /** While true, only debug output passes (startup failures are reported once, by the CLI itself). */
  muted: boolean;
}

function makeLogger(env: NodeJS.ProcessEnv): CliLogger {
  const wanted = (env.MSGBROWSE_MCP_LOG ?? 'info').trim().toLowerCase() as LogLevel;
  const min = Math.max(0, LEVELS.indexOf(wanted));
  const log = ((level: LogLevel, message: string) => {
    if (LEVELS.indexOf(level) < min) return;
    if (log.muted && level !== 'debug') return;
    process.stderr.write(`${NAME}: ${level === 'info' ? '' : `${level}: `}${message}\n`);
  }) as CliLogger;
  log.muted = false;
  return log;
}

export function parseListen(value: string): { host: string; port: number } {
  const v = value.trim();
  let host: string;
  let portText: string;
  const bracket = /^\[([^\]]+)\]:(\d+)$/.exec(v);
  if (bracket) {
    host = bracket[1];
    portText = bracket[2];
  } else if (/^\d+$/.test(v)) {
    host = '127.0.0.1';
    portText = v;
  } else {
    const i = v.lastIndexOf(':');
    if (i < 0 || v.indexOf(':') !== i) throw new CliError(`invalid --listen "${value}": use HOST:PORT, e.g. ${DEFAULT_LISTEN}`, 2);
    host = v.slice(0, i) || '127.0.0.1';
    portText = v.slice(i + 1);
  }
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    throw new CliError(`invalid --listen "${value}": the port must be 0–65535`, 2);
  }
  return { host, port };
}

export function defaultArchivePath(env: NodeJS.ProcessEnv, cwd: string): string {
  const dataDir = env.MSGBROWSE_DATA_DIR?.trim();
  if (dataDir) return path.resolve(cwd, dataDir, 'msgbrowse.sqlite');
  return path.resolve(cwd, 'data', 'msgbrowse.sqlite');
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv, cwd: string): CliOptions | 'help' | 'version' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        archive: { type: 'string' },
        http: { type: 'boolean' },
        listen: { type: 'string' },
        'allow-remote': { type: 'boolean' },
        'link-scheme': { type: 'string' },
        'cache-dir': { type: 'string' },
        summary: { type: 'boolean' },
        query: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new CliError(`${msg.replace(/\.$/, '')} (see ${NAME} --help)`, 2);
  }
  const o = parsed.values;
  if (o.help) return 'help';
  if (o.version) return 'version';
  const scheme = (o['link-scheme'] ?? 'vscode').trim();
  if (!/^[a-z][a-z0-9+.-]*$/i.test(scheme)) {
    throw new CliError(`invalid --link-scheme "${scheme}": use a URI scheme such as vscode or vscode-insiders`, 2);
  }
  if (o.listen !== undefined && !o.http) throw new CliError('--listen needs --http', 2);
  if (o.query !== undefined && !o.summary) throw new CliError('--query needs --summary', 2);
  const listen = parseListen(o.listen ?? DEFAULT_LISTEN);
  const allowRemote = o['allow-remote'] ?? false;
  if (o.http && !isLoopbackHost(listen.host) && !allowRemote) {
    throw new CliError(
      `refusing to listen on ${listen.host}: it is not a loopback address; pass --allow-remote to expose your archive to other machines`,
      2,
    );
  }
  const archiveArg = o.archive?.trim();
  if (o.archive !== undefined && !archiveArg) throw new CliError('--archive needs a path', 2);
  return {
    archive: archiveArg ? path.resolve(cwd, archiveArg) : defaultArchivePath(env, cwd),
    http: o.http ?? false,
    listen,
    allowRemote,
    linkScheme: scheme,
    cacheDir: o['cache-dir'] ? path.resolve(cwd, o['cache-dir']) : defaultCacheDir(env),
    summary: o.summary ?? false,
    query: o.query,
  };
}

function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s*\n\s*/g, ' ').trim();
}

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

function plainSnippet(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u0002/g, '[').replace(/\u0003/g, ']').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

async function printSummary(runtime: Runtime, citation: CitationFormat, query: string | undefined): Promise<void> {
  const st = await runtime.describe();
  const s = st.summary;
  if (!s) throw new CliError(`cannot read the archive summary${st.archive.state === 'error' ? `: ${st.archive.error}` : ''}`);
  const out: string[] = [];
  out.push(`Archive     ${s.path}`);
  out.push(`Schema      v${s.schemaVersion}`);
  out.push(`Content     ${s.conversations} conversations, ${s.messages} messages`);
  const sources = Object.entries(s.sources)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  out.push(`Sources     ${sources || '(none)'}`);
  out.push(`Span        ${s.firstTs || '-'} … ${s.lastTs || '-'}`);
  const models = s.embeddingModels.map((m) => `${m.model} (${m.count} vectors, dim ${m.dim})`).join(', ');
  out.push(`Embeddings  ${models || '(none)'}`);
  const sem = await runtime.context.semantic();
  out.push(`Semantic    ${sem.available ? `ready (${sem.index.size} vectors of ${sem.index.model})` : `unavailable: ${sem.reason}`}`);

  const archive = await runtime.context.archive();
  let q = query?.trim();
  if (!q) {
    const convs = await archive.listConversations();
    const biggest = [...convs].sort((a, b) => b.messageCount - a.messageCount || a.id - b.id)[0];
    if (biggest) {
      const page = await archive.transcript({ conversationId: biggest.id, limit: 50 });
      for (const m of page.messages) {
        const w = m.body.match(/\p{L}{5,}/u);
        if (w && !m.isSystem) {
          q = w[0].toLowerCase();
          break;
        }
      }
    }
  }
  if (q) {
    const hits = await archive.searchKeyword({ query: q, limit: 5 });
    out.push('');
    out.push(`Keyword search "${q}": ${hits.length === 0 ? 'no hits' : `top ${hits.length}`}`);
    for (const h of hits) {
      out.push(`  ${h.ts}  ${h.conversation} (${h.source}) — ${h.sender}: ${plainSnippet(h.snippet)}`);
      out.push(`    ${messageLink(citation, h.conversationId, h.id)}`);
    }
  }
  process.stdout.write(out.join('\n') + '\n');
}

function clientConfig(url: string, token: string): string {
  const headers = { Authorization: `Bearer ${token}` };
  return [
    'VS Code (.vscode/mcp.json):',
    JSON.stringify({ servers: { msgbrowse: { type: 'http', url, headers } } }, null, 2),
    'Claude Code:',
    `  claude mcp add --transport http msgbrowse ${url} --header "Authorization: Bearer ${token}"`,
  ].join('\n');
}

export async function main(argv = process.argv.slice(2), env = process.env): Promise<number> {
  const log = makeLogger(env);
  const opts = parseCli(argv, env, process.cwd());
  if (opts === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (opts === 'version') {
    process.stdout.write(`${NAME} ${VERSION}\n`);
    return 0;
  }

  const citation: CitationFormat = { scheme: opts.linkScheme, authority: AUTHORITY };
  const runtime = createRuntime({
    // Over HTTP several clients share the process: queries and vector scans run in the engine worker so one
    // heavy call does not stall the others. Over stdio (one client) the archive stays in this thread.
    openArchive: opts.http ? workerOpener({ log }) : undefined,
    archivePath: opts.archive,
    embed: embedConfigFromEnv(env),
    citation,
    cacheDir: opts.cacheDir,
    version: VERSION,
    log,
    // Serving: have the vector index ready before the first semantic query. --summary builds it on demand.
    prewarmSemantic: !opts.summary,
  });
  let disposed = false;
  const dispose = async () => {
    if (disposed) return;
    disposed = true;
    await runtime.dispose();
  };

  try {
    log.muted = true;
    await openOrFail(runtime, opts.archive);
    log.muted = false;
    if (opts.summary) {
      await printSummary(runtime, citation, opts.query);
      return 0;
    }

    if (!opts.http) {
      const handle = await serveStdio(createMcpServer(runtime.context));
      log('info', `serving ${opts.archive} over stdio`);
      const why = await handle.closed;
      log('debug', `stdio session ended (${why})`);
      return 0;
    }

    const envToken = env.MSGBROWSE_MCP_TOKEN?.trim();
    const token = envToken || randomBytes(24).toString('base64url');
    if (envToken && envToken.length < 16) log('warn', 'MSGBROWSE_MCP_TOKEN is short; use at least 16 random characters');
    let handle;
    try {
      handle = await serveHttp({
        createServer: () => createMcpServer(runtime.context),
        listen: { host: opts.listen.host, port: opts.listen.port, allowRemote: opts.allowRemote },
        secret: token,
        refusal: 'http',
        log,
      });
    } catch (e) {
      throw new CliError(oneLine(e));
    }
    // One write, so a reader of stderr sees the URL and the client config together.
    const banner = [`${NAME}: serving ${opts.archive} at ${handle.url}`];
    if (!envToken) {
      banner.push(`${NAME}: token (set MSGBROWSE_MCP_TOKEN to choose your own): ${token}`);
      banner.push(clientConfig(handle.url, token));
    } else {
      banner.push(`${NAME}: token from MSGBROWSE_MCP_TOKEN (send it as "Authorization: Bearer <token>")`);
    }
    process.stderr.write(banner.join('\n') + '\n');
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    log('info', 'shutting down');
    await handle.close();
    return 0;
  } finally {
    await dispose();
  }
}

function isMain(): boolean {
  // Bundled (dist/cli.js) or run directly with tsx; not when imported by tests.
  const entry = process.argv[1] ? path.resolve(process.argv[1]) : '';
  return /(?:^|[\\/])(cli\.(?:js|ts|cjs|mjs)|msgbrowse-mcp)$/.test(entry);
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
