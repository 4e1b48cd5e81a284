import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import {
  ArchiveWriter,
  buildCuratedArchive,
  buildLegacyArchive,
  buildMsgbrowseMcpFixture,
  buildSecretsArchive,
  makeFutureArchive,
  cosine,
  decodeVector,
  openWritable,
  type CuratedArchive,
} from '../fixtures/index';
import type { Embedder } from '../../src/embed/types';
import type { VectorIndex } from '../../src/search/types';
import {
  createRuntime,
  defaultCacheDir,
  defaultVectorIndexBuilder,
  hybridSearch,
  inThreadOpener,
  isBesideArchive,
  redactsFor,
  SharedTask,
  workerOpener,
  type RuntimeEvent,
  type RuntimeOptions,
  type VectorBuildRequest,
} from '../../src/core/index';

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const CITATION = { scheme: 'vscode', authority: 'msgbrowse.msgbrowse-vscode' };

function fakeEmbedder(model: string, vec: number[]): Embedder {
  return { model, embed: async () => Float32Array.from(vec) };
}

function options(archivePath: string, extra: Partial<RuntimeOptions> = {}): RuntimeOptions {
  return {
    archivePath,
    embed: { baseUrl: 'http://127.0.0.1:9/v1', model: 'test-embed' },
    citation: CITATION,
    version: '9.9.9',
    createEmbedder: (c) => fakeEmbedder(c.model, [1, 0, 0, 0, 0, 0, 0, 0]),
    closeGraceMs: 10,
    ...extra,
  };
}

let root: string;
let curated: CuratedArchive;

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-runtime-'));
  curated = buildCuratedArchive(path.join(root, 'curated'));
});
after(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** Exact cosine top-k straight from the file with better-sqlite3 (orphans excluded), ties by id. */
function expectedTopK(file: string, model: string, q: number[], k: number): { messageId: number; score: number }[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare(
        'SELECT m.id AS id, e.vec AS vec, e.dim AS dim FROM embeddings e JOIN messages m ON m.hash = e.message_hash WHERE e.model = ?',
      )
      .all(model) as { id: number; vec: Buffer; dim: number }[];
    return rows
      .map((r) => ({ messageId: r.id, score: cosine(q, decodeVector(r.vec, r.dim)) }))
      .sort((a, b) => b.score - a.score || a.messageId - b.messageId)
      .slice(0, k);
  } finally {
    db.close();
  }
}

