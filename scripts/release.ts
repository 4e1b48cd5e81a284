/**
 * `npm run release`: every artifact a person installs, built from a clean tree into release/:
 *   msgbrowse-vscode-<v>.vsix   the extension (VS Code Marketplace, Open VSX, or "Install from VSIX…")
 *   msgbrowse-mcp-<v>.tgz       the CLI's npm package (`npx msgbrowse-mcp`)
 *   msgbrowse-mcp-<v>.mcpb      an MCP Bundle (Claude Desktop and other bundle hosts)
 *   server.json                 the MCP Registry entry of the npm package
 *   SHA256SUMS                  over the four above
 * `--allow-dirty` builds from uncommitted changes (a trial run; `npm test` uses it). Fails on any vsce warning, a
 * VSIX over its size budget, an npm package holding more than the CLI runs, or a bundle `mcpb validate` refuses.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bundleManifest } from './release/mcpb-manifest';
import { CLI_FILES, npmManifest } from './release/npm-manifest';
import { PackageInfo } from './release/package-info';
import { serverJson } from './release/server-json';

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'release');
/** What the VSIX may weigh: 1.57 MB at 0.2.0 (SDK v2); growth past this is a decision, not an accident. */
const VSIX_BUDGET_BYTES = 1_600_000;

const pkg = PackageInfo.parse(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')));
const version = pkg.version;

function fail(message: string): never {
  console.error(`release: ${message}`);
  process.exit(1);
}

function run(cmd: string, args: string[], cwd = root): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
  const text = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${r.status}):\n${text}`);
  return text;
}

function checkVersion(): void {
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) fail(`package.json version "${version}" is not semver`);
  const changelog = fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
  const first = /^## \[([^\]]+)\] - \d{4}-\d{2}-\d{2}$/m.exec(changelog);
  if (first?.[1] !== version)
    fail(`CHANGELOG.md's newest release is ${first?.[1] ?? 'missing'}, package.json says ${version}: add its entry`);
}

function checkClean(): void {
  if (process.argv.includes('--allow-dirty'))
    return console.log('release: --allow-dirty: a trial from uncommitted changes');
  const status = execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });
  if (status.trim())
    fail(`the tree has uncommitted changes; commit or stash them (or --allow-dirty for a trial):\n${status}`);
}

function vsix(): string {
  const file = path.join(out, `${pkg.name}-${version}.vsix`);
  const text = run(path.join(root, 'node_modules/.bin/vsce'), ['package', '--no-dependencies', '--out', file]);
  if (/WARNING/i.test(text)) fail(`vsce warned:\n${text}`);
  const size = fs.statSync(file).size;
  if (size > VSIX_BUDGET_BYTES) fail(`the VSIX is ${size} bytes, over its budget of ${VSIX_BUDGET_BYTES}`);
  return file;
}

/** Copies the CLI's runtime files (and LICENSE, README) into `dir`, `dist/` kept as the bundle expects it. */
function stageCli(dir: string, distDir: string): void {
  fs.mkdirSync(path.join(dir, distDir), { recursive: true });
  for (const f of CLI_FILES) fs.copyFileSync(path.join(root, 'dist', f), path.join(dir, distDir, f));
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(dir, 'LICENSE'));
  fs.copyFileSync(path.join(root, 'docs', 'CLI.md'), path.join(dir, 'README.md'));
}

function npmPackage(): string {
  const dir = path.join(out, 'npm');
  stageCli(dir, 'dist');
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(npmManifest(pkg), null, 2)}\n`);
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', out], dir)) as {
    filename: string;
    files: { path: string }[];
  }[];
  const files = packed[0].files.map((f) => f.path).sort();
  const expected = ['LICENSE', 'README.md', 'package.json', ...CLI_FILES.map((f) => `dist/${f}`)].sort();
  if (JSON.stringify(files) !== JSON.stringify(expected))
    fail(`the npm package holds ${files.join(', ')}; expected exactly ${expected.join(', ')}`);
  fs.rmSync(dir, { recursive: true });
  return path.join(out, packed[0].filename);
}

function bundle(): string {
  const dir = path.join(out, 'mcpb');
  stageCli(dir, 'server');
  fs.copyFileSync(path.join(root, 'media', 'icon.png'), path.join(dir, 'icon.png'));
  fs.writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(bundleManifest(pkg), null, 2)}\n`);
  const mcpb = path.join(root, 'node_modules/.bin/mcpb');
  run(mcpb, ['validate', path.join(dir, 'manifest.json')]);
  const file = path.join(out, `msgbrowse-mcp-${version}.mcpb`);
  run(mcpb, ['pack', dir, file]);
  fs.rmSync(dir, { recursive: true });
  return file;
}

function main(): void {
  checkVersion();
  checkClean();
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  run('node', ['esbuild.js']);
  const artifacts = [vsix(), npmPackage(), bundle()];
  const registry = path.join(out, 'server.json');
  fs.writeFileSync(registry, `${JSON.stringify(serverJson(pkg), null, 2)}\n`);
  artifacts.push(registry);
  const sums = artifacts.map(
    (f) => `${createHash('sha256').update(fs.readFileSync(f)).digest('hex')}  ${path.basename(f)}`,
  );
  fs.writeFileSync(path.join(out, 'SHA256SUMS'), `${sums.join('\n')}\n`);
  for (const f of [...artifacts, path.join(out, 'SHA256SUMS')])
    console.log(`release: ${path.relative(root, f).padEnd(36)} ${fs.statSync(f).size.toLocaleString('en-US')} bytes`);
}

if (require.main === module) main();
