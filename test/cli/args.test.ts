/**
 * The CLI's argument parser (src/cli/args.ts) in-process: it is pure, so every flag, default and validation error is
 * checked here without spawning the bundle (cli-stdio / cli-http prove the same text reaches stderr with exit code 2).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  DEFAULT_LISTEN,
  defaultArchivePath,
  ledgerProblem,
  parseBridge,
  parseCli,
  parseListen,
  USAGE,
  type CliOptions,
} from '../../src/cli/args';
import { CliError } from '../../src/cli/errors';
import { CACHE_DIR_NAME } from '../../src/core/cache-dir';

const CWD = path.resolve('/work/project');
const XDG = path.resolve('/xdg-cache');
const ENV = { XDG_CACHE_HOME: XDG };

function parse(argv: string[], env: NodeJS.ProcessEnv = ENV, cwd = CWD): CliOptions {
  const r = parseCli(argv, env, cwd);
  assert.equal(typeof r, 'object', `expected options for ${JSON.stringify(argv)}, got ${String(r)}`);
  return r as CliOptions;
}

/** Asserts `fn` throws a CliError with exit code 2 whose message is `message` (exact) or matches it (RegExp). */
function usageError(fn: () => unknown, message: string | RegExp): void {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof CliError, `expected a CliError, got ${String(thrown)}`);
  assert.equal(thrown.exitCode, 2, `exit code of "${thrown.message}"`);
  if (typeof message === 'string') assert.equal(thrown.message, message);
  else assert.match(thrown.message, message);
}

