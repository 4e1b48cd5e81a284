/** The command line: flags, help text and every validation error (a `CliError`, exit code 2). Pure: no I/O. */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import {
  ARCHIVE_FILE_NAME,
  DEFAULT_ANSWER_BUDGET,
  defaultCacheDir,
  ledgerBesideArchive,
  MAX_ANSWER_BUDGET,
  MIN_ANSWER_BUDGET,
} from '../core';
import { isLoopbackHost } from '../transport/listen';
import { CliError } from './errors';
import { NAME } from './identity';

export const DEFAULT_LISTEN = '127.0.0.1:8788';

export const USAGE = `Usage: ${NAME} [options]

Serves a msgbrowse message archive (read-only) to MCP clients.

Options:
  --archive PATH       msgbrowse.sqlite or its data dir
                       (default: $MSGBROWSE_DATA_DIR/msgbrowse.sqlite, else ./data/msgbrowse.sqlite)
  --http               serve streamable HTTP at /mcp instead of stdio
  --listen HOST:PORT   HTTP address (default ${DEFAULT_LISTEN}; loopback only unless --allow-remote)
  --allow-remote       allow a non-loopback --listen address (anyone with the token can read your archive)
  --rotate-token       with --http: replace the stored token (saved client configurations then need the new one)
  --link-scheme NAME   scheme of citation links (default vscode; e.g. vscode-insiders, cursor)
  --cache-dir DIR      vector index cache (default $XDG_CACHE_HOME/msgbrowse-vscode or ~/.cache/msgbrowse-vscode)
  --ledger FILE        append a JSON line per tool call and resource read served to a client (time, client,
                       tool and arguments, the hashes of the messages returned); never inside the archive's folder
  --no-redact          send secrets to MCP clients as written (default: one-time codes, card numbers and
                       their security codes, IBANs, passwords and API keys in messages become [redacted: …];
                       search still finds them)
  --exclude NAME       hide a conversation from MCP clients (repeatable): its exact name in any source, or
                       source:name for one source; it then answers exactly like one that does not exist
  --max-result-bytes N the answer budget: bytes of compact structuredContent JSON a tool answer may take; more
                       follows by cursor (default ${DEFAULT_ANSWER_BUDGET}, what VS Code passes inline; Claude Code takes
                       about 40000; ${MIN_ANSWER_BUDGET} to ${MAX_ANSWER_BUDGET})
  --bridge FILE        relay stdio to the msgbrowse VS Code extension's in-process server, whose endpoint
                       file FILE (in the extension's global storage) it reads; no archive is opened here
  --summary            print the archive summary and a sample keyword search, then exit
  --query TEXT         the keyword query --summary runs (default: a word from the archive)
  --help, -h           show this help
  --version, -v        print the version

Environment:
  MSGBROWSE_DATA_DIR          data dir holding msgbrowse.sqlite
  MSGBROWSE_MCP_TOKEN         bearer token for --http (default: one made at first use and kept, 0600, in
                              $XDG_STATE_HOME/msgbrowse-mcp/http-token or ~/.local/state/msgbrowse-mcp/http-token)
  MSGBROWSE_LLM_BASE_URL      embeddings endpoint (default http://127.0.0.1:4000/v1)
  MSGBROWSE_LLM_EMBED_MODEL   embedding model (default local-embed; empty disables semantic search)
  MSGBROWSE_LLM_API_KEY       embeddings API key (optional)
  MSGBROWSE_LLM_TIMEOUT       embeddings request timeout: a Go duration (30s, 1m30s) or seconds (default 60s)
  MSGBROWSE_EXCLUDE_CONVERSATIONS  conversations to hide, one name (or source:name) per line; added to --exclude
  MSGBROWSE_EXCLUDE_FILE      a text file of conversations to hide, one per line; added to --exclude (an
                              unreadable file stops the server: nothing is served that should have been hidden)
  MSGBROWSE_REDACT            true (default) or false; false is --no-redact
  MSGBROWSE_MAX_RESULT_BYTES  the answer budget, when --max-result-bytes is not given
  MSGBROWSE_MCP_LOG           log level on stderr: debug, info (default), warn, error
`;

