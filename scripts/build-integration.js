// Bundles the mocha integration suite (test/integration/suite/index.ts) to out/integration/suite.js (CJS) for the
// VS Code extension host. `vscode` and `mocha` stay external (provided by the host / node_modules).
const esbuild = require('esbuild');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

esbuild
  .build({
    entryPoints: [path.join(root, 'test/integration/suite/index.ts')],
    outfile: path.join(root, 'out/integration/suite.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', 'mocha'],
    sourcemap: 'inline',
    logLevel: 'warning',
  })
  .catch((e) => {
    console.error(e.message ?? e);
    process.exit(1);
  });