describe('parseCli: valid flags', () => {
  it('defaults: stdio, loopback listen, vscode links, archive under ./data, XDG cache', () => {
    assert.deepEqual(parse([]), {
      archive: path.join(CWD, 'data', 'msgbrowse.sqlite'),
      http: false,
      listen: { host: '127.0.0.1', port: 8788 },
      allowRemote: false,
      linkScheme: 'vscode',
      cacheDir: path.join(XDG, CACHE_DIR_NAME),
      summary: false,
      query: undefined,
      redact: true,
      exclude: [],
      maxResultBytes: 8192,
      rotateToken: false,
    });
    assert.equal(DEFAULT_LISTEN, '127.0.0.1:8788');
  });

  it('every flag at once, relative paths resolved against cwd', () => {
    assert.deepEqual(
      parse([
        '--archive',
        'arch/msgbrowse.sqlite',
        '--cache-dir',
        'cache',
        '--ledger',
        ' state/disclosures.jsonl ',
        '--link-scheme',
        ' vscode-insiders ',
        '--summary',
        '--query',
        'hello world',
        '--exclude',
        'Family',
        '--exclude',
        'signal:Work: Team',
        '--max-result-bytes',
        '40000',
      ]),
      {
        archive: path.join(CWD, 'arch', 'msgbrowse.sqlite'),
        http: false,
        listen: { host: '127.0.0.1', port: 8788 },
        allowRemote: false,
        linkScheme: 'vscode-insiders',
        cacheDir: path.join(CWD, 'cache'),
        ledger: path.join(CWD, 'state', 'disclosures.jsonl'),
        summary: true,
        query: 'hello world',
        redact: true,
        exclude: ['Family', 'signal:Work: Team'],
        maxResultBytes: 40000,
        rotateToken: false,
      },
    );
    assert.equal(parse(['--no-redact']).redact, false, '--no-redact turns redaction off');
    const http = parse(['--http', '--listen', '0.0.0.0:9000', '--allow-remote', '--archive=/abs/x.sqlite']);
    assert.equal(http.http, true);
    assert.deepEqual(http.listen, { host: '0.0.0.0', port: 9000 });
    assert.equal(http.allowRemote, true);
    assert.equal(http.archive, path.resolve('/abs/x.sqlite'));
  });

  it('the answer budget: --max-result-bytes wins over MSGBROWSE_MAX_RESULT_BYTES; out of range or not a number is an error', () => {
    assert.equal(parse([], { ...ENV, MSGBROWSE_MAX_RESULT_BYTES: ' 16384 ' }).maxResultBytes, 16384);
    assert.equal(
      parse(['--max-result-bytes', '2048'], { ...ENV, MSGBROWSE_MAX_RESULT_BYTES: '16384' }).maxResultBytes,
      2048,
    );
    for (const bad of ['1000', '8k', '1e4', '10000001']) {
      usageError(
        () => parse(['--max-result-bytes', bad]),
        `invalid --max-result-bytes "${bad}": give a whole number of bytes from 2048 to 10000000 (default 8192)`,
      );
    }
    usageError(
      () => parse([], { ...ENV, MSGBROWSE_MAX_RESULT_BYTES: 'lots' }),
      /^invalid MSGBROWSE_MAX_RESULT_BYTES "lots"/,
    );
  });

  it('--rotate-token goes with --http', () => {
    assert.equal(parse(['--http', '--rotate-token']).rotateToken, true);
    usageError(() => parse(['--rotate-token']), '--rotate-token needs --http (the token is what HTTP clients send)');
  });

  it('--archive is trimmed; a missing archive is not checked here (no I/O)', () => {
    const missing = path.join(CWD, 'nowhere', 'x.sqlite');
    assert.ok(!fs.existsSync(missing));
    assert.equal(parse(['--archive', '  nowhere/x.sqlite  ']).archive, missing);
  });

  it('MSGBROWSE_DATA_DIR picks the default archive; --archive wins over it', () => {
    const env = { ...ENV, MSGBROWSE_DATA_DIR: ' mydata ' };
    assert.equal(parse([], env).archive, path.join(CWD, 'mydata', 'msgbrowse.sqlite'));
    assert.equal(parse(['--archive', 'other.sqlite'], env).archive, path.join(CWD, 'other.sqlite'));
    assert.equal(defaultArchivePath({ MSGBROWSE_DATA_DIR: '/d' }, CWD), path.resolve('/d', 'msgbrowse.sqlite'));
    assert.equal(defaultArchivePath({ MSGBROWSE_DATA_DIR: '   ' }, CWD), path.join(CWD, 'data', 'msgbrowse.sqlite'));
  });

  it('loopback --listen forms need no --allow-remote', () => {
    for (const [value, host, port] of [
      ['127.0.0.1:0', '127.0.0.1', 0],
      ['localhost:8788', 'localhost', 8788],
      ['[::1]:65535', '::1', 65535],
      ['127.1.2.3:80', '127.1.2.3', 80],
      ['9999', '127.0.0.1', 9999],
      [':4000', '127.0.0.1', 4000],
      [' 127.0.0.1:1 ', '127.0.0.1', 1],
    ] as const) {
      const o = parse(['--http', '--listen', value]);
      assert.deepEqual(o.listen, { host, port }, value);
      assert.equal(o.allowRemote, false);
    }
  });

  it('--help/-h and --version/-v win over the other flags and their validation', () => {
    assert.equal(parseCli(['--help'], ENV, CWD), 'help');
    assert.equal(parseCli(['-h'], ENV, CWD), 'help');
    assert.equal(parseCli(['--version'], ENV, CWD), 'version');
    assert.equal(parseCli(['-v'], ENV, CWD), 'version');
    assert.equal(parseCli(['--listen', 'nonsense', '--help'], ENV, CWD), 'help');
    assert.equal(parseCli(['--query', 'x', '-v'], ENV, CWD), 'version');
    assert.equal(parseCli(['-v', '-h'], ENV, CWD), 'help');
  });
});

