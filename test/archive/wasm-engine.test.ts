/** Start warm (issue #15): the engine compiles once per thread, in the background when asked, and loads from that module. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, it } from 'node:test';
import { openArchive } from '../../src/archive';
import { compiledEngineModule, compiledEngineModuleNow, prewarmEngine } from '../../src/archive/wasm-engine';
import { buildCuratedArchive, type CuratedArchive } from '../fixtures';
import { engineWarmth } from './engine-warmth';

let root: string;
let curated: CuratedArchive;
before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-warm-'));
  curated = buildCuratedArchive(path.join(root, 'curated'));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

it('prewarmEngine starts the compile at once; the first open instantiates that module instead of compiling again', async () => {
  // node:test runs each file in its own process: nothing has touched the engine yet.
  assert.deepEqual(engineWarmth(), { compileStarted: false, compiled: false, compiles: 0, loaded: false });
  prewarmEngine();
  assert.equal(engineWarmth().compileStarted, true, 'the compile starts synchronously, before any query');
  assert.equal(engineWarmth().loaded, false);
  const module = await compiledEngineModule();
  assert.equal(compiledEngineModuleNow(), module);
  prewarmEngine(); // idempotent
  assert.equal(await compiledEngineModule(), module, 'compiled once per thread');
  const archive = await openArchive(curated.path);
  try {
    assert.ok(archive.summary().messages > 0);
  } finally {
    archive.close();
  }
  assert.equal(await compiledEngineModule(), module);
  assert.deepEqual(engineWarmth(), { compileStarted: true, compiled: true, compiles: 1, loaded: true });
});