describe('runtime: archive', () => {
  it('an archive msgbrowse migrates in place under a running server: the notice follows, and a column lost is refused by name', async () => {
    const d = buildLegacyArchive(path.join(root, 'in-place'), 20);
    const logs: string[] = [];
    const rt = createRuntime(options(d.path, { openArchive: workerOpener(), log: (_l, m) => logs.push(m) }));
    try {
      const before = (await rt.describe()).archive;
      assert.ok(before.state === 'open' && before.notice === undefined && before.schemaVersion === 20);
      makeFutureArchive(d.path);
      const after = (await rt.describe()).archive;
      assert.ok(after.state === 'open', JSON.stringify(after));
      assert.equal(after.schemaVersion, 23);
      assert.equal(
        after.notice,
        'schema v23 — newer than v20, the newest this version was tested with; reading the tables it knows',
      );
      assert.equal((await (await rt.context.archive()).listConversations()).length, d.conversations.length);
      const db = openWritable(d.path);
      db.exec('DROP VIEW v_recent_messages; DROP INDEX idx_messages_sender; ALTER TABLE messages DROP COLUMN sender');
      db.close();
      await assert.rejects(
        (await rt.context.archive()).listConversations(),
        /messages\.sender is missing \(msgbrowse v1–v20 have it\)/,
      );
    } finally {
      await rt.dispose();
    }
  });

  it('opens lazily from a data dir, reports status and a summary', async () => {
    const rt = createRuntime(options(path.dirname(curated.path)));
    assert.equal(rt.status().archive.state, 'closed');
    const st = await rt.describe();
    assert.deepEqual(st.archive, { state: 'open', path: curated.path, schemaVersion: 20 });
    assert.equal(st.summary?.messages, curated.messages.length);
    assert.equal(st.summary?.conversations, curated.conversations.length);
    assert.equal(st.version, '9.9.9');
    assert.equal(rt.context.citation.scheme, 'vscode');
    const a1 = await rt.context.archive();
    const a2 = await rt.context.archive();
    assert.equal(a1, a2, 'the same handle is reused while the file is unchanged');
    await rt.dispose();
    await assert.rejects(rt.context.archive(), /shutting down/);
  });

  it('rejects with the archive error for a bad path, keeps serving, and retries on the next call', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'late-'));
    const events: RuntimeEvent[] = [];
    const rt = createRuntime(options(dir));
    rt.onDidChange((e) => events.push(e));
    await assert.rejects(rt.context.archive(), (e: Error) => e.name === 'ArchiveError' && e.message.includes(dir));
    const st = rt.status();
    assert.equal(st.archive.state, 'error');
    const sem = await rt.context.semantic();
    assert.equal(sem.available, false);
    assert.match(sem.available ? '' : sem.reason, /cannot be opened/);
    // The archive appears: the next call opens it.
    buildMsgbrowseMcpFixture(dir);
    const a = await rt.context.archive();
    assert.ok((await a.summary()).messages > 0);
    assert.ok(events.some((e) => e.kind === 'archive-error'));
    assert.ok(events.some((e) => e.kind === 'archive-opened'));
    await rt.dispose();
  });

  it('the same settings again retry an archive that failed to open, and change nothing for one that is open', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'retry-'));
    const rt = createRuntime(options(dir));
    await assert.rejects(rt.context.archive());
    assert.equal(rt.status().archive.state, 'error');
    buildMsgbrowseMcpFixture(dir);
    assert.equal(await rt.reload({ ...rt.settings }), true, 'a failed archive is retried');
    assert.ok((await (await rt.context.archive()).summary()).messages > 0);
    assert.equal(await rt.reload({ ...rt.settings }), false, 'an open archive is left alone');
    await rt.dispose();
  });

  it('reopens when the archive file is replaced (new inode) and sees the new content', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'swap-'));
    const file = buildMsgbrowseMcpFixture(dir).path;
    const rt = createRuntime(options(file));
    const events: RuntimeEvent[] = [];
    rt.onDidChange((e) => events.push(e));
    const before = await (await rt.context.archive()).summary();
    const gen = rt.status().generation;
    // Build a different archive elsewhere and move it over the original.
    const other = buildCuratedArchive(fs.mkdtempSync(path.join(root, 'other-')));
    fs.copyFileSync(other.path, `${file}.new`);
    fs.renameSync(`${file}.new`, file);
    for (const ext of ['-wal', '-shm']) fs.rmSync(file + ext, { force: true });
    const after = await (await rt.context.archive()).summary();
    assert.notEqual(after.messages, before.messages);
    assert.equal(after.messages, other.messages.length);
    assert.ok(rt.status().generation > gen);
    assert.ok(events.some((e) => e.kind === 'archive-changed' && e.replaced));
    await rt.dispose();
  });

  it('reload() switches archives and citation format', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'reload-'));
    const mcp = buildMsgbrowseMcpFixture(dir);
    const rt = createRuntime(options(curated.path));
    assert.equal((await (await rt.context.archive()).summary()).messages, curated.messages.length);
    await rt.reload({ ...rt.settings, archivePath: mcp.path, citation: { scheme: 'cursor', authority: 'x.y' } });
    assert.equal((await (await rt.context.archive()).summary()).messages, mcp.messages.length);
    assert.equal(rt.context.citation.scheme, 'cursor');
    await rt.dispose();
  });

  it('concurrent first calls share one open', async () => {
    let opens = 0;
    const rt = createRuntime(
      options(curated.path, {
        openArchive: async (p) => {
          opens++;
          const { inThreadOpener } = await import('../../src/core/index');
          return inThreadOpener(p);
        },
      }),
    );
    const all = await Promise.all([1, 2, 3, 4].map(() => rt.context.archive()));
    assert.equal(opens, 1);
    assert.ok(all.every((a) => a === all[0]));
    await rt.dispose();
  });
});