describe('parseCli: each error message (exit code 2)', () => {
  it('parser errors name the bad argument and point to --help', () => {
    usageError(() => parseCli(['--bogus'], ENV, CWD), "Unknown option '--bogus' (see msgbrowse-mcp --help)");
    usageError(() => parseCli(['-z'], ENV, CWD), "Unknown option '-z' (see msgbrowse-mcp --help)");
    usageError(
      () => parseCli(['extra'], ENV, CWD),
      "Unexpected argument 'extra'. This command does not take positional arguments (see msgbrowse-mcp --help)",
    );
    usageError(
      () => parseCli(['--archive'], ENV, CWD),
      "Option '--archive <value>' argument missing (see msgbrowse-mcp --help)",
    );
    usageError(
      () => parseCli(['--http=yes'], ENV, CWD),
      "Option '--http' does not take an argument (see msgbrowse-mcp --help)",
    );
    // A multi-line Node message keeps its first line, without the final period.
    usageError(
      () => parseCli(['--archive', '--http'], ENV, CWD),
      /^Option '--archive' argument is ambiguous \(see msgbrowse-mcp --help\)$/,
    );
    // Unknown flags fail even beside --help: parsing is strict before anything else.
    usageError(() => parseCli(['--help', '--bogus'], ENV, CWD), "Unknown option '--bogus' (see msgbrowse-mcp --help)");
  });

  it('--link-scheme must be a URI scheme', () => {
    for (const bad of ['1bad', 'has space', 'x:y', '']) {
      usageError(
        () => parseCli(['--link-scheme', bad], ENV, CWD),
        `invalid --link-scheme "${bad.trim()}": use a URI scheme such as vscode or vscode-insiders`,
      );
    }
    assert.equal(parse(['--link-scheme', 'cursor']).linkScheme, 'cursor');
    assert.equal(parse(['--link-scheme', 'web+x.y-z']).linkScheme, 'web+x.y-z');
  });

  it('--listen needs --http; --query needs --summary', () => {
    usageError(() => parseCli(['--listen', '127.0.0.1:1'], ENV, CWD), '--listen needs --http');
    usageError(() => parseCli(['--query', 'x'], ENV, CWD), '--query needs --summary');
  });

  it('a malformed --listen: the shape, then the port range', () => {
    for (const bad of ['foo', 'a:b:c', '::1:80', '']) {
      usageError(
        () => parseCli(['--http', '--listen', bad], ENV, CWD),
        `invalid --listen "${bad}": use HOST:PORT, e.g. 127.0.0.1:8788`,
      );
    }
    for (const bad of ['1:99999', 'host:', 'host:-1', 'host:8o', '65536', '[::1]:70000']) {
      usageError(
        () => parseCli(['--http', '--listen', bad], ENV, CWD),
        `invalid --listen "${bad}": the port must be 0–65535`,
      );
    }
    // parseListen alone reports the same errors.
    usageError(() => parseListen('nope'), 'invalid --listen "nope": use HOST:PORT, e.g. 127.0.0.1:8788');
  });

  it('a non-loopback --http address needs --allow-remote', () => {
    for (const [value, host] of [
      ['0.0.0.0:8788', '0.0.0.0'],
      ['[::]:8788', '::'],
      ['192.0.2.10:80', '192.0.2.10'],
      ['example.com:8788', 'example.com'],
    ]) {
      usageError(
        () => parseCli(['--http', '--listen', value], ENV, CWD),
        `refusing to listen on ${host}: it is not a loopback address; pass --allow-remote to expose your archive to other machines`,
      );
    }
  });

  it('an empty --archive', () => {
    usageError(() => parseCli(['--archive', ''], ENV, CWD), '--archive needs a path');
    usageError(() => parseCli(['--archive=   '], ENV, CWD), '--archive needs a path');
  });

  it("an empty --ledger; a --ledger inside the archive's folder (the file's folder or the data dir given)", () => {
    usageError(() => parseCli(['--ledger', ' '], ENV, CWD), '--ledger needs a file path');
    const refused = /^refusing --ledger .*: it is inside the archive's folder .*; write the ledger elsewhere/;
    // The default archive is ./data/msgbrowse.sqlite: ./data/… is its folder.
    usageError(() => parseCli(['--ledger', 'data/l.jsonl'], ENV, CWD), refused);
    usageError(
      () => parseCli(['--archive', 'arch/msgbrowse.sqlite', '--ledger', 'arch/sub/l.jsonl'], ENV, CWD),
      refused,
    );
    // --archive names the data dir: inside it is refused, beside it is fine.
    usageError(() => parseCli(['--archive', 'arch', '--ledger', 'arch/l.jsonl'], ENV, CWD), refused);
    assert.equal(parse(['--archive', 'arch', '--ledger', 'l.jsonl']).ledger, path.join(CWD, 'l.jsonl'));
    // A file archive with another name: main.ts checks the resolved file with ledgerProblem.
    assert.match(ledgerProblem(path.join(CWD, 'x', 'l.jsonl'), path.join(CWD, 'x', 'archive.db')) ?? '', refused);
    assert.equal(ledgerProblem(path.join(CWD, 'y', 'l.jsonl'), path.join(CWD, 'x', 'archive.db')), undefined);
  });
});

