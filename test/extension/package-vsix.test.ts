// The VSIX ships only what runs: the bundles, the .wasm files, webview assets, icons, the demo archive,
// README, CHANGELOG and LICENSE (README images are https links vsce rewrites) — never sources, tests, fixtures or node_modules. Checked with vsce's own file listing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '../..');

function vsceList(): string[] {
  const vsce = path.join(root, 'node_modules/@vscode/vsce/vsce');
  const out = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .sort();
}

describe('VSIX contents', () => {
  it('contains the runtime files and nothing else', () => {
    if (!fs.existsSync(path.join(root, 'dist/extension.js')))
      execFileSync(process.execPath, ['esbuild.js'], { cwd: root });
    const files = vsceList();
    for (const required of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/extension.js',
      'dist/cli.js',
      'dist/engine-worker.js',
      'dist/index-build-worker.js',
      'dist/viewer.js',
      'dist/thread-app.html',
      'dist/sqlite3.wasm',
      'dist/vector-kernel.wasm',
      'media/icon.png',
      'media/viewer/viewer.css',
      'media/demo/msgbrowse.sqlite.gz',
      'CHANGELOG.md',
    ]) {
      assert.ok(files.includes(required), `${required} missing from the VSIX: ${files.join(', ')}`);
    }
    const stray = files.filter((f) => /\.(ts|map)$|^(src|test|scripts|bench|node_modules)\/|tsconfig/.test(f));
    assert.deepEqual(stray, [], `files that do not run were packaged: ${stray.join(', ')}`);
    // The agent suite's scripted-model extension (test/integration/agent-extension) is a test fixture, never shipped.
    assert.ok(
      fs.existsSync(path.join(root, 'test/integration/agent-extension/package.json')),
      'the test extension exists where this test looks',
    );
    assert.deepEqual(
      files.filter((f) => f.includes('agent-extension') || (f.endsWith('extension.js') && f !== 'dist/extension.js')),
      [],
      'the test model extension was packaged',
    );
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      main: string;
      icon: string;
      contributes?: Record<string, unknown>;
    };
    assert.ok(
      !manifest.contributes?.languageModelChatProviders,
      'the shipped manifest contributes no language model (only the test extension does)',
    );
    assert.ok(files.includes(manifest.main.replace(/^\.\//, '')), 'package.json main is packaged');
    assert.ok(files.includes(manifest.icon), 'package.json icon is packaged');
  });

  // 4.8 MB since the SDK's v2 line (#44): 4.59 MB, of it cli.js 1.6 MB (the server and, for the stdio bridge, the
  // client package, each with its own copy of the shared protocol code) and thread-app.html 411 KB (ext-apps 2.x
  // validates both protocol eras' messages). The extension bundle leaves the client out (it never runs the bridge).
  // Before: 4.5 MB since the MCP App view (#14), ~3.9 MB before it.
  it('stays small: bundles + wasm under 4.8 MB', () => {
    const bytes = vsceList().reduce((n, f) => n + fs.statSync(path.join(root, f)).size, 0);
    assert.ok(bytes < 4.8 * 1024 * 1024, `unpacked VSIX payload is ${(bytes / 1048576).toFixed(2)} MB`);
  });
});