describe('runtime: semantic', () => {
  it('is unavailable with a clear reason when no model is configured', async () => {
    const rt = createRuntime(options(curated.path, { embed: { baseUrl: 'http://127.0.0.1:9/v1', model: '  ' } }));
    assert.equal(rt.status().semantic.state, 'disabled');
    const s = await rt.context.semantic();
    assert.equal(s.available, false);
    assert.match(s.available ? '' : s.reason, /no embedding model configured — set MSGBROWSE_LLM_EMBED_MODEL/);
    await rt.dispose();
  });

  it('names the stored models when the configured one has no vectors', async () => {
    const rt = createRuntime(
      options(curated.path, { embed: { baseUrl: 'http://127.0.0.1:9/v1', model: 'nope-embed' } }),
    );
    const s = await rt.context.semantic();
    assert.equal(s.available, false);
    const reason = s.available ? '' : s.reason;
    assert.match(reason, /no embeddings for model "nope-embed"/);
    assert.match(reason, /test-embed/);
    assert.match(reason, /other-embed/);
    assert.equal(rt.status().semantic.state, 'unavailable');
    await rt.dispose();
  });

  it('builds an exact-cosine index matching a brute-force scan of the file', async () => {
    const rt = createRuntime(options(curated.path));
    const s = await rt.context.semantic();
    assert.ok(s.available);
    assert.equal(s.index.model, 'test-embed');
    assert.equal(s.index.dim, 8);
    const q = [0.3, -1, 0.5, 0, 2, 0.1, -0.2, 0.7];
    const got = await s.index.search(Float32Array.from(q), 10);
    const want = expectedTopK(curated.path, 'test-embed', q, 10);
    assert.deepEqual(
      got.map((h) => h.messageId),
      want.map((h) => h.messageId),
    );
    for (let i = 0; i < got.length; i++) assert.ok(Math.abs(got[i].score - want[i].score) < 1e-6);
    assert.equal(s.index.size, curated.embeddings.find((e) => e.model === 'test-embed')!.count - 1, 'orphan skipped');
    assert.equal(rt.status().semantic.state, 'ready');
    // A second call reuses the index.
    const s2 = await rt.context.semantic();
    assert.ok(s2.available && s2.index === s.index);
    await rt.dispose();
  });

  it('shares one build between concurrent callers; one caller cancelling does not stop it', async () => {
    let builds = 0;
    let entered = false;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const rt = createRuntime(
      options(curated.path, {
        buildVectorIndex: async (req: VectorBuildRequest) => {
          builds++;
          entered = true;
          await gate;
          return defaultVectorIndexBuilder(req);
        },
      }),
    );
    const ac = new AbortController();
    const p1 = rt.context.semantic(ac.signal);
    const p2 = rt.context.semantic();
    await until(() => entered);
    ac.abort();
    await assert.rejects(p1, (e: Error) => e.name === 'AbortError');
    assert.equal(rt.status().semantic.state, 'building');
    release();
    const s2 = await p2;
    assert.ok(s2.available);
    assert.equal(builds, 1);
    await rt.dispose();
  });

  it('aborts the build when every waiter cancels, and the next call builds again', async () => {
    const signals: AbortSignal[] = [];
    const rt = createRuntime(
      options(curated.path, {
        buildVectorIndex: (req) =>
          new Promise<VectorIndex>((_resolve, reject) => {
            signals.push(req.signal);
            req.signal.addEventListener('abort', () => reject(req.signal.reason));
          }),
      }),
    );
    const a = new AbortController();
    const b = new AbortController();
    const p1 = assert.rejects(rt.context.semantic(a.signal), (e: Error) => e.name === 'AbortError');
    const p2 = assert.rejects(rt.context.semantic(b.signal), (e: Error) => e.name === 'AbortError');
    await until(() => signals.length === 1);
    a.abort();
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(signals[0].aborted, false, 'still one waiter');
    b.abort();
    await p1;
    await p2;
    assert.equal(signals[0].aborted, true);
    const c = new AbortController();
    const p3 = assert.rejects(rt.context.semantic(c.signal));
    await until(() => signals.length === 2);
    c.abort();
    await p3;
    await rt.dispose();
  });

  it('reports a build failure as unavailable (never a crash) and retries later', async () => {
    let fail = true;
    const rt = createRuntime(
      options(curated.path, {
        buildVectorIndex: async (req) => {
          if (fail) throw new Error('disk full');
          return defaultVectorIndexBuilder(req);
        },
      }),
    );
    const s = await rt.context.semantic();
    assert.equal(s.available, false);
    assert.match(s.available ? '' : s.reason, /could not be built: disk full/);
    fail = false;
    assert.ok((await rt.context.semantic()).available);
    await rt.dispose();
  });

  it('prewarmSemantic builds the index in the background once the archive opens', async () => {
    const events: RuntimeEvent[] = [];
    const rt = createRuntime(options(curated.path, { prewarmSemantic: true }));
    rt.onDidChange((e) => events.push(e));
    await rt.context.archive();
    await until(() => rt.status().semantic.state === 'ready');
    assert.ok(events.some((e) => e.kind === 'semantic' && e.status.state === 'ready'));
    await rt.dispose();
  });

  /** The in-thread opener, recording which of the archive's calls ran, in order, into `order`. */
  function recordingOpener(order: string[]) {
    return async (p: string) => {
      const opened = await inThreadOpener(p);
      const archive = opened.archive;
      return {
        ...opened,
        archive: {
          ...archive,
          summary: (signal?: AbortSignal) => (order.push('summary'), archive.summary(signal)),
          embeddingModels: (signal?: AbortSignal) => (order.push('models'), archive.embeddingModels(signal)),
          scopeCounts: (...args: Parameters<typeof archive.scopeCounts>) => (
            order.push(`counts ${JSON.stringify(args[0])}`), archive.scopeCounts(...args)
          ),
          excluding: (x: Parameters<typeof archive.excluding>[0]) => {
            const hidden = archive.excluding(x);
            return {
              ...hidden,
              scopeCounts: (...args: Parameters<typeof archive.scopeCounts>) => (
                order.push(`counts without ${x.map((e) => e.name).join(',')} ${JSON.stringify(args[0])}`),
                hidden.scopeCounts(...args)
              ),
            };
          },
        },
      };
    };
  }

  it('prewarmCounts counts the messages on every open, once the prewarmed index build has started', async () => {
    const order: string[] = [];
    const dir = fs.mkdtempSync(path.join(root, 'prewarm-counts-'));
    const file = path.join(dir, 'msgbrowse.sqlite');
    fs.copyFileSync(curated.path, file);
    // Each build goes on only once the count of its open has run: a prewarm that waited for the index before
    // counting would never see it finish (the test then times out).
    const builder = async (req: VectorBuildRequest) => {
      const n = order.push('build');
      await until(
        () => order.filter((o) => o === 'counts {}').length >= order.slice(0, n).filter((o) => o === 'build').length,
      );
      return defaultVectorIndexBuilder(req);
    };
    const rt = createRuntime(
      options(file, {
        prewarmSemantic: true,
        prewarmCounts: true,
        openArchive: recordingOpener(order),
        buildVectorIndex: builder,
      }),
    );
    await rt.context.archive();
    await until(() => order.includes('counts {}'));
    // The build needs the model's count first; the message count never holds it up; nothing else is read.
    assert.deepEqual(order, ['models', 'build', 'counts {}'], 'the build never waits for the count');
    // A replaced file is opened again, and counted again.
    fs.copyFileSync(file, `${file}.new`);
    fs.renameSync(`${file}.new`, file);
    await rt.context.archive();
    await until(() => order.filter((o) => o === 'counts {}').length === 2);
    await until(() => rt.status().semantic.state === 'ready');
    await rt.dispose();
  });

  it('prewarmCounts alone (no embedding model) counts the messages and reads nothing else', async () => {
    const order: string[] = [];
    const rt = createRuntime(
      options(curated.path, {
        prewarmCounts: true,
        openArchive: recordingOpener(order),
        embed: { baseUrl: 'http://127.0.0.1:9/v1', model: '' },
      }),
    );
    await rt.context.archive();
    await until(() => order.length > 0);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(order, ['counts {}']);
    assert.equal(rt.status().semantic.state, 'disabled');
    await rt.dispose();
  });

  it('prewarmCounts counts as a model-facing call does: with exclusions, without them (so the listing they need is read too)', async () => {
    const order: string[] = [];
    const name = curated.conversations[0].name;
    const rt = createRuntime(
      options(curated.path, {
        prewarmCounts: true,
        openArchive: recordingOpener(order),
        embed: { baseUrl: 'http://127.0.0.1:9/v1', model: '' },
        privacy: { excludeConversations: [name] },
      }),
    );
    await rt.context.archive();
    await until(() => order.length > 0);
    assert.deepEqual(order, [`counts without ${name} {}`]);
    await rt.dispose();
  });

  it('reload with another model rebuilds for that model', async () => {
    const rt = createRuntime(options(curated.path));
    const s = await rt.context.semantic();
    assert.ok(s.available && s.index.dim === 8);
    await rt.reload({ ...rt.settings, embed: { baseUrl: 'http://127.0.0.1:9/v1', model: 'other-embed' } });
    const s2 = await rt.context.semantic();
    assert.ok(s2.available && s2.index.dim === 4 && s2.index.model === 'other-embed');
    assert.equal(s2.embedder.model, 'other-embed');
    await rt.dispose();
  });

  it('never hands the builder a cache dir beside the archive', async () => {
    const seen: (string | undefined)[] = [];
    const listing = fs.readdirSync(path.dirname(curated.path)).sort();
    const builder = (req: VectorBuildRequest) => {
      seen.push(req.cacheDir);
      return defaultVectorIndexBuilder(req);
    };
    const beside = createRuntime(
      options(curated.path, { cacheDir: path.dirname(curated.path), buildVectorIndex: builder }),
    );
    await beside.context.semantic();
    await beside.dispose();
    const cache = path.join(root, 'cache');
    const elsewhere = createRuntime(options(curated.path, { cacheDir: cache, buildVectorIndex: builder }));
    await elsewhere.context.semantic();
    await elsewhere.dispose();
    assert.deepEqual(seen, [undefined, cache]);
    // The default builder persisted the index there (and nothing beside the archive).
    assert.equal(fs.readdirSync(cache).filter((f) => f.endsWith('.idx')).length, 1);
    assert.deepEqual(fs.readdirSync(path.dirname(curated.path)).sort(), listing);
    assert.ok(!listing.some((f) => f.endsWith('.idx')));
    const again = createRuntime(options(curated.path, { cacheDir: cache }));
    const s = await again.context.semantic();
    assert.ok(s.available);
    const q = Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
    const want = expectedTopK(curated.path, 'test-embed', [...q], 5);
    assert.deepEqual(
      (await s.index.search(q, 5)).map((h) => h.messageId),
      want.map((h) => h.messageId),
    );
    await again.dispose();
  });
});

