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
  mcp: ['core'],
  transport: [],
  cli: ['core', 'mcp', 'transport'],
  extension: ['core', 'mcp', 'transport'],
};

/** The adapters reach the core through its barrel only (src/core/index.ts), types included. */
const ADAPTERS = new Set(['mcp', 'cli', 'extension', 'transport']);
const CORE_BARREL = path.join(SRC, 'core', 'index');

/** Names several layers use for the same job (a barrel, the layer's types, its errors, an entry point). */
const SHARED_NAMES = new Set(['index.ts', 'types.ts', 'errors.ts', 'main.ts']);

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, String(f)))
    .filter((f) => /\.(ts|js)$/.test(f) && fs.statSync(f).isFile());
}

function importsIn(text: string): string[] {
  return [
    ...text.matchAll(
      /^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|\b(?:require|import)\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm,
    ),
  ].map((m) => m[1] ?? m[2] ?? m[3]);
}

function importsOf(file: string): string[] {
  return importsIn(fs.readFileSync(file, 'utf8'));
}

function layerOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0];
}

const files = sources(SRC);

/** The imports of `file` (its text) against the layering, as lines to report. */
function layerViolations(file: string, text: string): string[] {
  const from = layerOf(file);
  const bad: string[] = [];
  for (const spec of importsIn(text)) {
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
    else if (ADAPTERS.has(from) && to === 'core' && target !== CORE_BARREL && target !== path.dirname(CORE_BARREL)) {
      bad.push(
        `${path.relative(ROOT, file)} (${from}) imports ${spec}: adapters import the core barrel (src/core/index.ts)`,
      );
    }
  }
  return bad;
}

describe('architecture: the layers of src/', () => {
  it('every folder under src/ is a known layer', () => {
    const layers = new Set(files.map(layerOf));
    assert.deepEqual([...layers].sort(), Object.keys(ALLOWED).sort());
  });

  it('a layer imports only the layers below it; the adapters reach the core through its barrel', () => {
    const bad = files.flatMap((file) => layerViolations(file, fs.readFileSync(file, 'utf8')));
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
  // Mutations of real files: each must be reported, so the rule above cannot pass by seeing nothing.
  const mutate = (rel: string, line: string) => {
    const file = path.join(SRC, rel);
    return layerViolations(file, `${fs.readFileSync(file, 'utf8')}\n${line}\n`);
  };

  it('reports a lower layer importing a higher one', () => {
    assert.deepEqual(mutate('core/hybrid-search.ts', "import { createMcpServer } from '../mcp/server';"), [
      'src/core/hybrid-search.ts (core) imports ../mcp/server (mcp)',
    ]);
    assert.equal(mutate('archive/archive.ts', "import '../search/fusion';").length, 1);
  });

  it('reports an adapter reaching past the core barrel', () => {
    assert.equal(mutate('mcp/render.ts', "import type { AsyncArchive } from '../archive/types';").length, 1);
    assert.equal(mutate('extension/extension.ts', "import { hybridSearch } from '../core/hybrid-search';").length, 1);
    assert.deepEqual(mutate('mcp/render.ts', "import { inline } from '../core';"), []);
  });
});
