/** What the tool tests share: the curated archive served with a model, without one and with the wrong one. */
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import crypto from 'node:crypto';
import { buildCuratedArchive, embedText, type CuratedArchive } from '../../fixtures/index';
import { startHarness, tempDir, type Harness } from '../harness';
import { startEmbedServer, type TestEmbedServer } from '../../embed/test-server';

export type Hit = {
  message_id: number;
  hash: string;
  conversation: string;
  conversation_id: number;
  source: string;
  sender: string;
  timestamp: string;
  text: string;
  link: string;
  score?: number;
};

export type Receipt = {
  scope: {
    conversation_id?: number;
    conversation?: string;
    source?: string;
    sender?: string;
    start?: string;
    end?: string;
  };
  messages_in_scope: number;
  vector_coverage?: { model: string; messages_with_vectors: number };
  keyword?: {
    tokens: string[];
    total_tokens: number;
    duplicates_removed: number;
    ignored: string[];
    dropped_over_cap: number;
    max_tokens: number;
  };
  semantic: { used: boolean; model?: string; reason?: string };
};

export interface ToolFixture {
  desc: CuratedArchive;
  embed: TestEmbedServer;
  /** With the archive's model (`test-embed`, 8-d vectors from `embed`). */
  h: Harness;
  /** Without a model. */
  plain: Harness;
  /** With `other-embed`, whose 8-d vectors do not fit the archive's 4-d ones. */
  wrongDim: Harness;
  /** A message's citation link: its ids anchored by the first 16 hex digits of its hash. */
  link(c: number, m: number): string;
}

const sha = (p: string) => crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');

/**
 * Registers the hooks that build the fixture before the file's tests and check afterwards that the archive is
 * byte-for-byte unchanged; `use` receives it once built (a test file assigns the parts it needs to its own names).
 */
export function toolFixture(use: (fx: ToolFixture) => void): void {
  let dir: string;
  let digest: string;
  let fx: ToolFixture | undefined;
  before(async () => {
    dir = tempDir('mcp-tools');
    const desc = buildCuratedArchive(dir);
    digest = sha(desc.path);
    const embed = await startEmbedServer((req) => {
      const body = JSON.parse(req.body) as { model: string; input: string[] };
      // The endpoint serves 8-d test-embed vectors whatever model is asked for (so other-embed mismatches).
      return { body: { data: body.input.map((t, index) => ({ index, embedding: embedText(t, 8, 'test-embed') })) } };
    });
    fx = {
      desc,
      embed,
      h: await startHarness({ archivePath: desc.path, embed: { baseUrl: embed.baseUrl, model: 'test-embed' } }),
      plain: await startHarness({ archivePath: desc.path }),
      wrongDim: await startHarness({ archivePath: desc.path, embed: { baseUrl: embed.baseUrl, model: 'other-embed' } }),
      link: (c, m) => {
        const hash = desc.messages.find((x) => x.id === m)?.hash ?? '';
        return `vscode://msgbrowse.msgbrowse-vscode/c/${c}/at/${m}?h=${hash.slice(0, 16)}`;
      },
    };
    use(fx);
  });
  after(async () => {
    await fx?.h.close();
    await fx?.plain.close();
    await fx?.wrongDim.close();
    await fx?.embed.close();
    if (fx) assert.equal(sha(fx.desc.path), digest, 'the archive file must be byte-for-byte unchanged');
    fs.rmSync(dir, { recursive: true, force: true });
  });
}