describe('runtime: recovering and waiting', () => {
  it('after a failed open, the poll reports when the archive file appears, and the next call opens it', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'appears-'));
    const file = path.join(dir, 'msgbrowse.sqlite');
    const events: RuntimeEvent[] = [];
    const rt = createRuntime(options(file, { watchIntervalMs: 25 }));
    rt.onDidChange((e) => events.push(e));
    try {
      await assert.rejects(rt.context.archive(), /does not exist/);
      assert.equal(rt.status().archive.state, 'error');
      fs.copyFileSync(curated.path, `${file}.tmp`);
      fs.renameSync(`${file}.tmp`, file);
      await until(() => events.some((e) => e.kind === 'archive-changed' && e.replaced));
      assert.equal((await (await rt.context.archive()).summary()).conversations, curated.conversations.length);
      assert.equal(rt.status().archive.state, 'open');
    } finally {
      await rt.dispose();
    }
  });

  it('holds archive and semantic calls until beforeCall resolves', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const rt = createRuntime(options('', { beforeCall: () => gate, missingArchiveMessage: () => 'none selected yet' }));
    try {
      let settled = false;
      const call = rt.context.archive().finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 30));
      assert.equal(settled, false, 'the call waits for the gate');
      await rt.reload({ ...rt.settings, archivePath: curated.path });
      release();
      assert.equal((await (await call).summary()).messages > 0, true, 'served the archive configured while it waited');
      await rt.reload({ ...rt.settings, archivePath: '' });
      await assert.rejects(
        rt.context.archive(),
        (e: Error) => e.name === 'ArchiveError' && e.message === 'none selected yet',
      );
    } finally {
      await rt.dispose();
    }
  });
});