export type CliOptions = Exclude<ReturnType<typeof parseCli>, 'help' | 'version'>;

export function parseListen(value: string): { host: string; port: number } {
  const v = value.trim();
  // [IPv6]:PORT, PORT alone, or HOST:PORT (HOST may be empty).
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(v) ?? /^()(\d+)$/.exec(v) ?? /^([^:]*):([^:]*)$/.exec(v);
  if (!m) throw new CliError(`invalid --listen "${value}": use HOST:PORT, e.g. ${DEFAULT_LISTEN}`, 2);
  const port = Number(m[2]);
  if (!/^\d+$/.test(m[2]) || port > 65535)
    throw new CliError(`invalid --listen "${value}": the port must be 0–65535`, 2);
  return { host: m[1] || '127.0.0.1', port };
}

export function defaultArchivePath(env: NodeJS.ProcessEnv, cwd: string): string {
  return path.resolve(cwd, env.MSGBROWSE_DATA_DIR?.trim() || 'data', ARCHIVE_FILE_NAME);
}

/**
 * `--bridge FILE` (alone, or `--bridge=FILE`): the endpoint file, absolute, or undefined when argv is no bridge call.
 * Parsed apart from parseCli because a bridge serves nothing itself: no archive, no other flag applies.
 */
export function parseBridge(argv: string[], cwd: string): { bridge: string } | undefined {
  const i = argv.findIndex((a) => a === '--bridge' || a.startsWith('--bridge='));
  if (i < 0) return undefined;
  const rest = argv.filter((_, j) => j !== i && !(argv[i] === '--bridge' && j === i + 1));
  const file = (argv[i] === '--bridge' ? (argv[i + 1] ?? '') : argv[i].slice('--bridge='.length)).trim();
  if (!file || file.startsWith('--')) throw new CliError('--bridge needs the endpoint file path', 2);
  if (rest.length > 0) throw new CliError(`--bridge takes no other options (got ${rest[0]})`, 2);
  return { bridge: path.resolve(cwd, file) };
}

const FLAGS = {
  archive: { type: 'string' },
  http: { type: 'boolean' },
  listen: { type: 'string' },
  'allow-remote': { type: 'boolean' },
  'link-scheme': { type: 'string' },
  'cache-dir': { type: 'string' },
  ledger: { type: 'string' },
  'no-redact': { type: 'boolean' },
  summary: { type: 'boolean' },
  query: { type: 'string' },
  exclude: { type: 'string', multiple: true },
  'max-result-bytes': { type: 'string' },
  'rotate-token': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

function parseFlags(argv: string[]) {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: false, options: FLAGS }).values;
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new CliError(`${msg.replace(/\.$/, '')} (see ${NAME} --help)`, 2);
  }
}

