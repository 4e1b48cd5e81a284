/**
 * The production path: the archive layer bundled by esbuild into CommonJS (with the
 * import.meta.url shim from esbuild.js) runs from a directory without node_modules, loading
 * sqlite3.wasm from beside the bundle.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { build } from 'esbuild';
import { buildMsgbrowseMcpFixture, REPO_ROOT } from '../fixtures';

let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-bundle-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

it('bundled CJS opens and searches an archive with no node_modules around', async () => {
  const entry = path.join(tmp, 'entry.ts');
  fs.writeFileSync(
    entry,
    `import { openArchive } from ${JSON.stringify(path.join(REPO_ROOT, 'src/archive'))};
(async () => {
  const a = await openArchive(process.argv[2]);
  const out = { snippets: a.searchKeyword({ query: 'lease', limit: 3 }).map((h) => h.snippet), messages: a.summary().messages };
  a.close();
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { process.stdout.write(JSON.stringify({ code: e.code, message: e.message })); });
`,
  );
  const out = path.join(tmp, 'dist');
  await build({
    entryPoints: { bundle: entry },
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'silent',
    inject: [path.join(REPO_ROOT, 'scripts/build/import-meta-url-shim.js')],
    define: { 'import.meta.url': 'import_meta_url' },
  });
  const run = (arg: string) =>
    JSON.parse(
      execFileSync(process.execPath, [path.join(out, 'bundle.js'), arg], { cwd: tmp, encoding: 'utf8' }),
    ) as Record<string, unknown>;
  const desc = buildMsgbrowseMcpFixture(path.join(tmp, 'archive'));
  // Without sqlite3.wasm beside it (and no node_modules to fall back to): a clear error.
  const missing = run(desc.path);
  assert.equal(missing.code, 'query_failed');
  assert.match(String(missing.message), /WebAssembly engine.*reinstall/);
  fs.copyFileSync(
    path.join(REPO_ROOT, 'node_modules/@sqlite.org/sqlite-wasm/dist/sqlite3.wasm'),
    path.join(out, 'sqlite3.wasm'),
  );
  assert.deepEqual(run(desc.path), { snippets: ['the \u0002lease\u0003 agreement is ready'], messages: 3 });
  assert.equal(run(path.join(tmp, 'nope')).code, 'missing_path');
});
