/**
 * Tool contract snapshots (as github-mcp-server's `__toolsnaps__`): every tool's name, title, description,
 * annotations and full input/output JSON Schema exactly as a client receives them from tools/list, one file per
 * tool in test/mcp/__toolsnaps__/<name>.snap.json. Any contract change therefore shows up as a reviewed diff.
 *
 * After a deliberate change: `npm run test:toolsnaps:update` (UPDATE_TOOLSNAPS=1) rewrites the snapshots and
 * deletes those of tools that no longer exist; review and commit the diff.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { NO_EMBED_MODEL_REASON } from '../../src/embed';
import type { ServerContext } from '../../src/core/context';
import { TOOLS } from '../../src/mcp/tools';
import { CITATION, connectClient } from './harness';

const SNAP_DIR = path.resolve(__dirname, '../mcp/__toolsnaps__');
const SUFFIX = '.snap.json';
const UPDATE = process.env.UPDATE_TOOLSNAPS === '1' || process.env.UPDATE_TOOLSNAPS === 'true';
const HOW_TO_UPDATE = 'If the change is deliberate, run `npm run test:toolsnaps:update` and commit the snapshot diff.';

/** tools/list needs no archive: a context whose archive cannot be opened proves the listing never touches it. */
const ctx: ServerContext = {
  archive: async () => Promise.reject(new Error('tools/list must not open the archive')),
  semantic: async () => ({ available: false, reason: NO_EMBED_MODEL_REASON }),
  citation: CITATION,
  version: '0.0.0-test',
};

const FIRST_KEYS = ['name', 'title', 'description', 'annotations', 'inputSchema', 'outputSchema'];

/** Objects with sorted keys, recursively (arrays keep their order: `required`, `enum` etc. are as sent). */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/**
 * The snapshot of one tool: the six contract fields first, in a fixed order, then anything else tools/list sends
 * (e.g. the SDK's `execution`), so nothing a client receives escapes review. Nested keys are sorted.
 */
function snapshotOf(tool: Tool): string {
  const plain = JSON.parse(JSON.stringify(tool)) as Record<string, unknown>; // drops undefined fields, as the wire does
  // Icons are pinned by test/mcp/icons.test.ts (and scripts/gen-icons.mjs --check); here only that there are some,
  // so the contract snapshots stay readable instead of carrying kilobytes of base64.
  if (Array.isArray(plain.icons)) {
    plain.icons = (plain.icons as { mimeType?: string; sizes?: string[]; theme?: string }[]).map((i) => ({
      mimeType: i.mimeType,
      sizes: i.sizes,
      theme: i.theme,
      src: 'data:…',
    }));
  }
  for (const k of FIRST_KEYS) assert.ok(k in plain, `tools/list returned ${tool.name} without ${k}`);
  const rest = Object.keys(plain)
    .filter((k) => !FIRST_KEYS.includes(k))
    .sort();
  const ordered = Object.fromEntries([...FIRST_KEYS, ...rest].map((k) => [k, sortKeys(plain[k])]));
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

const snapPath = (name: string) => path.join(SNAP_DIR, `${name}${SUFFIX}`);
const rel = (p: string) => path.relative(process.cwd(), p) || p;

/** A readable structural diff: one entry per JSON path that differs, snapshot value vs live value. */
function describeDiff(snap: unknown, live: unknown, at = '', out: string[] = []): string[] {
  const show = (v: unknown) => {
    const s = JSON.stringify(v);
    return s.length > 200 ? `${s.slice(0, 200)}…` : s;
  };
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(snap) && isObj(live)) {
    for (const k of new Set([...Object.keys(snap), ...Object.keys(live)])) {
      const p = at ? `${at}.${k}` : k;
      if (!(k in live)) out.push(`  - ${p} (removed; snapshot had ${show(snap[k])})`);
      else if (!(k in snap)) out.push(`  + ${p} (added: ${show(live[k])})`);
      else describeDiff(snap[k], live[k], p, out);
    }
  } else if (Array.isArray(snap) && Array.isArray(live) && snap.length === live.length) {
    for (const [i, s] of snap.entries()) describeDiff(s, live[i], `${at}[${i}]`, out);
  } else if (typeof snap === 'string' && typeof live === 'string' && snap !== live) {
    // Long strings (descriptions): show both from a little before the first character that differs.
    let i = 0;
    while (i < snap.length && snap[i] === live[i]) i++;
    const from = Math.max(0, i - 40);
    const cut = (s: string) => `${from > 0 ? '…' : ''}${show(s.slice(from))}`;
    out.push(
      `  ~ ${at}${from > 0 ? ` (differs from character ${i})` : ''}\n      snapshot: ${cut(snap)}\n      live:     ${cut(live)}`,
    );
  } else if (JSON.stringify(snap) !== JSON.stringify(live)) {
    out.push(`  ~ ${at || '(whole tool)'}\n      snapshot: ${show(snap)}\n      live:     ${show(live)}`);
  }
  return out;
}

