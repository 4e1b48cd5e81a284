/**
 * The shipped layout works: the worker entries bundled as `engine-worker.js` and `index-build-worker.js` (which the
 * engine worker starts for each index build) beside a bundled caller (and the
 * `.wasm` files beside both, as esbuild.js lays out dist/) answers queries and builds a vector index, from a
 * directory with no node_modules and no tsx — the caller finds the worker through its own `__dirname`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { buildCuratedArchive, CURATED_MODELS, type CuratedArchive } from '../fixtures';

const ROOT = path.resolve(__dirname, '../..');
let dir: string;
let out: string;
let curated: CuratedArchive;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-bundle-'));
  out = path.join(dir, 'dist');
  fs.mkdirSync(out);
  curated = buildCuratedArchive(path.join(dir, 'archive'));
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The node-bundle options of esbuild.js (CJS, node20, import.meta.url shim). */
async function bundle(entry: string, name: string): Promise<void> {
  await build({
    entryPoints: { [name]: entry },
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    logLevel: 'error',
    inject: [path.join(ROOT, 'scripts/build/import-meta-url-shim.js')],
    define: { 'import.meta.url': 'import_meta_url' },
  });
}

describe('engine worker: bundled layout', () => {
  it('a bundled caller starts dist/engine-worker.js and gets answers', async () => {
    fs.copyFileSync(require.resolve('@sqlite.org/sqlite-wasm/sqlite3.wasm'), path.join(out, 'sqlite3.wasm'));
    const kernel = require(path.join(ROOT, 'src/search/kernel/build-kernel.js')) as {
      buildKernel(file: string): void;
    };
    kernel.buildKernel(path.join(out, 'vector-kernel.wasm'));
    await bundle(path.join(ROOT, 'src/engine/host.ts'), 'engine-worker');
    await bundle(path.join(ROOT, 'src/engine/build-host.ts'), 'index-build-worker');
    const caller = path.join(dir, 'caller.ts');
    const { model, dim } = CURATED_MODELS[0];
    fs.writeFileSync(
      caller,
      `import { startEngineWorker } from ${JSON.stringify(path.join(ROOT, 'src/engine'))};
(async () => {
  const engine = await startEngineWorker({ archivePath: process.argv[2] });
  const summary = await engine.summary();
  const hits = await engine.searchKeyword({ query: 'lease', limit: 5 });
  const index = await engine.vectorIndex(${JSON.stringify(model)}, { cacheDir: process.argv[3] });
  const near = await index.search(new Float32Array(${dim}).fill(1), 3);
  await engine.close();
  console.log(JSON.stringify({ messages: summary.messages, hits: hits.length, size: index.size, near: near.length }));
})().catch((e) => { console.error(String(e && e.message)); process.exitCode = 1; });
`,
    );
    await bundle(caller, 'caller');
    const res = spawnSync(process.execPath, [path.join(out, 'caller.js'), curated.path, path.join(dir, 'cache')], {
      cwd: os.tmpdir(),
      encoding: 'utf8',
      timeout: 30000,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    assert.equal(res.status, 0, res.stderr);
    const result = JSON.parse(res.stdout.trim()) as { messages: number; hits: number; size: number; near: number };
    const embedded = curated.embeddings.find((e) => e.model === model);
    assert.equal(result.messages, curated.messages.length);
    assert.ok(result.hits > 0);
    assert.equal(result.size, (embedded?.count ?? 0) - (embedded?.orphanHashes.length ?? 0));
    assert.equal(result.near, 3);
  });
});
