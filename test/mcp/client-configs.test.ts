import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { readmeInstallLink } from '../../scripts/release/install-link';
import { clientConfigs, type Launch, shellQuote, vscodeInstallLink } from '../../src/mcp/client-configs';

const stdio: Launch = {
  transport: 'stdio',
  command: '/usr/bin/node',
  args: ['/opt/ext dir/dist/cli.js', '--archive', "/home/o'brien/data"],
  env: { MSGBROWSE_EXCLUDE_CONVERSATIONS: 'Mum\nsignal:Work' },
};
const http: Launch = { transport: 'http', url: 'http://127.0.0.1:8788/mcp', headers: { Authorization: 'Bearer t0k' } };
const byClient = (l: Launch) => new Map(clientConfigs(l).map((c) => [c.client, c]));

/** The words a POSIX shell makes of `line` (printf prints each on its own NUL-ended record). */
function shellWords(line: string): string[] {
  const out = execFileSync('sh', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

describe('client configurations', () => {
  it('VS Code gets the portable mcpServers format with a type and every tool', () => {
    const cfg = JSON.parse(byClient(stdio).get('vscode')!.text);
    assert.deepEqual(cfg, {
      mcpServers: {
        msgbrowse: { type: 'stdio', command: stdio.command, args: stdio.args, env: stdio.env, tools: ['*'] },
      },
    });
    assert.deepEqual(JSON.parse(byClient(http).get('vscode')!.text).mcpServers.msgbrowse, {
      type: 'http',
      url: http.url,
      headers: http.headers,
      tools: ['*'],
    });
  });

  it('Claude Desktop and Cursor get mcpServers without a type; Claude Desktop only for stdio', () => {
    const s = byClient(stdio);
    for (const c of ['claude-desktop', 'cursor'] as const)
      assert.deepEqual(JSON.parse(s.get(c)!.text).mcpServers.msgbrowse, {
        command: stdio.command,
        args: stdio.args,
        env: stdio.env,
      });
    const h = byClient(http);
    assert.equal(h.has('claude-desktop'), false);
    assert.deepEqual(JSON.parse(h.get('cursor')!.text).mcpServers.msgbrowse, { url: http.url, headers: http.headers });
  });

  it("Claude Code's command line survives a real shell: spaces, quotes and newlines stay one argument each", () => {
    const words = shellWords(byClient(stdio).get('claude-code')!.text);
    assert.deepEqual(words, [
      'claude',
      'mcp',
      'add',
      'msgbrowse',
      '--env',
      'MSGBROWSE_EXCLUDE_CONVERSATIONS=Mum\nsignal:Work',
      '--',
      stdio.command,
      ...stdio.args,
    ]);
    assert.deepEqual(shellWords(byClient(http).get('claude-code')!.text), [
      'claude',
      'mcp',
      'add',
      '--transport',
      'http',
      'msgbrowse',
      http.url,
      '--header',
      'Authorization: Bearer t0k',
    ]);
    assert.equal(shellQuote('plain/path-1.2'), 'plain/path-1.2');
  });

  it('the install link carries the whole configuration, named, as VS Code decodes it', () => {
    const link = vscodeInstallLink(stdio);
    assert.match(link, /^vscode:mcp\/install\?[^\s]+$/);
    const cfg = JSON.parse(decodeURIComponent(link.slice('vscode:mcp/install?'.length)));
    assert.deepEqual(cfg, {
      name: 'msgbrowse',
      type: 'stdio',
      command: stdio.command,
      args: stdio.args,
      env: stdio.env,
    });
  });

  it("the README's Install in VS Code link is the npm package's install page, asking for the archive", () => {
    const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
    const link = /\[Install in VS Code\]\((https:[^)]+)\)/.exec(readme)?.[1];
    assert.equal(link, readmeInstallLink());
    const params = new URL(link!).searchParams;
    assert.deepEqual(JSON.parse(params.get('config') ?? ''), {
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'msgbrowse-mcp', '--archive', `\${input:msgbrowse-archive}`],
    });
    const inputs = JSON.parse(params.get('inputs') ?? '') as { id: string; type: string }[];
    assert.deepEqual(
      inputs.map((i) => [i.type, i.id]),
      [['promptString', 'msgbrowse-archive']],
    );
  });
});