let tools: Tool[] = [];
let close: () => Promise<void> = async () => {};

before(async () => {
  const c = await connectClient(ctx);
  close = c.close;
  tools = (await c.client.listTools()).tools;
  if (UPDATE) fs.mkdirSync(SNAP_DIR, { recursive: true });
});
after(async () => close());

test('tools/list lists exactly the defined tools, each once', () => {
  assert.deepEqual(
    tools.map((t) => t.name),
    TOOLS.map((t) => t.name),
  );
});

for (const def of TOOLS) {
  test(`toolsnap: ${def.name}`, () => {
    const tool = tools.find((t) => t.name === def.name);
    assert.ok(tool, `${def.name} is defined in src/mcp/tools but missing from tools/list`);
    const live = snapshotOf(tool);
    const file = snapPath(def.name);
    if (UPDATE) {
      const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
      if (before !== live) {
        fs.writeFileSync(file, live);
        console.log(`toolsnaps: ${before === undefined ? 'created' : 'updated'} ${rel(file)}`);
      }
      return;
    }
    if (!fs.existsSync(file)) {
      assert.fail(
        `tool ${def.name} has no snapshot: ${rel(file)} is missing.\nRun \`npm run test:toolsnaps:update\` to create it, review it and commit it.`,
      );
    }
    const saved = fs.readFileSync(file, 'utf8');
    if (saved === live) return;
    let diff: string[];
    try {
      diff = describeDiff(JSON.parse(saved), JSON.parse(live));
    } catch (e) {
      diff = [`  (the snapshot is not valid JSON: ${(e as Error).message})`];
    }
    if (diff.length === 0) diff = ['  (same JSON, different formatting or key order: the snapshot was edited by hand)'];
    assert.fail(
      `the contract of tool ${def.name} differs from its snapshot ${rel(file)}:\n${diff.join('\n')}\n` +
        `${HOW_TO_UPDATE}\n(\`git diff ${rel(file)}\` after updating shows the full change.)`,
    );
  });
}

test('toolsnaps: no snapshot for a tool that no longer exists', () => {
  const names = new Set(tools.map((t) => t.name));
  const stale = (fs.existsSync(SNAP_DIR) ? fs.readdirSync(SNAP_DIR) : [])
    .filter((f) => f.endsWith(SUFFIX) && !names.has(f.slice(0, -SUFFIX.length)))
    .sort();
  if (UPDATE) {
    for (const f of stale) {
      fs.rmSync(path.join(SNAP_DIR, f));
      console.log(`toolsnaps: deleted ${rel(path.join(SNAP_DIR, f))} (no such tool)`);
    }
    return;
  }
  assert.deepEqual(
    stale,
    [],
    `snapshots exist for tools that tools/list no longer returns: ${stale.map((f) => rel(path.join(SNAP_DIR, f))).join(', ')}.\n` +
      `If the tool was removed deliberately, run \`npm run test:toolsnaps:update\` (it deletes them) and commit.`,
  );
});
