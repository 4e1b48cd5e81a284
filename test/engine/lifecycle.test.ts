/**
 * Engine worker lifecycle: worker script resolution, crash detection (exit and uncaught exception) with a clear
 * rejection of pending calls and a restart on the next call (vector indexes reload from their cache), close()
 * semantics, and no dangling handles (a process using the engine exits, whether or not it calls close()).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveWorkerScript, startEngineWorker, type EngineClient } from '../../src/engine';
import { buildCuratedArchive, CURATED_MODELS, embedText, type CuratedArchive } from '../fixtures';
import { helpedScans } from './helped-scans';

const ROOT = path.resolve(__dirname, '../..');
const HOST = path.join(ROOT, 'src/engine/host.ts');
const CRASH_EXIT_ID = -999;
const CRASH_THROW_ID = -998;
const CRASH_PRINT_ID = -997;

let dir: string;
let curated: CuratedArchive;
let crashScript: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-life-'));
  curated = buildCuratedArchive(path.join(dir, 'archive'));
  // A worker entry that behaves exactly like host.ts, except that two magic message ids crash it.
  const tsx = createRequire(__filename).resolve('tsx/cjs/api');
  crashScript = path.join(dir, 'crash-host.cjs');
  fs.writeFileSync(
    crashScript,
    `const { parentPort } = require('node:worker_threads');
function crashCheck(m) {
  if (m && m.type === 'call' && m.method === 'messageById' && m.args[0] === ${CRASH_EXIT_ID}) process.exit(7);
  if (m && m.type === 'call' && m.method === 'messageById' && m.args[0] === ${CRASH_PRINT_ID}) {
    console.log('stray output from the worker');
  }
  if (m && m.type === 'call' && m.method === 'messageById' && m.args[0] === ${CRASH_THROW_ID}) {
    throw new Error('boom in the engine');
  }
}
// Runs before the host's own handler, so the crashing request is never answered.
const on = parentPort.on.bind(parentPort);
parentPort.on = (event, fn) => on(event, event === 'message' ? (m) => { crashCheck(m); fn(m); } : fn);
require(${JSON.stringify(tsx)}).register();
require(${JSON.stringify(HOST)});
`,
  );
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('engine worker: script resolution', () => {
  it('runs the TypeScript entry through tsx in dev, and a built .js as is', () => {
    const dev = resolveWorkerScript();
    assert.equal(dev.eval, true);
    assert.ok(dev.file.includes(JSON.stringify(HOST)), dev.file);
    assert.ok(dev.file.includes('register()'));
    const built = resolveWorkerScript('/opt/ext/dist/engine-worker.js');
    assert.deepEqual(built, { file: '/opt/ext/dist/engine-worker.js', eval: false });
  });
});

describe('engine worker: crashes and restarts', () => {
  let engine: EngineClient;
  const logs: [string, string][] = [];

  before(async () => {
    engine = await startEngineWorker({
      archivePath: curated.path,
      workerScript: crashScript,
      log: (level, message) => logs.push([level, message]),
    });
  });

  after(async () => {
    await engine?.close();
  });

  it('a worker that exits rejects pending calls clearly, and the next call restarts it', async () => {
    const before = await engine.summary();
    const crashing = engine.messageById(CRASH_EXIT_ID);
    const queued = engine.messageById(curated.marks.cjk.id);
    await assert.rejects(crashing, /search engine worker stopped unexpectedly \(exit code 7\).*restarts/);
    await assert.rejects(queued, /search engine worker stopped unexpectedly/);
    assert.ok(logs.some(([l, m]) => l === 'error' && /stopped unexpectedly/.test(m)));
    assert.deepStrictEqual(await engine.summary(), before);
    assert.equal((await engine.messageById(curated.marks.cjk.id))?.body, curated.marks.cjk.body);
    assert.ok(logs.some(([l, m]) => l === 'warn' && /Restarting/.test(m)));
  });

  it('an uncaught exception in the worker is reported with its message', async () => {
    await assert.rejects(engine.messageById(CRASH_THROW_ID), (e: unknown) => {
      assert.ok(e instanceof Error);
      assert.match(e.message, /stopped unexpectedly \(boom in the engine\)/);
      return true;
    });
    assert.equal((await engine.messageById(curated.marks.emoji.id))?.hash, curated.marks.emoji.hash);
  });

  it("the worker's stdout goes to the log, never to this process's stdout", async () => {
    assert.equal(await engine.messageById(CRASH_PRINT_ID), undefined);
    for (let i = 0; i < 50 && !logs.some(([, m]) => /stray output/.test(m)); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(logs.some(([l, m]) => l === 'info' && m === 'worker output: stray output from the worker'));
  });

  it('a vector index survives a restart (reloaded from its cache on the next search)', async () => {
    const { model, dim } = CURATED_MODELS[0];
    const cacheDir = path.join(dir, 'cache');
    const index = await engine.vectorIndex(model, { cacheDir });
    const q = new Float32Array(embedText('lease agreement', dim, model));
    const hits = await index.search(q, 5);
    // The cache file is written after the index answers: crash once it is complete.
    for (
      let i = 0;
      i < 200 && !(fs.existsSync(cacheDir) && fs.readdirSync(cacheDir).some((f) => f.endsWith('.idx')));
      i++
    ) {
      await new Promise((r) => setTimeout(r, 25));
    }
    await assert.rejects(engine.messageById(CRASH_EXIT_ID), /stopped unexpectedly/);
    assert.deepStrictEqual(await index.search(q, 5), hits);
    assert.equal(fs.readdirSync(cacheDir).length, 1);
    index.dispose();
  });
});

describe('engine worker: a restart with scans shared (helpScans, as the CLI runs)', () => {
  it('the index reloads in the new worker and this thread helps its scans again', async () => {
    const engine = await startEngineWorker({ archivePath: curated.path, workerScript: crashScript, helpScans: true });
    try {
      const { model, dim } = CURATED_MODELS[0];
      const cacheDir = path.join(dir, 'cache-shared');
      const index = await engine.vectorIndex(model, { cacheDir });
      const helped = helpedScans();
      const q = new Float32Array(embedText('lease agreement', dim, model));
      const hits = await index.search(q, 5);
      assert.equal(helped.searches, 1);
      for (
        let i = 0;
        i < 200 && !(fs.existsSync(cacheDir) && fs.readdirSync(cacheDir).some((f) => f.endsWith('.idx')));
        i++
      ) {
        await new Promise((r) => setTimeout(r, 25));
      }
      await assert.rejects(engine.messageById(CRASH_EXIT_ID), /stopped unexpectedly/);
      assert.deepStrictEqual(await index.search(q, 5), hits);
      assert.equal(helped.searches, 2, 'shared with the restarted worker too');
      index.dispose();
    } finally {
      await engine.close();
    }
  });
});

describe('engine worker: close', () => {
  it('rejects pending calls, later calls and searches; close is idempotent', async () => {
    const engine = await startEngineWorker({ archivePath: curated.path });
    const { model } = CURATED_MODELS[1];
    const index = await engine.vectorIndex(model);
    // Either it is answered before the close gets through, or it is rejected as closed — never left hanging.
    const pending = engine.searchKeyword({ query: 'the', limit: 5 }).then(
      (hits) => assert.ok(Array.isArray(hits)),
      (e: unknown) => assert.match((e as Error).message, /closed/),
    );
    await engine.close();
    await pending;
    await assert.rejects(engine.summary(), /The archive engine is closed/);
    await assert.rejects(index.search(new Float32Array(4).fill(1), 3), /stopped|closed/);
    await engine.close();
  });

  it('a failed open leaves nothing running and can be retried', async () => {
    const missing = path.join(dir, 'nowhere', 'msgbrowse.sqlite');
    await assert.rejects(startEngineWorker({ archivePath: missing }), { name: 'ArchiveError', code: 'missing_path' });
    const engine = await startEngineWorker({ archivePath: curated.path });
    assert.equal((await engine.summary()).path, curated.path);
    await engine.close();
  });
});

describe('engine worker: no dangling handles', () => {
  for (const closes of [true, false]) {
    it(`a process that uses the engine exits by itself ${closes ? 'after close()' : 'even without close()'}`, () => {
      const script = `
        const { startEngineWorker } = require(${JSON.stringify(path.join(ROOT, 'src/engine/index.ts'))});
        (async () => {
          const engine = await startEngineWorker({ archivePath: ${JSON.stringify(curated.path)} });
          const s = await engine.summary();
          const index = await engine.vectorIndex(${JSON.stringify(CURATED_MODELS[0].model)});
          await index.search(new Float32Array(${CURATED_MODELS[0].dim}).fill(1), 3);
          ${closes ? 'await engine.close();' : ''}
          console.log('messages=' + s.messages);
        })().catch((e) => { console.error(e); process.exitCode = 1; });
      `;
      const res = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 30000,
      });
      assert.equal(res.error, undefined, `the process did not exit: ${String(res.error)}`);
      assert.equal(res.status, 0, res.stderr);
      assert.match(res.stdout, new RegExp(`messages=${curated.messages.length}`));
    });
  }
});