/** A path flag resolved against `cwd`; given empty, `missing` is the error. */
function pathFlag(value: string | undefined, cwd: string, missing: string): string | undefined {
  if (value === undefined) return undefined;
  if (!value.trim()) throw new CliError(missing, 2);
  return path.resolve(cwd, value.trim());
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const o = parseFlags(argv);
  if (o.help) return 'help' as const;
  if (o.version) return 'version' as const;
  const scheme = (o['link-scheme'] ?? 'vscode').trim();
  if (!/^[a-z][a-z0-9+.-]*$/i.test(scheme))
    throw new CliError(`invalid --link-scheme "${scheme}": use a URI scheme such as vscode or vscode-insiders`, 2);
  if (o.listen !== undefined && !o.http) throw new CliError('--listen needs --http', 2);
  if (o.query !== undefined && !o.summary) throw new CliError('--query needs --summary', 2);
  if (o['rotate-token'] && !o.http)
    throw new CliError('--rotate-token needs --http (the token is what HTTP clients send)', 2);
  const listen = parseListen(o.listen ?? DEFAULT_LISTEN);
  const allowRemote = o['allow-remote'] ?? false;
  if (o.http && !isLoopbackHost(listen.host) && !allowRemote)
    throw new CliError(
      `refusing to listen on ${listen.host}: it is not a loopback address; pass --allow-remote to expose your archive to other machines`,
      2,
    );
  const excludeArgs = o.exclude ?? [];
  if (excludeArgs.some((x) => x.trim() === '')) throw new CliError('--exclude needs a conversation name', 2);
  const excludeEnv = excludeLines(env.MSGBROWSE_EXCLUDE_CONVERSATIONS ?? '');
  const excludeFile = env.MSGBROWSE_EXCLUDE_FILE?.trim()
    ? path.resolve(cwd, env.MSGBROWSE_EXCLUDE_FILE.trim())
    : undefined;
  const archive = pathFlag(o.archive, cwd, '--archive needs a path') ?? defaultArchivePath(env, cwd);
  const ledger = pathFlag(o.ledger, cwd, '--ledger needs a file path');
  // --archive may name the data dir or the file; main.ts checks again against the file it resolves to.
  if (ledger) {
    const problem =
      ledgerProblem(ledger, path.join(archive, ARCHIVE_FILE_NAME)) ??
      (path.basename(archive) === ARCHIVE_FILE_NAME ? ledgerProblem(ledger, archive) : undefined);
    if (problem) throw new CliError(problem, 2);
  }
  const budgetFlag = o['max-result-bytes'];
  return {
    archive,
    http: o.http ?? false,
    listen,
    allowRemote,
    linkScheme: scheme,
    cacheDir: o['cache-dir'] ? path.resolve(cwd, o['cache-dir']) : defaultCacheDir(env),
    ...(ledger ? { ledger } : {}),
    summary: o.summary ?? false,
    query: o.query,
    redact: !(o['no-redact'] ?? false) && redactEnv(env.MSGBROWSE_REDACT),
    exclude: [...new Set([...excludeArgs, ...excludeEnv])],
    ...(excludeFile ? { excludeFile } : {}),
    maxResultBytes: parseMaxResultBytes(
      budgetFlag ?? env.MSGBROWSE_MAX_RESULT_BYTES,
      budgetFlag !== undefined ? '--max-result-bytes' : 'MSGBROWSE_MAX_RESULT_BYTES',
    ),
    rotateToken: o['rotate-token'] ?? false,
  };
}

/** Conversation names, one per line (CRLF tolerated, blank lines ignored, names kept exact). */
export function excludeLines(text: string): string[] {
  return text.split(/\r?\n/).filter((line) => line.trim() !== '');
}

/** MSGBROWSE_REDACT: unset or empty keeps the default (on). */
function redactEnv(value: string | undefined): boolean {
  const v = value?.trim().toLowerCase();
  if (!v) return true;
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new CliError(`invalid MSGBROWSE_REDACT "${value}": use true or false`, 2);
}

function parseMaxResultBytes(value: string | undefined, where: string): number {
  const v = value?.trim();
  if (!v) return DEFAULT_ANSWER_BUDGET;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < MIN_ANSWER_BUDGET || n > MAX_ANSWER_BUDGET)
    throw new CliError(
      `invalid ${where} "${value}": give a whole number of bytes from ${MIN_ANSWER_BUDGET} to ${MAX_ANSWER_BUDGET} (default ${DEFAULT_ANSWER_BUDGET})`,
      2,
    );
  return n;
}

/** Why `--ledger FILE` is refused beside `archiveFile`, if it is: msgbrowse owns that folder, the ledger what left. */
export function ledgerProblem(ledger: string, archiveFile: string): string | undefined {
  if (!ledgerBesideArchive(ledger, archiveFile)) return undefined;
  return (
    `refusing --ledger ${ledger}: it is inside the archive's folder ${path.dirname(path.resolve(archiveFile))}; ` +
    'write the ledger elsewhere (e.g. ~/.local/state/msgbrowse-mcp/disclosures.jsonl)'
  );
}
