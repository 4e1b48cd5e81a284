/**
 * What `npm run release` made, installed the way people install it (release/ comes from the step before the unit
 * tests in `npm test`, or `npm run release -- --allow-dirty`):
 * - the npm tarball into a fresh prefix with an empty cache and --offline (nothing may be downloaded), its
 *   `msgbrowse-mcp` serving the demo archive over stdio — under MSGBROWSE_CLI_NODE too (Node 22 and 24 in npm test);
 * - the MCP Bundle unpacked and started as a bundle host starts it (@anthropic-ai/mcpb's getMcpConfigForManifest, the
 *   host's Node), with the person's settings: a hidden conversation stays hidden, secrets are redacted;
 * - server.json, SHA256SUMS, and one version everywhere. The VSIX is installed by the real-VS-Code suite.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { getMcpConfigForManifest, unpackExtension } from '@anthropic-ai/mcpb';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { unzipSync } from 'fflate';
import type { bundleManifest } from '../../scripts/release/mcpb-manifest';
import { TOOLS } from '../../src/mcp/tools';
import { CLI_NODE, CLI_NODE_VERSION } from '../cli/helpers';
import { startEmbedServer, type TestEmbedServer } from '../embed/test-server';
import { buildCuratedArchive } from '../fixtures/index';
import { buildSecretsArchive } from '../fixtures/secrets';
import { THREAD_VIEW_URI } from '../../src/mcp/app-view';

const ROOT = path.resolve(__dirname, '..', '..');
const RELEASE = path.join(ROOT, 'release');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  mcpName: string;
};
const V = pkg.version;
const artifact = (name: string) => {
  const f = path.join(RELEASE, name);
  assert.ok(fs.existsSync(f), `${f} is missing: run npm run release (-- --allow-dirty for a trial) first`);
  return f;
};

let tmp: string;
let demoDir: string;
/** The curated fixture archive: it holds embeddings (model test-embed, 8 dimensions) for a semantic search. */
let curatedDir: string;
let embed: TestEmbedServer;
before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-install-'));
  demoDir = path.join(tmp, 'demo-data');
  fs.mkdirSync(demoDir);
  const gz = fs.readFileSync(path.join(ROOT, 'media', 'demo', 'msgbrowse.sqlite.gz'));
  fs.writeFileSync(path.join(demoDir, 'msgbrowse.sqlite'), gunzipSync(gz));
  curatedDir = path.dirname(buildCuratedArchive(path.join(tmp, 'curated')).path);
  embed = await startEmbedServer((req) => {
    const { input } = JSON.parse(req.body) as { input: string[] };
    return {
      body: { data: input.map((_, index) => ({ index, embedding: [0.9, -0.3, 0.2, 0.4, -0.8, 0.1, 0.6, -0.5] })) },
    };
  });
});
after(async () => {
  await embed.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** An environment with nothing of ours in it: only what the test sets reaches the server. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('MSGBROWSE_')) env[k] = v;
  return { ...env, HOME: tmp, XDG_CACHE_HOME: path.join(tmp, 'cache'), ...extra };
}

type Served = { tools: string[]; conversations: string[]; search: (q: string) => Promise<string> };

async function serve(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<Served & { close(): Promise<void> }> {
  const client = new Client({ name: 'install-test', version: '0' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'pipe' }));
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const listed = await client.callTool({ name: 'list_conversations', arguments: {} });
  const conversations = (listed.structuredContent as { conversations: { name: string }[] }).conversations.map(
    (c) => c.name,
  );
  return {
    tools,
    conversations,
    search: async (q) => {
      const r = await client.callTool({ name: 'search_messages', arguments: { query: q } });
      assert.notEqual(r.isError, true, JSON.stringify(r.content));
      return JSON.stringify(r.structuredContent);
    },
    close: () => client.close(),
  };
}

/**
 * What the files beside the bundle do: a semantic search builds the vector index (the index-build worker, the WASM
 * kernel) and the MCP App view is read from thread-app.html. A package missing any of them fails here.
 */
async function exerciseRuntimeFiles(command: string, args: string[], env: Record<string, string>): Promise<void> {
  const client = new Client({ name: 'install-test', version: '0' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'pipe' }));
  try {
    const r = await client.callTool({ name: 'semantic_search', arguments: { query: 'anything at all', k: 3 } });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    assert.equal((r.structuredContent as { hits: unknown[] }).hits.length, 3);
    const view = await client.readResource({ uri: THREAD_VIEW_URI });
    assert.match(String((view.contents[0] as { text?: string }).text), /<html/i);
  } finally {
    await client.close();
  }
}