describe('runtime: live archive changes', () => {
  it('sees new embeddings: serves the current index, refreshes it in the background, emits change events', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'live-'));
    const copy = path.join(dir, 'msgbrowse.sqlite');
    fs.copyFileSync(curated.path, copy);
    const events: RuntimeEvent[] = [];
    const rt = createRuntime(options(copy, { indexRefreshMs: 0, watchIntervalMs: 25 }));
    rt.onDidChange((e) => events.push(e));
    const s1 = await rt.context.semantic();
    assert.ok(s1.available);
    const size1 = s1.index.size;
    const conv = curated.conversations[0];

    // A concurrent writer (msgbrowse) adds a message and its embedding, pointing exactly at the query.
    const db = openWritable(copy);
    const q = [0, 0, 0, 0, 0, 0, 0, 1];
    try {
      const w = new ArchiveWriter(db);
      const [m] = w.appendMessages(conv.id, conv.source, conv.name, [
        { ts: '2030-01-01 00:00:00', sender: 'Late', body: 'fresh message' },
      ]);
      w.putEmbedding(m.hash, 'test-embed', q);
      await until(() => events.some((e) => e.kind === 'archive-changed' && !e.replaced));
      // The new message is visible to queries at once.
      const archive = await rt.context.archive();
      assert.ok((await archive.messageById(m.id)) !== undefined);
      // The next semantic call still answers (stale index) and starts a refresh; soon the new vector is in.
      const s2 = await rt.context.semantic();
      assert.ok(s2.available);
      await until(() => {
        void rt.context.semantic();
        return rt.status().semantic.state === 'ready' && (rt.status().semantic as { size: number }).size === size1 + 1;
      });
      const s3 = await rt.context.semantic();
      assert.ok(s3.available);
      const top = await s3.index.search(Float32Array.from(q), 1);
      assert.equal(top[0].messageId, m.id);
      assert.ok(Math.abs(top[0].score - 1) < 1e-6);
    } finally {
      db.close();
      await rt.dispose();
    }
  });
});

