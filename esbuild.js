// Bundles every runtime entry into dist/ so the shipped extension and CLI need no node_modules.
//   node esbuild.js            production build (minified)
//   node esbuild.js --dev      sourcemaps, no minification
//   node esbuild.js --watch    rebuild on change
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const dev = process.argv.includes('--dev') || process.argv.includes('--watch');
const watch = process.argv.includes('--watch');
const root = __dirname;
const dist = path.join(root, 'dist');

/** Entries: [source, output name, platform, format, extra options]. Only existing sources are built. */
const entries = [
  { in: 'src/extension/extension.ts', out: 'extension', platform: 'node', external: ['vscode'] },
  { in: 'src/cli/main.ts', out: 'cli', platform: 'node', banner: '#!/usr/bin/env node' },
  { in: 'src/engine/host.ts', out: 'engine-worker', platform: 'node' },
  { in: 'src/engine/build-host.ts', out: 'index-build-worker', platform: 'node' },
  { in: 'media/viewer/main.ts', out: 'viewer', platform: 'browser', format: 'iife' },
].filter((e) => fs.existsSync(path.join(root, e.in)));

function copyAssets() {
  fs.mkdirSync(dist, { recursive: true });
  const wasm = require.resolve('@sqlite.org/sqlite-wasm/sqlite3.wasm');
  fs.copyFileSync(wasm, path.join(dist, 'sqlite3.wasm'));
  const kernel = path.join(root, 'src/search/kernel/build-kernel.js');
  if (fs.existsSync(kernel)) require(kernel).buildKernel(path.join(dist, 'vector-kernel.wasm'));
}

/**
 * The MCP App view (src/mcp/app-view.ts serves it as ui://msgbrowse/thread): media/app/main.ts bundled for the
 * browser and inlined with media/app/thread.css into media/app/thread.html, one self-contained document written to
 * dist/thread-app.html. Its CSP meta tag allows no network at all; script and style are only the inlined bundle.
 */
/**
 * zod's classic entry re-exports every locale (`z.locales`, ~200 KB minified) that the view never uses; its error
 * messages stay English (zod's own default, imported directly from locales/en.js). Keeps the inlined document small.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? { path: path.join(path.dirname(args.importer), '../locales/en.js'), namespace: 'zod-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

async function buildThreadApp() {
  const src = path.join(root, 'media/app');
  if (!fs.existsSync(path.join(src, 'main.ts'))) return;
  const out = await esbuild.build({
    entryPoints: [path.join(src, 'main.ts')],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    minify: !dev,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [zodEnglishOnly],
  });
  // Inline <script>/<style>: a "</script" inside the bundle's strings would end the element early.
  const js = out.outputFiles[0].text.replace(/<\/(script)/gi, '<\\/$1');
  const css = fs.readFileSync(path.join(src, 'thread.css'), 'utf8').replace(/<\/(style)/gi, '<\\/$1');
  const html = fs
    .readFileSync(path.join(src, 'thread.html'), 'utf8')
    .replace('/*__CSS__*/', () => css)
    .replace('/*__JS__*/', () => js);
  fs.writeFileSync(path.join(dist, 'thread-app.html'), html);
}

async function main() {
  fs.rmSync(dist, { recursive: true, force: true });
  copyAssets();
  const contexts = [];
  for (const e of entries) {
    const node = e.platform === 'node';
    const opts = {
      entryPoints: { [e.out]: path.join(root, e.in) },
      outdir: dist,
      bundle: true,
      platform: e.platform,
      format: e.format ?? 'cjs',
      target: node ? 'node20' : 'es2022',
      external: e.external ?? [],
      minify: !dev,
      sourcemap: dev ? 'linked' : false,
      legalComments: 'linked',
      logLevel: 'warning',
      banner: e.banner ? { js: e.banner } : undefined,
      ...(node
        ? {
            inject: [path.join(root, 'scripts/build/import-meta-url-shim.js')],
            define: { 'import.meta.url': 'import_meta_url' },
          }
        : {}),
    };
    if (watch) {
      const ctx = await esbuild.context(opts);
      await ctx.watch();
      contexts.push(ctx);
    } else {
      await esbuild.build(opts);
    }
  }
  await buildThreadApp();
  if (fs.existsSync(path.join(dist, 'cli.js'))) fs.chmodSync(path.join(dist, 'cli.js'), 0o755);
  if (!watch) {
    for (const f of fs.readdirSync(dist).sort()) {
      const size = fs.statSync(path.join(dist, f)).size;
      console.log(`dist/${f}  ${(size / 1024).toFixed(0)} KB`);
    }
  }
}

main().catch((err) => {
  console.error(err.message ?? err);
  process.exit(1);
});
