/** Property test: any JSON arguments to any tool give isError or a result matching the output schema; never a crash. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import crypto from 'node:crypto';
import fc from 'fast-check';
import { buildCuratedArchive } from '../fixtures/index';
import { TOOLS } from '../../src/mcp';
import { startHarness, tempDir, textOf, type Harness } from './harness';

let dir: string;
let file: string;
let digest: string;
let h: Harness;
const sha = (p: string) => crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');

before(async () => {
  dir = tempDir('mcp-fuzz');
  file = buildCuratedArchive(dir).path;
  digest = sha(file);
  h = await startHarness({ archivePath: file });
});
after(async () => {
  await h?.close();
  assert.equal(sha(file), digest);
  fs.rmSync(dir, { recursive: true, force: true });
});

const names = TOOLS.map((t) => t.name);
const keys = [
  'query',
  'name',
  'conversation',
  'conversation_id',
  'source',
  'sender',
  'start',
  'end',
  'limit',
  'k',
  'cursor',
  'message_id',
  'hash',
  'window',
  'kind',
  'domain',
  'name_contains',
  'x',
];
const value = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(
    'Harper',
    'MJ',
    'signal',
    'whatsapp',
    '2022-03-01',
    '2022-02-30',
    'lease',
    'image',
    'video',
    'example.com',
    '*',
    '"',
    'NEAR(',
    '\u0000',
  ),
  fc.integer({ min: -5, max: 2000 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
);

test('random arguments never crash the server and successful results satisfy the output schema', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...names),
      fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 4 }),
      async (name, args) => {
        const r = await h.call(name, args);
        const t = textOf(r);
        assert.ok(t.length > 0);
        assert.doesNotMatch(t, /\n\s+at .*:\d+:\d+/);
        if (!r.isError) {
          const def = TOOLS.find((d) => d.name === name)!;
          assert.ok(def.outputSchema.safeParse(r.structuredContent).success);
          assert.doesNotMatch(t, /internal error/);
        } else {
          assert.doesNotMatch(t, /internal error/, `${name} ${JSON.stringify(args)} → ${t}`);
        }
      },
    ),
    { seed: 20221129, numRuns: 200 },
  );
  const ok = await h.ok<{ hits: unknown[] }>('search_messages', { query: 'lease' });
  assert.ok(ok.hits.length > 0);
});
