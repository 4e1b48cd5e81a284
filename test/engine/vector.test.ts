/**
 * Vector indexes living in the engine worker answer exactly like the same index built in-thread (curated archive,
 * both models, with and without filters, from memory and from the persistent cache); VectorIndexError codes and
 * messages cross the boundary; disposal and unknown models fail clearly.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openArchive, type Archive } from '../../src/archive';
import type { VectorFilter, VectorIndex } from '../../src/search/types';
import { buildVectorIndex, VectorIndexError } from '../../src/search/vector';
import { startEngineWorker, type EngineClient } from '../../src/engine';
import Database from 'better-sqlite3';
import { inThread } from '../../src/archive';
import { defaultVectorIndexBuilder } from '../../src/core/index';
import { buildCuratedArchive, CURATED_MODELS, embedText, openWritable, type CuratedArchive } from '../fixtures';
import { archivePathIn, buildArchive } from '../fixtures/build';
import { helpedScans } from './helped-scans';
import { outcome } from './outcome';

let dir: string;
let curated: CuratedArchive;
let sync: Archive;
let engine: EngineClient;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-vector-'));
  curated = buildCuratedArchive(path.join(dir, 'archive'));
  sync = await openArchive(curated.path);
  engine = await startEngineWorker({ archivePath: curated.path });
});

after(async () => {
  await engine?.close();
  sync?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function filters(): (VectorFilter | undefined)[] {
  const m = curated.marks;
  return [
    undefined,
    { conversationId: m.leaseAgreement.conversationId },
    { source: 'whatsapp' },
    { sender: 'Harper' },
    { startUnix: m.legacy2017.tsUnix },
    { endUnix: m.legacy2015.tsUnix, source: 'imessage' },
    { sender: 'nobody at all' },
  ];
}

async function compareIndexes(local: VectorIndex, remote: VectorIndex, dim: number, model: string): Promise<void> {
  assert.equal(remote.model, local.model);
  assert.equal(remote.dim, local.dim);
  assert.equal(remote.size, local.size);
  const queries = ['lease agreement', 'trip to the cabin', 'coffee', 'deposit sent', 'ok'].map(
    (t) => new Float32Array(embedText(t, dim, model)),
  );
  let nonEmpty = 0;
  for (const q of queries) {
    for (const k of [1, 5, 50, 1000]) {
      for (const f of filters()) {
        const expected = await local.search(q, k, f);
        const actual = await remote.search(q, k, f);
        assert.deepStrictEqual(actual, expected, `k=${k} filter=${JSON.stringify(f)}`);
        if (expected.length) nonEmpty++;
      }
    }
  }
  assert.ok(nonEmpty > 0);
}

describe('engine worker: vector indexes', () => {
  for (const { model, dim } of CURATED_MODELS) {
    it(`${model}: in-memory and cached indexes in the worker answer exactly like an in-thread index`, async () => {
      const local = await buildVectorIndex(sync.embeddings(model), { model, dim });
      const inMemory = await engine.vectorIndex(model);
      const cacheDir = path.join(dir, `cache-${model}`);
      const built = await engine.vectorIndex(model, { cacheDir });
      const loaded = await engine.vectorIndex(model, { cacheDir });
      assert.equal(fs.readdirSync(cacheDir).length, 1, 'one cache file per (archive, model)');
      for (const remote of [inMemory, built, loaded]) await compareIndexes(local, remote, dim, model);
      for (const i of [local, inMemory, built, loaded]) i.dispose();
    });
  }

  it('VectorIndexError codes and messages cross the boundary', async () => {
    const { model, dim } = CURATED_MODELS[0];
    const local = await buildVectorIndex(sync.embeddings(model), { model, dim });
    const remote = await engine.vectorIndex(model);
    const bad: [Float32Array, number, VectorFilter?][] = [
      [new Float32Array(dim + 1).fill(1), 5],
      [new Float32Array(dim), 5],
      [new Float32Array(dim).fill(Number.NaN), 5],
      [new Float32Array(dim).fill(1), 0],
      [new Float32Array(dim).fill(1), 2.5],
    ];
    for (const [q, k, f] of bad) {
      const expected = await outcome(() => local.search(q, k, f));
      const actual = await outcome(() => remote.search(q, k, f));
      assert.equal(expected.ok, false);
      assert.deepStrictEqual(actual, expected);
    }
    const err = await remote.search(new Float32Array(dim + 1), 5).catch((e: unknown) => e);
    assert.ok(err instanceof VectorIndexError);
    assert.equal(err.code, 'dimension_mismatch');
    local.dispose();
    remote.dispose();
  });

  it('an unknown model fails like the in-thread build', async () => {
    const expected = await outcome(() =>
      buildVectorIndex(sync.embeddings('no-such-model'), { model: 'no-such-model' }),
    );
    const actual = await outcome(() => engine.vectorIndex('no-such-model'));
    assert.equal(expected.ok, false);
    assert.deepStrictEqual(actual, expected);
  });

  it('a disposed index rejects searches with a clear message (dispose is idempotent)', async () => {
    const { model, dim } = CURATED_MODELS[1];
    const index = await engine.vectorIndex(model);
    const q = new Float32Array(embedText('coffee', dim, model));
    assert.ok((await index.search(q, 3)).length > 0);
    index.dispose();
    index.dispose();
    await assert.rejects(index.search(q, 3), /was disposed/);
  });

  it('the query vector is copied, so the caller may reuse its buffer', async () => {
    const { model, dim } = CURATED_MODELS[0];
    const index = await engine.vectorIndex(model);
    const q = new Float32Array(embedText('lease agreement', dim, model));
    const first = index.search(q, 5);
    q.fill(0);
    const hits = await first;
    assert.equal(hits.length, 5);
    index.dispose();
  });
});

describe('scans shared with the client thread (helpScans, as the CLI runs)', () => {
  // 1536 dimensions: 2730 rows per chunk, so 6000 messages make 3 chunks to share.
  const model = 'share-embed';
  const dim = 1536;
  let file: string;
  let own: Archive;
  let helping: EngineClient;

  before(async () => {
    file = buildArchive({
      file: archivePathIn(path.join(dir, 'shared-scans')),
      conversations: [0, 1, 2].map((c) => ({
        source: c === 1 ? 'whatsapp' : 'signal',
        name: `Group ${c}`,
        messages: Array.from({ length: 2000 }, (_, i) => ({
          sender: i % 3 ? 'Ada' : 'Me',
          body: `message ${c}-${i} about ${['the lease', 'coffee', 'the cabin trip', 'a deposit', 'dinner'][i % 5]} ${i % 7}`,
          ts: `2024-0${1 + (i % 9)}-1${i % 10} 1${i % 10}:00:00`,
        })),
      })),
      embeddings: [{ model, dim }],
    }).path;
    own = await openArchive(file);
    helping = await startEngineWorker({ archivePath: file, helpScans: true });
  });

  after(async () => {
    await helping?.close();
    own?.close();
  });

  it('answers exactly what one thread answers, with the chunks split between the threads', async () => {
    const local = await buildVectorIndex(own.embeddings(model), { model, dim });
    const remote = await helping.vectorIndex(model);
    const helped = helpedScans();
    assert.equal(remote.size, 6000);
    const texts = ['lease agreement', 'trip to the cabin', 'coffee', 'deposit sent', 'dinner 3', 'message 1-77'];
    for (const t of texts) {
      const q = new Float32Array(embedText(t, dim, model));
      for (const k of [1, 20, 100])
        assert.deepStrictEqual(await remote.search(q, k), await local.search(q, k), `${t} k=${k}`);
    }
    assert.equal(helped.searches, texts.length * 3, 'every unfiltered search was shared');
    // Which thread takes which chunk depends on timing (this thread starts as soon as it has sent the search, the
    // worker when it wakes up); this thread takes at most 2 of the 3 chunks of each.
    assert.ok(helped.rows > 0, 'the client thread scored rows');
    assert.ok(helped.rows <= helped.searches * 2 * 2730, 'the worker scored rows too');

    // Filtered searches, and searches started while a shared one is in flight, run in the worker alone.
    const before = helped.searches;
    const q = new Float32Array(embedText('coffee', dim, model));
    for (const f of [
      { source: 'whatsapp' },
      { sender: 'Me' },
      { excludeConversationIds: [own.listConversations()[0].id] },
    ]) {
      assert.deepStrictEqual(await remote.search(q, 20, f), await local.search(q, 20, f), JSON.stringify(f));
    }
    assert.equal(helped.searches, before, 'filtered searches are not shared');
    const concurrent = texts.map((t) => new Float32Array(embedText(t, dim, model)));
    const answers = await Promise.all(concurrent.map((v) => remote.search(v, 20)));
    for (const [i, v] of concurrent.entries())
      assert.deepStrictEqual(answers[i], await local.search(v, 20), `concurrent ${texts[i]}`);
    assert.equal(helped.searches, before + 1, 'one shared search at a time');
    local.dispose();
    remote.dispose();
  });

  // A timeout: a search whose vector.helped was dropped would never end (the bug this test found), not fail.
  it('a search cancelled at once or once sent, then the next one: the next answers exactly', {
    timeout: 60_000,
  }, async () => {
    const local = await buildVectorIndex(own.embeddings(model), { model, dim });
    {
      const remote = await helping.vectorIndex(model);
      const helped = helpedScans();
      for (const t of ['coffee', 'the lease', 'dinner 5']) {
        const q = new Float32Array(embedText(t, dim, model));
        // Cancelled before it is sent, and once this thread has helped and the worker has it.
        for (const late of [false, true]) {
          const ctrl = new AbortController();
          const cancelled = remote.search(q, 20, undefined, ctrl.signal);
          if (late) await new Promise((r) => setImmediate(r));
          ctrl.abort();
          await assert.rejects(cancelled, { name: 'AbortError' });
          assert.deepStrictEqual(
            await remote.search(q, 20),
            await local.search(q, 20),
            `${t}, cancelled ${late ? 'late' : 'at once'}`,
          );
        }
      }
      assert.ok(helped.searches >= 6);
      local.dispose();
      remote.dispose();
    }
  });
});

/** The model's stored vectors whose message exists, counted apart from our code (the orphan row is left out). */
function sqlCoverage(model: string, file = curated.path): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(
        'SELECT count(*) AS n FROM embeddings e WHERE e.model = ? AND e.message_hash IN (SELECT hash FROM messages)',
      )
      .get(model) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

