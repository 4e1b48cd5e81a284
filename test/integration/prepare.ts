/**
 * Generates the integration fixtures into a fresh temp workspace (curated archive + a second archive, workspace
 * settings) and starts a deterministic OpenAI-compatible embeddings endpoint for the curated archive's model.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  buildCuratedArchive,
  CURATED_DIGEST_SUMMARY,
  buildDemoArchive,
  buildMsgbrowseMcpFixture,
  buildJournalArchive,
  buildScaleArchive,
  buildSecretsArchive,
  buildReimportArchive,
  makeFutureArchive,
  embedText,
  reimportConversation,
  CURATED_MODELS,
} from '../fixtures';
import type { CopilotHarnessManifest, IntegrationManifest } from './manifest';

export interface Prepared {
  manifest: IntegrationManifest;
  manifestFile: string;
  root: string;
  close(): Promise<void>;
}

function startEmbedServer(model: string, dim: number): Promise<{ server: http.Server; baseUrl: string }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        const parsed = JSON.parse(body) as { model?: string; input?: string[] | string };
        if (req.method !== 'POST' || !req.url?.endsWith('/embeddings') || parsed.model !== model) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: `unknown model ${parsed.model}` } }));
          return;
        }
        const inputs = Array.isArray(parsed.input) ? parsed.input : [parsed.input ?? ''];
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            model,
            data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: embedText(t, dim, model) })),
          }),
        );
      } catch {
        res.writeHead(400);
        res.end();
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, baseUrl: `http://127.0.0.1:${port}/v1` });
    }),
  );
}

export async function prepare(): Promise<Prepared> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-it-'));
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  const curated = buildCuratedArchive(path.join(root, 'archives', 'curated'));
  const second = buildMsgbrowseMcpFixture(path.join(root, 'archives', 'second'));
  const live = path.join(root, 'archives', 'live', 'msgbrowse.sqlite');
  fs.mkdirSync(path.dirname(live), { recursive: true });
  fs.copyFileSync(curated.path, live);
  // Live resources: a copy the suite writes into (append-child.ts) while VS Code holds a subscription.
  const liveResources = path.join(root, 'archives', 'live-resources', 'msgbrowse.sqlite');
  fs.mkdirSync(path.dirname(liveResources), { recursive: true });
  fs.copyFileSync(curated.path, liveResources);
  const demo = buildDemoArchive(path.join(root, 'archives', 'demo'));
  // The re-import: the suite runs it IN PLACE on the served file, as a separate writer process (the extension host
  // cannot load better-sqlite3). A copy re-imported here gives the expected ids and a file-swap variant.
  const reimport = buildReimportArchive(path.join(root, 'archives', 'reimport'));
  const reimportFixture = path.join(root, 'archives', 'reimport-fixture.json');
  fs.writeFileSync(reimportFixture, JSON.stringify(reimport));
  const reimportAfter = path.join(root, 'archives', 'reimport-after', 'msgbrowse.sqlite');
  fs.mkdirSync(path.dirname(reimportAfter), { recursive: true });
  fs.copyFileSync(reimport.path, reimportAfter);
  const reimported = reimportConversation(reimport, reimportAfter);
  const { model, dim } = CURATED_MODELS[0];
  const embed = await startEmbedServer(model, dim);
  const atVersion = (name: string, version: number) =>
    buildJournalArchive(path.join(root, 'archives', name), { version, embeddings: [{ model, dim }] });
  const v16 = atVersion('schema-v16', 16);
  const v20 = atVersion('schema-v20', 20);
  const v23 = atVersion('schema-v23', 20);
  makeFutureArchive(v23.path);
  const big = buildScaleArchive(path.join(root, 'archives', 'real-size', 'msgbrowse.sqlite'), {
    messages: 20_000,
    conversations: 400,
    dim,
    model,
    longMessages: 0.05,
    progress: false,
  });

  fs.writeFileSync(
    path.join(workspace, '.vscode', 'settings.json'),
    JSON.stringify(
      {
        'msgbrowse.archivePath': curated.path,
        'msgbrowse.embeddings.baseUrl': embed.baseUrl,
        'msgbrowse.embeddings.model': model,
        'chat.mcp.autostart': 'never',
      },
      null,
      2,
    ),
  );
  fs.writeFileSync(
    path.join(workspace, 'notes.md'),
    `# Notes\n\nSee msgbrowse:c/${curated.marks.leaseAgreement.conversationId}/at/${curated.marks.leaseAgreement.id} for the lease.\n`,
  );

  // The Signal attachment media/cabin.jpg of "Harper", where msgbrowse keeps it: <root>/export/<conversation>/<rel_path>.
  const cabin = curated.marks.imageCabin;
  const cabinFile = path.join(path.dirname(curated.path), 'export', cabin.conversation, 'media', 'cabin.jpg');
  fs.mkdirSync(path.dirname(cabinFile), { recursive: true });
  fs.copyFileSync(path.join(__dirname, '..', '..', 'media', 'icon.png'), cabinFile);
  const lease = curated.marks.leaseAgreement;
  const script = curated.marks.scriptBody;
  const manifest: IntegrationManifest = {
    workspace,
    resultsFile: path.join(root, 'results.json'),
    curated: {
      path: curated.path,
      conversations: curated.conversations.length,
      messages: curated.messages.length,
      conversationNames: curated.conversations.map((c) => c.name),
      lease: { id: lease.id, conversationId: lease.conversationId, body: lease.body, hash: lease.hash },
      script: { id: script.id, conversationId: script.conversationId, body: script.body, hash: script.hash },
      image: { id: cabin.id, conversationId: cabin.conversationId },
      embedModel: model,
      journal: (() => {
        const day = new Date(lease.tsUnix * 1000).toISOString().slice(0, 10);
        const dayMessages = curated.messages.filter(
          (x) => !x.isSystem && x.body.trim() !== '' && new Date(x.tsUnix * 1000).toISOString().slice(0, 10) === day,
        ).length;
        return { day, digest: CURATED_DIGEST_SUMMARY, dayMessages };
      })(),
    },
    live,
    liveResources: {
      path: liveResources,
      conversationId: lease.conversationId,
      writer: {
        node: process.execPath,
        cwd: path.resolve(__dirname, '..', '..'),
        args: [
          '--import',
          'tsx',
          path.resolve(__dirname, '..', 'fixtures', 'append-child.ts'),
          liveResources,
          String(lease.conversationId),
        ],
      },
    },
    reimport: {
      path: reimport.path,
      after: reimportAfter,
      writer: {
        node: process.execPath,
        cwd: path.resolve(__dirname, '..', '..'),
        args: ['--import', 'tsx', path.resolve(__dirname, '..', 'fixtures', 'reimport-child.ts'), reimportFixture],
      },
      conversationId: reimport.conversation.id,
      before: reimport.before.map((x) => ({ id: x.id, hash: x.hash, body: x.body })),
      afterIds: Object.fromEntries(reimported.after.map((x) => [x.hash, x.id])),
      dropped: { id: reimported.dropped.id, hash: reimported.dropped.hash },
      inserted: { id: reimported.inserted.id, hash: reimported.inserted.hash },
    },
    demo: {
      conversations: demo.conversations.length,
      messages: demo.messages.length,
      longest: (() => {
        const c = [...demo.conversations].sort((a, b) => b.messageCount - a.messageCount)[0];
        const msgs = demo.messages
          .filter((x) => x.conversationId === c.id)
          .sort((a, b) => a.tsUnix - b.tsUnix || a.id - b.id);
        const words = msgs[0].body.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 2);
        const firstWord = [...words].sort((a, b) => b.length - a.length)[0] ?? '';
        return {
          id: c.id,
          messageCount: c.messageCount,
          firstId: msgs[0].id,
          lastId: msgs[msgs.length - 1].id,
          firstWord,
        };
      })(),
    },
    copilotHarness: { script: '' },
    secrets: {
      path: buildSecretsArchive(path.join(root, 'archives', 'secrets')).path,
      code: '483920',
      query: 'verification',
    },
    realSize: {
      path: big.path,
      conversations: big.conversations,
      largest: { id: big.largestConversation.id, messages: big.largestConversation.messages },
      word: big.sampleWords.frequent[0],
    },
    schemas: {
      v16: v16.path,
      v20: v20.path,
      v23: v23.path,
      reacted: { id: v16.marks.reacted.id, hash: v16.marks.reacted.hash },
      cabin: { id: v16.marks.cabin.id },
    },
    second: {
      path: second.path,
      conversations: second.conversations.length,
      conversationName: second.conversations[0].name,
      messageCount: second.messages.length,
      bodies: second.messages.map((m) => m.body),
    },
  };
  manifest.copilotHarness = copilotHarness();
  const manifestFile = path.join(root, 'manifest.json');
  fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  return {
    manifest,
    manifestFile,
    root,
    close: () =>
      new Promise<void>((resolve) => {
        embed.server.closeAllConnections();
        embed.server.close(() => resolve());
      }),
  };
}

/** Node ≥ 22 and the Copilot SDK of the offline test host (its host.env: NODE24, CS_ENTRY), for suite/copilot-harness.ts. */
function copilotHarness(): CopilotHarnessManifest {
  const script = path.join(__dirname, 'copilot-harness-check.mjs');
  const hostDir = process.env.MSGBROWSE_TEST_HOST_DIR || path.join(os.homedir(), '.cache', 'msgbrowse-test-host');
  const envFile = path.join(hostDir, 'host.env');
  if (!fs.existsSync(envFile))
    return { script, missing: `no ${envFile}: the Copilot runtime comes with the offline test host` };
  const env = Object.fromEntries(
    fs
      .readFileSync(envFile, 'utf8')
      .split('\n')
      .flatMap((l) => {
        const i = l.indexOf('=');
        return i > 0 ? [[l.slice(0, i).trim(), l.slice(i + 1).trim()]] : [];
      }),
  );
  const node = env.NODE24 || env.CS_NODE;
  if (!node || !fs.existsSync(node)) return { script, missing: `no Node 24 in ${envFile}` };
  // CS_ENTRY = …/code-server/out/node/entry.js → …/code-server/lib/vscode/node_modules/@github/copilot-sdk
  const sdk =
    env.CS_ENTRY &&
    path.join(path.dirname(env.CS_ENTRY), '..', '..', 'lib', 'vscode', 'node_modules', '@github', 'copilot-sdk');
  const pkg = sdk && path.join(sdk, 'package.json');
  if (!pkg || !fs.existsSync(pkg))
    return { script, node, missing: `the test host bundles no @github/copilot-sdk (looked in ${sdk})` };
  const meta = JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string; copilotCliVersion?: string };
  return { script, node, sdk, sdkVersion: meta.version, runtimeVersion: meta.copilotCliVersion };
}