describe('the npm package', () => {
  let prefix: string;
  let installLog: string;
  before(() => {
    prefix = path.join(tmp, 'prefix');
    const cache = fs.mkdtempSync(path.join(tmp, 'empty-npm-cache-'));
    const r = spawnSync(
      'npm',
      [
        'install',
        '--global',
        '--offline',
        '--prefix',
        prefix,
        '--cache',
        cache,
        '--no-audit',
        '--no-fund',
        artifact(`msgbrowse-mcp-${V}.tgz`),
      ],
      { encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'warn' } },
    );
    installLog = `${r.stdout}${r.stderr}`;
    assert.equal(r.status, 0, installLog);
  });

  it('installs offline from an empty cache (nothing downloaded) and npm prints no warning', () => {
    assert.doesNotMatch(installLog, /warn|EBADENGINE/i, installLog);
  });

  it('holds a public manifest with only the CLI: no dependencies, no scripts, mcpName for the registry', () => {
    const dir = path.join(prefix, 'lib', 'node_modules', 'msgbrowse-mcp');
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    assert.equal(m.private, undefined);
    assert.equal(m.version, V);
    assert.equal(m.mcpName, pkg.mcpName);
    assert.deepEqual(m.bin, { 'msgbrowse-mcp': 'dist/cli.js' });
    for (const k of ['dependencies', 'scripts', 'optionalDependencies', 'peerDependencies'])
      assert.equal(m[k], undefined, k);
    assert.equal(fs.existsSync(path.join(dir, 'node_modules')), false);
  });

  it(`its msgbrowse-mcp prints the version and serves the demo archive over stdio (CLI under Node ${CLI_NODE_VERSION})`, async () => {
    const bin = path.join(prefix, 'bin', 'msgbrowse-mcp');
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8', env: cleanEnv({}) });
    assert.equal(version.stdout, `msgbrowse-mcp ${V}\n`, version.stderr);
    // Under MSGBROWSE_CLI_NODE the installed script runs with that Node; otherwise through its own shebang.
    const [command, args] = CLI_NODE === process.execPath ? [bin, []] : [CLI_NODE, [fs.realpathSync(bin)]];
    const s = await serve(command, [...args, '--archive', demoDir], cleanEnv({ MSGBROWSE_LLM_EMBED_MODEL: '' }));
    try {
      assert.deepEqual(s.tools, TOOLS.map((t) => t.name).sort());
      assert.ok(s.conversations.length > 0);
      assert.match(await s.search('flan'), /"hits":\[\{/);
    } finally {
      await s.close();
    }
    const semantic = { MSGBROWSE_LLM_BASE_URL: embed.baseUrl, MSGBROWSE_LLM_EMBED_MODEL: 'test-embed' };
    await exerciseRuntimeFiles(command, [...args, '--archive', curatedDir], cleanEnv(semantic));
  });
});

describe('the MCP Bundle', () => {
  let dir: string;
  let manifest: Parameters<typeof getMcpConfigForManifest>[0]['manifest'];
  before(async () => {
    dir = path.join(tmp, 'bundle');
    assert.equal(
      await unpackExtension({ mcpbPath: artifact(`msgbrowse-mcp-${V}.mcpb`), outputDir: dir, silent: true }),
      true,
    );
    manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  });

  /** The server as a bundle host starts it: its mcp_config with the person's settings, `node` being the host's Node. */
  async function start(userConfig: Record<string, string | boolean>) {
    const cfg = await getMcpConfigForManifest({
      manifest,
      extensionPath: dir,
      systemDirs: { HOME: tmp, DESKTOP: tmp, DOCUMENTS: tmp, DOWNLOADS: tmp },
      userConfig,
      pathSeparator: path.sep,
    });
    assert.ok(cfg, 'the host found required settings missing');
    assert.equal(cfg.command, 'node');
    assert.doesNotMatch(JSON.stringify(cfg), /\$\{/, 'every variable is replaced');
    return serve(process.execPath, cfg.args ?? [], cleanEnv(cfg.env ?? {}));
  }

  it('is manifest 0.4 with icons, the archive folder as a directory setting, and lists exactly the tools it serves', async () => {
    // The manifest as the release wrote it (scripts/release/mcpb-manifest.ts), read back from the unpacked bundle.
    const m = manifest as unknown as ReturnType<typeof bundleManifest>;
    assert.equal(m.manifest_version, '0.4');
    assert.equal(m.version, V);
    assert.equal(m.user_config.data_dir.type, 'directory');
    assert.ok(fs.existsSync(path.join(dir, m.icons[0].src)));
    const s = await start({ data_dir: demoDir, embeddings_model: '' });
    try {
      assert.deepEqual(s.tools, m.tools.map((t) => t.name).sort());
    } finally {
      await s.close();
    }
  });

  it('runs a semantic search and serves the MCP App view from its own files', async () => {
    const cfg = await getMcpConfigForManifest({
      manifest,
      extensionPath: dir,
      systemDirs: { HOME: tmp },
      userConfig: { data_dir: curatedDir, embeddings_url: embed.baseUrl, embeddings_model: 'test-embed' },
      pathSeparator: path.sep,
    });
    assert.ok(cfg);
    await exerciseRuntimeFiles(process.execPath, cfg.args ?? [], cleanEnv(cfg.env ?? {}));
  });

  it("applies the person's settings: a listed conversation is hidden", async () => {
    const open = await start({ data_dir: demoDir, embeddings_model: '' });
    const hidden = open.conversations[0];
    await open.close();
    const list = path.join(tmp, 'hidden.txt');
    fs.writeFileSync(list, `${hidden}\n`);
    const s = await start({ data_dir: demoDir, embeddings_model: '', excluded_conversations: list });
    try {
      assert.ok(!s.conversations.includes(hidden), `${hidden} is still listed`);
      assert.equal(s.conversations.length, open.conversations.length - 1);
    } finally {
      await s.close();
    }
  });

  it('redacts secrets unless the person turns redaction off', async () => {
    const secrets = path.dirname(buildSecretsArchive(path.join(tmp, 'secrets')).path);
    const answer = async (userConfig: Record<string, string | boolean>) => {
      const s = await start({ data_dir: secrets, embeddings_model: '', ...userConfig });
      try {
        return await s.search('verification code');
      } finally {
        await s.close();
      }
    };
    const redacted = await answer({});
    assert.doesNotMatch(redacted, /483920/);
    assert.match(redacted, /\[redacted/);
    assert.match(await answer({ redact: false }), /483920/);
  });
});

describe('server.json, SHA256SUMS and the version', () => {
  it('server.json registers the npm package by its mcpName, at this version, over stdio', () => {
    const sj = JSON.parse(fs.readFileSync(artifact('server.json'), 'utf8'));
    assert.equal(sj.$schema, 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    assert.equal(sj.name, pkg.mcpName);
    assert.equal(sj.version, V);
    assert.deepEqual(
      sj.packages.map((p: Record<string, unknown>) => [p.registryType, p.identifier, p.version, p.transport]),
      [['npm', 'msgbrowse-mcp', V, { type: 'stdio' }]],
    );
    // The variables it describes are those the CLI reads (its --help lists them all), but the HTTP token: the
    // registered package serves stdio.
    const cli = path.join(ROOT, 'dist', 'cli.js');
    const usage = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' }).stdout;
    const read = [...new Set(usage.match(/\bMSGBROWSE_[A-Z_]+\b/g))].filter((v) => v !== 'MSGBROWSE_MCP_TOKEN');
    const described = sj.packages[0].environmentVariables.map((e: { name: string }) => e.name);
    assert.deepEqual(described.sort(), read.sort());
  });

  it('SHA256SUMS matches every artifact', () => {
    const lines = fs.readFileSync(artifact('SHA256SUMS'), 'utf8').trim().split('\n');
    assert.deepEqual(lines.map((l) => l.split('  ')[1]).sort(), [
      `msgbrowse-mcp-${V}.mcpb`,
      `msgbrowse-mcp-${V}.tgz`,
      `msgbrowse-vscode-${V}.vsix`,
      'server.json',
    ]);
    for (const l of lines) {
      const [sum, name] = l.split('  ');
      assert.equal(
        createHash('sha256')
          .update(fs.readFileSync(artifact(name)))
          .digest('hex'),
        sum,
        name,
      );
    }
  });

  it('the VSIX carries the same version, its CHANGELOG and LICENSE, and README images the marketplace can load', () => {
    const files = unzipSync(fs.readFileSync(artifact(`msgbrowse-vscode-${V}.vsix`)));
    const manifest = JSON.parse(Buffer.from(files['extension/package.json']).toString('utf8'));
    assert.equal(manifest.version, V);
    assert.match(
      Buffer.from(files['extension/changelog.md'] ?? files['extension/CHANGELOG.md']).toString('utf8'),
      new RegExp(`## \\[${V.replace(/\./g, '\\.')}\\]`),
    );
    assert.ok(files['extension/LICENSE.txt'] || files['extension/LICENSE']);
    const readme = Buffer.from(files['extension/readme.md']).toString('utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)/g)].map((m) => m[1]);
    assert.ok(images.length > 0);
    for (const src of images) assert.match(src, /^https:\/\//, src);
  });
});
