/**
 * Nobody waits for an index or a slow endpoint (issue #15): search_messages answers at keyword speed while the
 * vector index builds or the embeddings endpoint hangs, says why, and is hybrid again by itself afterwards;
 * semantic_search waits for a short build (with progress) and says how long a long one will take.
 * Through a real MCP client over the runtime (core + mcp), with scripted builders and embedders.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { buildCuratedArchive, type CuratedArchive } from '../fixtures/index';
import type { Embedder } from '../../src/embed/types';
import {
  createRuntime,
  defaultVectorIndexBuilder,
  inThreadOpener,
  type RuntimeOptions,
  type VectorBuildRequest,
} from '../../src/core/index';
import { connectClient, textOf } from '../mcp/harness';

const CITATION = { scheme: 'vscode', authority: 'msgbrowse.msgbrowse-vscode' };
const VEC = [1, 0, 0, 0, 0, 0, 0, 0];

let root: string;
let curated: CuratedArchive;

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-semwait-'));
  curated = buildCuratedArchive(path.join(root, 'curated'));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

function options(extra: Partial<RuntimeOptions>): RuntimeOptions {
  return {
    archivePath: curated.path,
    embed: { baseUrl: 'http://127.0.0.1:9/v1', model: 'test-embed' },
    citation: CITATION,
    version: '9.9.9',
    createEmbedder: (c) => ({ model: c.model, embed: async () => Float32Array.from(VEC) }),
    closeGraceMs: 10,
    ...extra,
  };
}

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function gate(): { wait: Promise<void>; open(): void; readonly opened: boolean } {
  let release!: () => void;
  let opened = false;
  const wait = new Promise<void>((r) => (release = r));
  return {
    wait,
    open: () => {
      opened = true;
      release();
    },
    get opened() {
      return opened;
    },
  };
}

type Semantic = { used: boolean; reason?: string; model?: string };

async function search(client: Awaited<ReturnType<typeof connectClient>>['client'], query = 'lease') {
  const r = (await client.callTool({ name: 'search_messages', arguments: { query } })) as CallToolResult;
  assert.ok(!r.isError, textOf(r));
  return r.structuredContent as { hits: unknown[]; semantic: Semantic };
}

describe('search_messages never waits for the index or the endpoint', () => {
  it('answers with keyword hits and "index building: N%" during a build, hybrid once it is ready', async () => {
    const half = gate();
    const finish = gate();
    let built = false;
    const rt = createRuntime(
      options({
        buildVectorIndex: async (req: VectorBuildRequest) => {
          await half.wait;
          req.onProgress?.({ done: Math.floor(req.count / 2), total: req.count });
          await finish.wait;
          const index = await defaultVectorIndexBuilder(req);
          built = true;
          return index;
        },
      }),
    );
    const { client, close } = await connectClient(rt.context);
    try {
      const first = await search(client);
      assert.ok(first.hits.length > 0, 'keyword hits arrive during the build');
      assert.deepEqual(first.semantic, { used: false, reason: 'index building: 0%', model: 'test-embed' });
      half.open();
      await until(
        () =>
          rt.status().semantic.state === 'building' && (rt.status().semantic as { percent?: number }).percent === 50,
      );
      const second = await search(client);
      assert.equal(second.semantic.reason, 'index building: 50%');
      assert.ok(second.hits.length > 0);
      finish.open();
      await until(() => built && rt.status().semantic.state === 'ready');
      const third = await search(client);
      assert.deepEqual(third.semantic, { used: true, model: 'test-embed' });
    } finally {
      half.open();
      finish.open();
      await close();
      await rt.dispose();
    }
  });

  it('a hung endpoint: keyword hits within the budget and a timed-out reason; the late answer serves the next call', async () => {
    const endpoint = gate();
    let requests = 0;
    const hung: Embedder = {
      model: 'test-embed',
      embed: async () => {
        requests++;
        await endpoint.wait;
        return Float32Array.from(VEC);
      },
    };
    const rt = createRuntime(options({ createEmbedder: () => hung }));
    const { client, close } = await connectClient(rt.context);
    try {
      await rt.context.semantic(); // the index is ready: only the endpoint is slow
      const first = await search(client);
      assert.ok(first.hits.length > 0);
      assert.equal(first.semantic.used, false);
      assert.match(first.semantic.reason ?? '', /^the embeddings endpoint did not answer within 1\.5 s \(timed out;/);
      endpoint.open(); // the endpoint answers late; the request went on in the background
      await new Promise((r) => setImmediate(r));
      const second = await search(client);
      assert.deepEqual(second.semantic, { used: true, model: 'test-embed' });
      assert.equal(requests, 1, 'the late answer served the same query again');
    } finally {
      endpoint.open();
      await close();
      await rt.dispose();
    }
  });

  it('a failed or hung request is not kept: the next call asks a healthy endpoint again', async () => {
    let healthy = false;
    let requests = 0;
    const flaky: Embedder = {
      model: 'test-embed',
      embed: async () => {
        requests++;
        if (!healthy) throw new Error('the embeddings endpoint timed out after 60 s');
        return Float32Array.from(VEC);
      },
    };
    const rt = createRuntime(options({ createEmbedder: () => flaky }));
    const { client, close } = await connectClient(rt.context);
    try {
      await rt.context.semantic();
      const first = await search(client);
      assert.equal(first.semantic.used, false);
      assert.match(first.semantic.reason ?? '', /timed out after 60 s/);
      healthy = true;
      const second = await search(client);
      assert.deepEqual(second.semantic, { used: true, model: 'test-embed' });
      assert.equal(requests, 2);
    } finally {
      await close();
      await rt.dispose();
    }
  });
});

describe('semantic_search during a build', () => {
  it('says how long a long build will take', async () => {
    const finish = gate();
    let count = 0;
    const rt = createRuntime(
      options({
        buildVectorIndex: async (req) => {
          count = req.count;
          // 5% after ≥ 1 s: the rest should take ≥ 19 s, well past the wait limit.
          await new Promise((r) => setTimeout(r, 1000));
          req.onProgress?.({ done: Math.ceil(req.count / 20), total: req.count });
          await finish.wait;
          return defaultVectorIndexBuilder(req);
        },
      }),
    );
    const { client, close } = await connectClient(rt.context);
    try {
      void rt.context.semantic().catch(() => {});
      await until(() => (rt.status().semantic as { percent?: number }).percent !== undefined && count > 0);
      await until(
        () => rt.status().semantic.state === 'building' && (rt.status().semantic as { percent?: number }).percent! > 0,
      );
      const r = (await client.callTool({ name: 'semantic_search', arguments: { query: 'lease' } })) as CallToolResult;
      assert.equal(r.isError, true);
      assert.match(
        textOf(r),
        /the vector index is still building \(\d+%, about \d+ s left\); semantic_search answers once it is ready/,
      );
    } finally {
      finish.open();
      await close();
      await rt.dispose();
    }
  });

  it('waits for a short build, sending progress notifications, and answers', async () => {
    const finish = gate();
    const rt = createRuntime(
      options({
        buildVectorIndex: async (req) => {
          await finish.wait;
          return defaultVectorIndexBuilder(req);
        },
      }),
    );
    const { client, close } = await connectClient(rt.context);
    try {
      const progress: { progress: number; message?: string }[] = [];
      const call = client.callTool(
        { name: 'semantic_search', arguments: { query: 'lease' } },
        {
          onprogress: (p) => {
            progress.push(p);
            finish.open();
          },
        },
      ) as Promise<CallToolResult>;
      const r = await call;
      assert.ok(!r.isError, textOf(r));
      assert.equal((r.structuredContent as { model: string }).model, 'test-embed');
      assert.ok(progress.length >= 1);
      assert.equal(progress[0]!.message, 'index building: 0%');
    } finally {
      finish.open();
      await close();
      await rt.dispose();
    }
  });
});

describe('the query vector of a waiting semantic_search', () => {
  it('is requested while the index builds (once), and search_messages during a build embeds nothing', async () => {
    const finish = gate();
    let buildDone = false;
    const embedded: { text: string; duringBuild: boolean }[] = [];
    const rt = createRuntime(
      options({
        createEmbedder: (c) => ({
          model: c.model,
          embed: async (text: string) => {
            embedded.push({ text, duringBuild: !buildDone });
            return Float32Array.from(VEC);
          },
        }),
        buildVectorIndex: async (req) => {
          await finish.wait;
          const index = await defaultVectorIndexBuilder(req);
          buildDone = true;
          return index;
        },
      }),
    );
    const { client, close } = await connectClient(rt.context);
    try {
      const keyword = await search(client, 'deposit');
      assert.equal(keyword.semantic.used, false);
      assert.deepEqual(embedded, [], 'a keyword answer during the build asks for no vector');
      const call = client.callTool({
        name: 'semantic_search',
        arguments: { query: 'lease' },
      }) as Promise<CallToolResult>;
      await until(() => embedded.length > 0);
      assert.deepEqual(embedded, [{ text: 'lease', duringBuild: true }]);
      finish.open();
      const r = await call;
      assert.ok(!r.isError, textOf(r));
      assert.ok((r.structuredContent as { hits: unknown[] }).hits.length > 0);
      assert.deepEqual(
        embedded,
        [{ text: 'lease', duringBuild: true }],
        'the answer used the vector asked for during the build',
      );
    } finally {
      finish.open();
      await close();
      await rt.dispose();
    }
  });
});

describe('the receipt of a waiting semantic_search', () => {
  /**
   * Records every count of a scope (a scopeCounts call, or a hitMessagesBundle given a scope), and whether the build
   * (held until `finish` opens) was still running.
   */
  function counting(
    counted: { scope: unknown; model: unknown; duringBuild: boolean }[],
    finish: ReturnType<typeof gate>,
  ) {
    return options({
      openArchive: async (p) => {
        const opened = await inThreadOpener(p);
        const archive = new Proxy(opened.archive, {
          get(target, key, receiver) {
            const v = Reflect.get(target, key, receiver) as unknown;
            if ((key !== 'scopeCounts' && key !== 'hitMessagesBundle') || typeof v !== 'function') return v;
            return (...args: unknown[]) => {
              const [scope, model] = key === 'scopeCounts' ? args : args.slice(1);
              if (scope !== undefined) counted.push({ scope, model, duringBuild: !finish.opened });
              return (v as (...a: unknown[]) => unknown).apply(target, args);
            };
          },
        });
        return { ...opened, archive };
      },
      buildVectorIndex: async (req) => {
        await finish.wait;
        return defaultVectorIndexBuilder(req);
      },
    });
  }

  it("whole archive: its counts are read while the index builds (kept for the receipt), and the receipt equals a later call's", async () => {
    const finish = gate();
    const counted: { scope: unknown; model: unknown; duringBuild: boolean }[] = [];
    const rt = createRuntime(counting(counted, finish));
    const { client, close } = await connectClient(rt.context);
    try {
      const call = client.callTool({
        name: 'semantic_search',
        arguments: { query: 'lease' },
      }) as Promise<CallToolResult>;
      await until(() => counted.length > 0);
      assert.equal(counted[0]!.duringBuild, true, 'the counts are read before the index is ready');
      assert.equal(counted[0]!.model, undefined, 'without the vector coverage, which the build itself counts');
      finish.open();
      const r = await call;
      assert.ok(!r.isError, textOf(r));
      const again = (await client.callTool({
        name: 'semantic_search',
        arguments: { query: 'lease' },
      })) as CallToolResult;
      assert.deepEqual(
        (r.structuredContent as { receipt: unknown }).receipt,
        (again.structuredContent as { receipt: unknown }).receipt,
      );
      assert.equal(new Set(counted.map((c) => JSON.stringify(c.scope))).size, 1, "always the receipt's own scope");
    } finally {
      finish.open();
      await close();
      await rt.dispose();
    }
  });

  it('a scoped receipt (counted by plain SQL each time) is not counted twice', async () => {
    const finish = gate();
    const counted: { scope: unknown; model: unknown; duringBuild: boolean }[] = [];
    const rt = createRuntime(counting(counted, finish));
    const { client, close } = await connectClient(rt.context);
    try {
      // The call is inside its wait for the build once it reports progress: only then is the build let finish.
      let waiting = false;
      const call = client.callTool(
        { name: 'semantic_search', arguments: { query: 'lease', start: '2020-01-01' } },
        {
          onprogress: () => {
            waiting = true;
          },
        },
      ) as Promise<CallToolResult>;
      await until(() => waiting);
      finish.open();
      const r = await call;
      assert.ok(!r.isError, textOf(r));
      assert.deepEqual(
        counted.map((c) => c.duringBuild),
        [false],
        'counted once, for the answer',
      );
    } finally {
      finish.open();
      await close();
      await rt.dispose();
    }
  });
});

describe('a build that fails', () => {
  it('is reported to callers that do not wait (never restarted in a loop), and a waiting caller retries it', async () => {
    let builds = 0;
    const rt = createRuntime(
      options({
        buildVectorIndex: async () => {
          builds++;
          throw new Error('stored vector 7 has 30 bytes, expected 32');
        },
      }),
    );
    const { client, close } = await connectClient(rt.context);
    try {
      const first = await search(client);
      assert.equal(first.semantic.used, false);
      await until(() => rt.status().semantic.state === 'error');
      const again = await search(client);
      assert.match(again.semantic.reason ?? '', /could not be built: stored vector 7 has 30 bytes/);
      const sem = (await client.callTool({ name: 'semantic_search', arguments: { query: 'lease' } })) as CallToolResult;
      assert.equal(sem.isError, true);
      assert.match(textOf(sem), /30 bytes/, 'semantic_search names the failure instead of "still building"');
      assert.equal(builds, 1, 'non-waiting callers did not start the failed build again');
      await rt.context.semantic();
      assert.equal(builds, 2, 'a caller that waits retries');
    } finally {
      await close();
      await rt.dispose();
    }
  });
});
