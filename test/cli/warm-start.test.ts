/** Start warm (issue #15): the CLI begins compiling the WASM engine as it starts, before the archive is even checked. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { main } from '../../src/cli/main';
import { engineWarmth } from '../archive/engine-warmth';

it('main() starts the engine compile at start-up (here: before it refuses a missing archive)', async () => {
  assert.equal(engineWarmth().compileStarted, false);
  const env = { ...process.env, MSGBROWSE_LOG_LEVEL: 'error' };
  await assert.rejects(main(['--archive', '/nonexistent/msgbrowse.sqlite'], env), /archive not found/);
  assert.equal(engineWarmth().compileStarted, true);
});
