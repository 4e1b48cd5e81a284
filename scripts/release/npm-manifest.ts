/** The npm package of the CLI: its bundle and WASM, README and LICENSE; no dependencies, no install scripts. */
import { CLI_DESCRIPTION, CLI_NAME, type PackageInfo } from './package-info';

/** What `dist/cli.js` reads at run time (its workers, the engines, the MCP App view) and the bundles' legal notices. */
export const CLI_FILES = [
  'cli.js',
  'cli.js.LEGAL.txt',
  'engine-worker.js',
  'engine-worker.js.LEGAL.txt',
  'index-build-worker.js',
  'index-build-worker.js.LEGAL.txt',
  'sqlite3.wasm',
  'vector-kernel.wasm',
  'thread-app.html',
];

export function npmManifest(pkg: PackageInfo) {
  return {
    name: CLI_NAME,
    version: pkg.version,
    description: CLI_DESCRIPTION,
    license: pkg.license,
    repository: { type: 'git', url: `git+${pkg.repository.url.replace(/^git\+/, '')}` },
    homepage: pkg.homepage,
    bugs: pkg.bugs,
    keywords: pkg.keywords,
    // The MCP Registry proves the package is ours by this name (server.json's `name`).
    mcpName: pkg.mcpName,
    bin: { [CLI_NAME]: 'dist/cli.js' },
    files: ['dist'],
    engines: { node: pkg.engines.node },
  };
}