describe('--exclude and MSGBROWSE_EXCLUDE_CONVERSATIONS', () => {
  it('collects repeated --exclude values, keeps names exact, and adds the environment lines (CRLF, blanks ignored)', () => {
    const env = { ...ENV, MSGBROWSE_EXCLUDE_CONVERSATIONS: 'Family\r\n\n  \nimessage:Ex\n Spaced \n' };
    assert.deepEqual(parseCli(['--exclude', 'Work', '--exclude=Family'], env, CWD), {
      ...(parseCli([], ENV, CWD) as object),
      exclude: ['Work', 'Family', 'imessage:Ex', ' Spaced '],
    });
    assert.deepEqual(
      (parseCli([], { ...ENV, MSGBROWSE_EXCLUDE_CONVERSATIONS: '' }, CWD) as { exclude: string[] }).exclude,
      [],
    );
  });

  it('an empty --exclude is an error, not a silent no-op', () => {
    assert.throws(() => parseCli(['--exclude', ' '], ENV, CWD), /--exclude needs a conversation name/);
    assert.throws(() => parseCli(['--exclude'], ENV, CWD), /exclude/);
  });
});

describe('MSGBROWSE_REDACT and MSGBROWSE_EXCLUDE_FILE (the settings of an MCP bundle)', () => {
  it('MSGBROWSE_REDACT: true/false and their spellings; empty keeps the default; --no-redact wins', () => {
    const redact = (env: NodeJS.ProcessEnv, argv: string[] = []) => parse(argv, { ...ENV, ...env }).redact;
    assert.equal(redact({}), true);
    assert.equal(redact({ MSGBROWSE_REDACT: '' }), true);
    for (const v of ['false', 'FALSE', '0', 'no', 'off']) assert.equal(redact({ MSGBROWSE_REDACT: v }), false, v);
    for (const v of ['true', ' 1 ', 'yes', 'on']) assert.equal(redact({ MSGBROWSE_REDACT: v }), true, v);
    assert.equal(redact({ MSGBROWSE_REDACT: 'true' }, ['--no-redact']), false);
    usageError(
      () => parse([], { ...ENV, MSGBROWSE_REDACT: 'maybe' }),
      'invalid MSGBROWSE_REDACT "maybe": use true or false',
    );
  });

  it('MSGBROWSE_EXCLUDE_FILE is resolved against cwd and handed on to be read; empty means none', () => {
    assert.equal(parse([], { ...ENV, MSGBROWSE_EXCLUDE_FILE: 'hide.txt' }).excludeFile, path.join(CWD, 'hide.txt'));
    assert.equal(parse([], { ...ENV, MSGBROWSE_EXCLUDE_FILE: '  ' }).excludeFile, undefined);
  });
});