describe('runtime: worker-backed archive', () => {
  it('queries and builds/searches the vector index in the engine worker, with the same results', async () => {
    const cache = fs.mkdtempSync(path.join(root, 'wcache-'));
    const rt = createRuntime(options(curated.path, { openArchive: workerOpener(), cacheDir: cache }));
    try {
      const st = await rt.describe();
      assert.equal(st.summary?.messages, curated.messages.length);
      const s = await rt.context.semantic();
      assert.ok(s.available, s.available ? '' : s.reason);
      const q = [0.5, 0.5, -1, 0.25, 0, 1, -0.5, 0.1];
      const got = await s.index.search(Float32Array.from(q), 8);
      const want = expectedTopK(curated.path, 'test-embed', q, 8);
      assert.deepEqual(
        got.map((h) => h.messageId),
        want.map((h) => h.messageId),
      );
      // The cache file is written after the index answers (async I/O in the engine worker).
      await until(() => fs.readdirSync(cache).some((f) => f.endsWith('.idx')));
    } finally {
      await rt.dispose();
    }
  });

  it("a custom opener's vectorIndex builds the index in the worker", async () => {
    const { startEngineWorker } = await import('../../src/engine/index');
    const rt = createRuntime(
      options(curated.path, {
        openArchive: async (p) => {
          const client = await startEngineWorker({ archivePath: p });
          return {
            archive: client,
            path: client.path,
            schemaVersion: client.schemaVersion,
            vectorIndex: (model, o) => client.vectorIndex(model, o),
          };
        },
      }),
    );
    try {
      const s = await rt.context.semantic();
      assert.ok(s.available, s.available ? '' : s.reason);
      const { VectorIndexProxy } = await import('../../src/engine/vector-proxy');
      assert.ok(s.index instanceof VectorIndexProxy, 'the index lives in the worker');
      const q = [1, 1, 1, 1, -1, -1, -1, -1];
      assert.deepEqual(
        (await s.index.search(Float32Array.from(q), 5)).map((h) => h.messageId),
        expectedTopK(curated.path, 'test-embed', q, 5).map((h) => h.messageId),
      );
    } finally {
      await rt.dispose();
    }
  });
});

