/** Start warm (issue #15): a worker started after the host compiled the engine gets the compiled module and serves. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, it } from 'node:test';
import { compiledEngineModule } from '../../src/archive/wasm-engine';
import { startEngineWorker } from '../../src/engine';
import { engineWarmth } from '../archive/engine-warmth';
import { buildCuratedArchive, type CuratedArchive } from '../fixtures';

let root: string;
let curated: CuratedArchive;
before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-warmw-'));
  curated = buildCuratedArchive(path.join(root, 'curated'));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

it('starting a worker starts the host-side compile; a worker started after it instantiates the shared module', async () => {
  assert.equal(engineWarmth().compileStarted, false);
  const first = await startEngineWorker({ archivePath: curated.path });
  try {
    assert.equal(engineWarmth().compileStarted, true, 'startEngineWorker prewarms the host-side module');
    assert.ok((await first.summary()).messages > 0);
  } finally {
    await first.close();
  }
  await compiledEngineModule();
  const second = await startEngineWorker({ archivePath: curated.path });
  try {
    const hits = await second.searchKeyword({ query: 'lease', limit: 5 });
    assert.ok(hits.length > 0, 'a worker handed the compiled module answers queries');
  } finally {
    await second.close();
  }
  assert.equal(engineWarmth().loaded, false, 'the host thread itself never loaded an engine: the workers did');
});