describe('--help text', () => {
  const optionsSection = USAGE.slice(USAGE.indexOf('Options:'), USAGE.indexOf('Environment:'));
  const documented = [...optionsSection.matchAll(/^ {2}(--[a-z-]+)(?:, (-[a-z]))?/gm)].flatMap((m) =>
    m[2] ? [m[1], m[2]] : [m[1]],
  );

  it('starts with the usage line and ends with one newline', () => {
    assert.ok(
      USAGE.startsWith(
        'Usage: msgbrowse-mcp [options]\n\nServes a msgbrowse message archive (read-only) to MCP clients.\n',
      ),
    );
    assert.ok(USAGE.endsWith('error\n') && !USAGE.endsWith('\n\n'));
    assert.match(USAGE, /--listen HOST:PORT {3}HTTP address \(default 127\.0\.0\.1:8788;/);
  });

  it('documents exactly the flags the parser accepts', () => {
    assert.deepEqual(documented, [
      '--archive',
      '--http',
      '--listen',
      '--allow-remote',
      '--rotate-token',
      '--link-scheme',
      '--cache-dir',
      '--ledger',
      '--no-redact',
      '--exclude',
      '--max-result-bytes',
      '--bridge',
      '--summary',
      '--query',
      '--help',
      '-h',
      '--version',
      '-v',
    ]);
    const withValue = new Set([
      '--archive',
      '--listen',
      '--link-scheme',
      '--cache-dir',
      '--ledger',
      '--exclude',
      '--max-result-bytes',
      '--query',
    ]);
    for (const flag of documented) {
      const argv = withValue.has(flag) ? [flag, '127.0.0.1:1'] : [flag];
      if (flag === '--bridge') {
        assert.deepEqual(parseBridge([flag, 'ep.json'], CWD), { bridge: path.resolve(CWD, 'ep.json') });
        continue;
      }
      try {
        parseCli(argv, ENV, CWD);
      } catch (e) {
        assert.ok(!/Unknown option/.test((e as Error).message), `${flag} is documented but unknown to the parser`);
      }
    }
  });

  it('documents every environment variable the shipped code reads (test-only MSGBROWSE_TEST_* aside)', () => {
    const read = new Set<string>();
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith('.ts'))
          for (const m of fs.readFileSync(p, 'utf8').matchAll(/MSGBROWSE_[A-Z_]+/g)) read.add(m[0]);
      }
    };
    walk(path.join(__dirname, '../../src'));
    const shipped = [...read].filter((v) => !v.startsWith('MSGBROWSE_TEST_'));
    assert.ok(shipped.includes('MSGBROWSE_LLM_TIMEOUT'), 'the walk finds the variables');
    for (const v of shipped) assert.match(USAGE, new RegExp(`^  ${v}\\s`, 'm'), `${v} is read but missing from --help`);
  });
});

describe('--bridge', () => {
  it('takes the endpoint file and nothing else', () => {
    assert.equal(parseBridge(['--archive', 'x'], CWD), undefined);
    assert.deepEqual(parseBridge(['--bridge=/a/ep.json'], CWD), { bridge: '/a/ep.json' });
    assert.throws(() => parseBridge(['--bridge'], CWD), /--bridge needs the endpoint file path/);
    assert.throws(() => parseBridge(['--bridge', '--http'], CWD), /--bridge needs the endpoint file path/);
    assert.throws(
      () => parseBridge(['--bridge', 'ep.json', '--http'], CWD),
      /--bridge takes no other options \(got --http\)/,
    );
  });
});

describe('src/cli/ stays a top-level adapter', () => {
  const root = path.resolve(__dirname, '..', '..');
  const importsOf = (file: string) =>
    [...fs.readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map(
      (m) => m[1],
    );
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((d) =>
        d.isDirectory() ? walk(path.join(dir, d.name)) : d.name.endsWith('.ts') ? [path.join(dir, d.name)] : [],
      );

  it('never imports vscode or the extension; args.ts imports no I/O module and reads no process state', () => {
    const files = walk(path.join(root, 'src', 'cli'));
    assert.ok(files.length >= 5, files.join(', '));
    for (const file of files) {
      for (const spec of importsOf(file)) {
        assert.ok(
          spec !== 'vscode' && !/(^|\/)extension(\/|$)/.test(spec),
          `${path.relative(root, file)} imports ${spec}`,
        );
      }
    }
    const args = path.join(root, 'src', 'cli', 'args.ts');
    for (const spec of importsOf(args))
      assert.ok(!/^(node:)?(fs|child_process|net|http|https)(\/|$)/.test(spec), `args.ts imports ${spec}`);
    assert.doesNotMatch(fs.readFileSync(args, 'utf8'), /process\.(stdout|stderr|exit|cwd|env)\b/);
  });

  it('no lower layer imports the cli', () => {
    for (const file of walk(path.join(root, 'src'))) {
      if (file.startsWith(path.join(root, 'src', 'cli') + path.sep)) continue;
      for (const spec of importsOf(file))
        assert.ok(!/(^|\/)cli(\/|$)/.test(spec), `${path.relative(root, file)} imports ${spec}`);
    }
  });
});
