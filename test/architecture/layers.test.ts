/**
 * The layout rules of docs/ARCHITECTURE.md, checked on every import in src/: a layer imports only the layers below
 * it, only src/extension/ imports `vscode`, the two adapters (cli, extension) never import each other, file names
 * are kebab-case, and no two files share a name for different jobs.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(__dirname, '..', '..');
const SRC = path.join(ROOT, 'src');

/** What each layer may import (besides itself, node: built-ins and npm packages). */
const ALLOWED: Record<string, readonly string[]> = {
  archive: [],
  embed: [],
  search: ['archive'],
  engine: ['archive', 'search'],
  core: ['archive', 'embed', 'search', 'engine'],
  mcp: ['archive', 'embed', 'search', 'core'],
  transport: [],
  cli: ['archive', 'embed', 'search', 'engine', 'core', 'mcp', 'transport'],
  extension: ['archive', 'embed', 'search', 'engine', 'core', 'mcp', 'transport'],
};

/** Names several layers use for the same job (a barrel, the layer's types, its errors, an entry point). */
const SHARED_NAMES = new Set(['index.ts', 'types.ts', 'errors.ts', 'main.ts']);

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, String(f)))
    .filter((f) => /\.(ts|js)$/.test(f) && fs.statSync(f).isFile());
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [
    ...text.matchAll(
      /^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|\b(?:require|import)\(\s*['"]([^'"]+)['"]\s*\)/gm,
    ),
  ].map((m) => m[1] ?? m[2]);
}

function layerOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0];
}

const files = sources(SRC);

describe('architecture: the layers of src/', () => {
  it('every folder under src/ is a known layer', () => {
    const layers = new Set(files.map(layerOf));
    assert.deepEqual([...layers].sort(), Object.keys(ALLOWED).sort());
  });

  it('a layer imports only the layers below it', () => {
    const bad: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), spec);
        if (!target.startsWith(SRC + path.sep)) {
          if (path.basename(target) !== 'package.json')
            bad.push(`${path.relative(ROOT, file)} imports ${spec} (outside src/)`);
          continue;
        }
        const to = layerOf(target);
        if (to !== from && !ALLOWED[from].includes(to))
          bad.push(`${path.relative(ROOT, file)} (${from}) imports ${spec} (${to})`);
      }
    }
    assert.deepEqual(bad, [], `imports against the layering:\n${bad.join('\n')}`);
  });

  it('only src/extension/ imports vscode', () => {
    const bad = files
      .filter((f) => layerOf(f) !== 'extension' && importsOf(f).includes('vscode'))
      .map((f) => path.relative(ROOT, f));
    assert.deepEqual(bad, []);
  });

  it('file names are kebab-case', () => {
    const bad = files.map((f) => path.basename(f)).filter((b) => !/^[a-z0-9]+(-[a-z0-9]+)*\.(ts|js)$/.test(b));
    assert.deepEqual(bad, []);
  });

  it('no two files share a name for different jobs', () => {
    const byName = new Map<string, string[]>();
    for (const f of files) {
      const b = path.basename(f);
      if (!SHARED_NAMES.has(b)) byName.set(b, [...(byName.get(b) ?? []), path.relative(ROOT, f)]);
    }
    const dup = [...byName.entries()]
      .filter(([, list]) => list.length > 1)
      .map(([b, list]) => `${b}: ${list.join(', ')}`);
    assert.deepEqual(dup, []);
  });
});

describe('architecture: the check itself', () => {
  it('sees an upward import (a lower layer importing a higher one)', () => {
    // The rule table is what the test enforces: core importing mcp must be refused.
    assert.equal(ALLOWED.core.includes('mcp'), false);
    assert.equal(ALLOWED.archive.length, 0);
    assert.ok(
      importsOf(path.join(SRC, 'core', 'hybrid-search.ts')).some((s) => s.startsWith('../search/')),
      'parses imports',
    );
  });
});