function buildRequest(own: Archive, model: string, dim: number, onProgress?: () => void) {
  return {
    archive: { archive: inThread(own), sync: own, path: own.path, schemaVersion: own.schemaVersion },
    model,
    dim,
    count: own.embeddingModels().find((m) => m.model === model)!.count,
    signal: new AbortController().signal,
    log: () => {},
    ...(onProgress ? { onProgress } : {}),
  };
}

describe('the vector coverage a build counted is kept for search receipts', () => {
  for (const { model, dim } of CURATED_MODELS) {
    it(`${model}: built, then loaded from the cache, in the worker: the receipt's figure is SQL's`, async () => {
      const expected = sqlCoverage(model);
      const cacheDir = fs.mkdtempSync(path.join(dir, `cov-${model}-`));
      for (const pass of ['build', 'cache load']) {
        const fresh = await startEngineWorker({ archivePath: curated.path });
        try {
          const fp = (await fresh.summary()).fingerprint;
          const index = await fresh.vectorIndex(model, { cacheDir, fingerprint: fp });
          assert.equal(index.dim, dim);
          assert.equal((await fresh.scopeCounts({}, model)).withVectors, expected, pass);
        } finally {
          await fresh.close();
        }
      }
    });
  }

  it("in-thread builds keep it; a fingerprint that is not the archive's keeps nothing", async () => {
    const { model, dim } = CURATED_MODELS[0];
    const expected = sqlCoverage(model);
    const own = await openArchive(curated.path);
    try {
      assert.equal(own.primeModelCoverage(model, 5, 'ino:1:2|-'), false, 'stale fingerprint');
      await defaultVectorIndexBuilder(buildRequest(own, model, dim));
      // Already kept by the build, so another figure is refused.
      assert.equal(own.primeModelCoverage(model, expected + 1, own.summary().fingerprint), false);
      assert.equal(own.scopeCounts({}, model).withVectors, expected);
    } finally {
      own.close();
    }
  });

  it('a build the archive changed under keeps nothing: the receipt counts the archive as it is now', async () => {
    const { model, dim } = CURATED_MODELS[0];
    const copy = path.join(fs.mkdtempSync(path.join(dir, 'changing-')), 'msgbrowse.sqlite');
    fs.copyFileSync(curated.path, copy);
    const own = await openArchive(copy);
    try {
      let changed = false;
      await defaultVectorIndexBuilder(
        buildRequest(own, model, dim, () => {
          if (changed) return;
          changed = true;
          // msgbrowse removes a vector while the build runs.
          const w = openWritable(copy);
          try {
            w.prepare(
              'DELETE FROM embeddings WHERE rowid = (SELECT min(e.rowid) FROM embeddings e JOIN messages m ON m.hash = e.message_hash WHERE e.model = ?)',
            ).run(model);
          } finally {
            w.close();
          }
        }),
      );
      assert.equal(changed, true);
      const now = sqlCoverage(model, copy);
      // Nothing was kept for the files as they are now (a stale figure would be refused here)…
      assert.equal(own.primeModelCoverage(model, now + 7, own.summary().fingerprint), true);
      assert.equal(own.scopeCounts({}, model).withVectors, now + 7, 'the figure kept just now is the one served');
    } finally {
      own.close();
    }
    const fresh = await openArchive(copy);
    try {
      assert.equal(fresh.scopeCounts({}, model).withVectors, sqlCoverage(model, copy), "…and a fresh count is SQL's");
    } finally {
      fresh.close();
    }
  });
});
