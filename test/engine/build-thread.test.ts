/**
 * A vector index build never holds the thread that answers archive calls: it runs in an index-build worker of its
 * own. The build thread is frozen outright (a wrapper of the build script blocks it synchronously as it posts its
 * result); archive calls sent meanwhile must all be answered while the build is still pending. If the build ran on
 * the engine worker's thread, every one of them would wait for the frozen build.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startEngineWorker, type EngineClient } from '../../src/engine';
import { buildCuratedArchive, CURATED_MODELS, type CuratedArchive } from '../fixtures';

let dir: string;
let curated: CuratedArchive;
let engine: EngineClient;
const STALL_MS = 4000;
const logs: string[] = [];

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'build-thread-'));
  curated = buildCuratedArchive(path.join(dir, 'archive'));
  const frozen = path.join(dir, 'frozen-build.ts');
  fs.writeFileSync(
    frozen,
    `const { parentPort } = require('node:worker_threads');
const post = parentPort.postMessage.bind(parentPort);
parentPort.postMessage = (msg, transfer) => {
  if (msg.type === 'built') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${STALL_MS});
  post(msg, transfer);
};
require(${JSON.stringify(path.resolve(__dirname, '../../src/engine/build-host.ts'))});
`,
  );
  // The first engine of this process: the host's compile of sqlite3.wasm is still running when it is asked for,
  // and neither the engine worker nor its build workers may compile another (the host hands its module to the
  // engine worker, which hands the one it has to every build worker).
  engine = await startEngineWorker({
    archivePath: curated.path,
    buildScript: frozen,
    log: (_level, message) => logs.push(message),
  });
});

after(async () => {
  await engine?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('index builds run beside the engine worker, not on it', () => {
  it('archive calls are answered while a build is frozen', async () => {
    const { model, dim } = CURATED_MODELS[0];
    let started!: () => void;
    const progressed = new Promise<void>((resolve) => (started = resolve));
    let buildSettled = false;
    const building = engine.vectorIndex(model, { cacheDir: path.join(dir, 'cache'), onProgress: () => started() });
    void building.finally(() => (buildSettled = true)).catch(() => undefined);
    // A build that fails before its first progress event must fail the test, not hang it.
    await Promise.race([progressed, building.then(() => undefined)]);
    const answered: string[] = [];
    for (let i = 0; i < 5; i++) {
      const summary = await engine.summary();
      assert.equal(summary.messages, curated.messages.length);
      const hits = await engine.searchKeyword({ query: 'lease', limit: 3 });
      assert.ok(hits.length > 0);
      answered.push(`round ${i}: settled=${buildSettled}`);
    }
    assert.equal(buildSettled, false, `the build finished before the calls were answered: ${answered.join('; ')}`);
    const index = await building;
    assert.equal(index.dim, dim);
    const hits = await index.search(new Float32Array(dim).fill(1), 3);
    assert.equal(hits.length, 3);
    index.dispose();
  });

  it("the build thread instantiates the engine worker's compiled sqlite3.wasm instead of compiling it again", () => {
    // Set by the build above: its worker says when it had to compile (75-85 ms more on a first semantic call).
    assert.deepEqual(
      logs.filter((m) => m.includes('compiling sqlite3.wasm')),
      [],
    );
  });
});