describe('runtime: openers that cannot build an index', () => {
  it('an opener with neither an in-thread archive nor vectorIndex leaves semantic search unavailable, saying why', async () => {
    const { startEngineWorker } = await import('../../src/engine/index');
    const rt = createRuntime(
      options(curated.path, {
        openArchive: async (p) => {
          const client = await startEngineWorker({ archivePath: p });
          return { archive: client, path: client.path, schemaVersion: client.schemaVersion };
        },
      }),
    );
    try {
      const s = await rt.context.semantic();
      assert.equal(s.available, false);
      assert.match(s.available ? '' : s.reason, /not open in this thread; pass a buildVectorIndex/);
      assert.ok((await (await rt.context.archive()).summary()).messages > 0, 'keyword side still served');
    } finally {
      await rt.dispose();
    }
  });
});

describe('runtime helpers', () => {
  it('defaultCacheDir follows XDG and platform conventions', () => {
    assert.equal(defaultCacheDir({ XDG_CACHE_HOME: '/x/cache' }, 'linux', '/home/u'), '/x/cache/msgbrowse-vscode');
    assert.equal(defaultCacheDir({}, 'linux', '/home/u'), '/home/u/.cache/msgbrowse-vscode');
    assert.equal(
      defaultCacheDir({ XDG_CACHE_HOME: 'relative' }, 'linux', '/home/u'),
      '/home/u/.cache/msgbrowse-vscode',
    );
    assert.equal(defaultCacheDir({}, 'darwin', '/Users/u'), '/Users/u/Library/Caches/msgbrowse-vscode');
    // An empty or relative HOME never means "here" (the current folder may hold the archive).
    assert.equal(defaultCacheDir({}, 'linux', ''), path.join(os.tmpdir(), '.cache', 'msgbrowse-vscode'));
    assert.equal(defaultCacheDir({}, 'linux', '~'), path.join(os.tmpdir(), '.cache', 'msgbrowse-vscode'));
    assert.ok(isBesideArchive('/data', '/data/msgbrowse.sqlite'));
    assert.ok(isBesideArchive('/data/cache', '/data/msgbrowse.sqlite'));
    assert.ok(!isBesideArchive('/home/u/.cache/msgbrowse-vscode', '/data/msgbrowse.sqlite'));
  });

  it('SharedTask: detached work survives its waiters cancelling', async () => {
    let seen: AbortSignal | undefined;
    const t = new SharedTask<number>(async (signal) => {
      seen = signal;
      await new Promise((r) => setTimeout(r, 20));
      return 7;
    });
    t.detach();
    const ac = new AbortController();
    const w = t.wait(ac.signal);
    ac.abort();
    await assert.rejects(w);
    assert.equal(await t.observe(), 7);
    assert.equal(seen?.aborted, false);
  });
});

