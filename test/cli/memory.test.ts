/**
 * The CLI keeps V8's young generation at its starting size (src/cli/memory.ts): a process that loads the module
 * and then allocates like a busy server (many objects surviving a scavenge or two) keeps a small new space, where
 * the same process without it grows one to many times the size. Both run in a child node, as the CLI does.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const MEMORY_MODULE = path.resolve(__dirname, '../../src/cli/memory.ts');

/** new_space size in MB after allocating objects of which a good share survives (the CLI's startup and calls). */
function newSpaceMb(load: boolean): number {
  const script = `
    ${load ? `require(${JSON.stringify(MEMORY_MODULE)});` : ''}
    const v8 = require('node:v8');
    let keep = [];
    for (let i = 0; i < 2e6; i++) { keep.push({ a: i, b: 'x' + i }); if (keep.length > 20000) keep = []; }
    const s = v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
    process.stdout.write(String(s.space_size / 1048576));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' });
  return Number(out);
}

describe('the CLI keeps a small young generation', () => {
  it('stays at its starting size with the module loaded, and grows without it', () => {
    const kept = newSpaceMb(true);
    const grown = newSpaceMb(false);
    assert.ok(kept <= 4, `new space with memory.ts: ${kept} MB`);
    assert.ok(grown >= 4 * kept, `new space without it: ${grown} MB (with it: ${kept} MB)`);
  });
});

describe("the CLI's entry imports it before anything else", () => {
  it("memory.ts is main.ts's first import", () => {
    const source = fs.readFileSync(path.resolve(__dirname, '../../src/cli/main.ts'), 'utf8');
    const first = /^import\s[^;]*;/m.exec(source)?.[0];
    assert.equal(first, "import './memory';");
  });
});

describe('it survives the start of worker threads (src/engine/v8-flags.ts)', () => {
  const V8_FLAGS = path.resolve(__dirname, '../../src/engine/v8-flags.ts');
  const WORKER_FLAGS = path.resolve(__dirname, '../../src/engine/worker-flags.ts');
  /** new_space in MB of a process that loads memory.ts, starts a worker thread as `how` says, then allocates. */
  function afterWorker(how: 'plain' | 'online' | 'inside'): number {
    const script = `
      require(${JSON.stringify(MEMORY_MODULE)});
      const { keepFlagsAcross, keptV8Flags } = require(${JSON.stringify(V8_FLAGS)});
      const { Worker } = require('node:worker_threads');
      const v8 = require('node:v8');
      const api = require.resolve('tsx/cjs/api');
      const code = ${JSON.stringify(how)} === 'inside'
        ? 'require(' + JSON.stringify(api) + ').register(); require(' + JSON.stringify(${JSON.stringify(WORKER_FLAGS)}) + '); require("node:worker_threads").parentPort.postMessage(1)'
        : 'require("node:worker_threads").parentPort.postMessage(1)';
      const w = new Worker(code, { eval: true, workerData: { keepV8Flags: [...keptV8Flags()] } });
      if (${JSON.stringify(how)} === 'online') keepFlagsAcross(w);
      w.once('message', () => setTimeout(() => {
        let keep = [];
        for (let i = 0; i < 2e6; i++) { keep.push({ a: i, b: 'x' + i }); if (keep.length > 20000) keep = []; }
        const s = v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
        process.stdout.write(String(s.space_size / 1048576));
        process.exit(0);
      }, 20));
    `;
    return Number(execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' }));
  }

  it("a worker's start resets the flag for the whole process; re-applied inside the worker, or once it is online, it holds", () => {
    const plain = afterWorker('plain');
    const online = afterWorker('online');
    const inside = afterWorker('inside');
    assert.ok(online <= 4, `re-applied once the worker was online: ${online} MB`);
    assert.ok(inside <= 4, `re-applied by the worker as it started: ${inside} MB`);
    assert.ok(plain >= 4 * Math.max(online, inside), `not re-applied: ${plain} MB (re-applied: ${online} / ${inside} MB)`);
  });
});