describe('runtime: the model-facing context keeps every setting of the base', () => {
  it('with exclusions active, redaction mode and the disclosure hook still reach the MCP server', async () => {
    const seen: unknown[] = [];
    for (const redact of [true, false]) {
      const rt = createRuntime(
        options(curated.path, {
          redact,
          disclose: (e) => seen.push(e),
          privacy: { excludeConversations: [curated.conversations[0].name] },
        }),
      );
      try {
        assert.equal(rt.context.redact, redact, 'redaction mode');
        assert.equal(typeof rt.context.disclose, 'function', 'disclosure hook');
        await rt.reload({ ...rt.settings, redact: !redact });
        assert.equal(rt.context.redact, !redact, 'a reload reaches the model-facing view');
        assert.notEqual(rt.context.archive, rt.personal.archive, 'the archive is the filtered view');
      } finally {
        await rt.dispose();
      }
    }
  });

  it('reload takes the whole settings: redaction flipped reaches the next call without a reopen, a new archive reopens', async () => {
    const secrets = buildSecretsArchive(fs.mkdtempSync(path.join(root, 'secrets-')));
    const opened: string[] = [];
    const rt = createRuntime(options(secrets.path, { openArchive: (p) => (opened.push(p), inThreadOpener(p)) }));
    const codeSent = async () => {
      const archive = await rt.context.archive();
      const req = { query: 'verification', limit: 5, redact: redactsFor(rt.context) };
      const { hits } = await hybridSearch(rt.context, archive, req, new AbortController().signal);
      assert.ok(hits.length > 0, 'the search finds the code message');
      return hits.some((h) => h.text.includes('483920'));
    };
    try {
      assert.equal(await codeSent(), false, 'redacted by default');
      assert.equal(await rt.reload({ ...rt.settings, redact: false }), false, 'no reopen for redaction');
      assert.equal(await codeSent(), true, 'the next call sends the code');
      assert.equal(await rt.reload({ ...rt.settings, redact: true }), false);
      assert.equal(await codeSent(), false, 'and redacts it again');
      assert.equal(await rt.reload({ ...rt.settings }), false, 'the same settings change nothing');
      assert.deepEqual(opened, [secrets.path], 'opened once');
      assert.equal(await rt.reload({ ...rt.settings, archivePath: curated.path }), true, 'another archive reopens');
      assert.equal((await (await rt.context.archive()).summary()).messages, curated.messages.length);
      assert.deepEqual(opened, [secrets.path, curated.path]);
      assert.equal(rt.context.redact, true, 'the other settings stay');
    } finally {
      await rt.dispose();
    }
  });

  it('the privacy settings together (what the extension applies on any privacy change) take effect at once, without a reopen', async () => {
    const rt = createRuntime(options(curated.path, { redact: false }));
    try {
      const before = await rt.personal.archive();
      const name = curated.conversations[0].name;
      await rt.reload({ ...rt.settings, privacy: { excludeConversations: [name] }, redact: true, answerBudget: 4096 });
      assert.equal(rt.context.redact, true);
      assert.equal(rt.context.answerBudget, 4096);
      assert.ok(
        !(await (await rt.context.archive()).listConversations()).some((c) => c.name === name),
        'the exclusion applies',
      );
      assert.equal(await rt.personal.archive(), before, 'nothing reopened');
    } finally {
      await rt.dispose();
    }
  });
});
