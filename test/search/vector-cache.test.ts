/** The persistent vector cache: round trip, invalidation, corruption, cancellation, progress, atomicity. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import type { EmbeddingRecord } from '../../src/archive/types';
import {
  buildVectorIndex,
  cacheFilePath,
  KeyedRows,
  loadOrBuildVectorIndex,
  type LoadOrBuildOptions,
} from '../../src/search/vector';
import { mulberry32 as rng } from '../fixtures/random';

function makeRecords(n: number, dim: number, seed: number): EmbeddingRecord[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => ({
    rowid: i + 1,
    messageId: 1000 + i,
    hash: `h${i}`,
    conversationId: 1 + (i % 4),
    tsUnix: 1_700_000_000 + i * 60,
    sender: i % 3 === 0 ? 'Me' : 'Ann',
    source: i % 2 === 0 ? 'signal' : 'whatsapp',
    vec: Float32Array.from({ length: dim }, () => r()),
  }));
}

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'vector-cache-test-'));
after(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));
let dirCount = 0;
const newDir = () => path.join(tmpRoot, `c${dirCount++}`);
/** The files in a cache dir (none when a failed build never created it). */
const listing = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);

const DIM = 40;
const RECORDS = makeRecords(900, DIM, 1);
const QUERIES = makeRecords(6, DIM, 2).map((r) => r.vec);

/** Rows read back by rowid from `records` (as the engine reads them back from the archive). */
function rowsFrom(records: EmbeddingRecord[]): LoadOrBuildOptions['rows'] {
  const byRowid = new Map(records.map((r) => [r.rowid, r.vec]));
  return (parts) =>
    new KeyedRows(parts.rowids, parts.dim, (keys, out) => {
      let found = 0;
      for (let i = 0; i < keys.length; i++) {
        const v = byRowid.get(keys[i]);
        if (v && v.length === parts.dim) out.set(v, i * parts.dim), found++;
      }
      return found;
    });
}

function opts(cacheDir: string, extra: Partial<LoadOrBuildOptions> = {}): LoadOrBuildOptions & { reads: () => number } {
  let reads = 0;
  return {
    records: () => {
      reads++;
      return RECORDS;
    },
    // Read back from the records this call builds from (without counting as a build's read).
    rows: (parts) => rowsFrom(Array.from((extra.records ?? (() => RECORDS))()))(parts),
    model: 'embed-a',
    cacheDir,
    key: 'archive.db|900|v1',
    name: '/path/archive.db',
    reads: () => reads,
    ...extra,
  };
}

async function allResults(index: { search: (q: Float32Array, k: number, f?: object) => Promise<unknown> }) {
  const out: unknown[] = [];
  for (const q of QUERIES) {
    out.push(await index.search(q, 15));
    out.push(await index.search(q, 7, { conversationId: 2, sender: 'Me' }));
    out.push(await index.search(q, 7, { source: 'whatsapp', startUnix: 1_700_000_000 + 60 * 300 }));
  }
  return out;
}

describe('vector index cache', () => {
  it('round-trips: a second load reads the cache file and gives identical results', async () => {
    const dir = newDir();
    const reference = await allResults(await buildVectorIndex(RECORDS, { model: 'embed-a' }));
    const o1 = opts(dir);
    const built = await loadOrBuildVectorIndex(o1);
    assert.equal(built.stats.origin, 'built');
    assert.equal(o1.reads(), 1);
    assert.deepEqual(await allResults(built), reference);
    built.dispose();

    const o2 = opts(dir);
    const loaded = await loadOrBuildVectorIndex(o2);
    assert.equal(loaded.stats.origin, 'cache');
    assert.equal(o2.reads(), 0, 'records are not read when the cache is valid');
    assert.equal(loaded.size, 900);
    assert.equal(loaded.dim, DIM);
    assert.deepEqual(await allResults(loaded), reference);
    // Only the int8 rows and metadata are resident; the float rows stay in the file.
    assert.equal(loaded.stats.cacheFile, cacheFilePath(dir, '/path/archive.db', 'embed-a'));
    loaded.dispose();
    assert.deepEqual(fs.readdirSync(dir), [path.basename(cacheFilePath(dir, '/path/archive.db', 'embed-a'))]);
  });

  it('rebuilds when the key changes, replacing the old file', async () => {
    const dir = newDir();
    (await loadOrBuildVectorIndex(opts(dir))).dispose();
    const changed = makeRecords(950, DIM, 3);
    const o = opts(dir, { key: 'archive.db|950|v2', records: () => changed });
    const logs: string[] = [];
    const index = await loadOrBuildVectorIndex({ ...o, log: (m) => logs.push(m) });
    assert.equal(index.stats.origin, 'built');
    assert.equal(index.size, 950);
    assert.match(logs.join('\n'), /embeddings changed/);
    index.dispose();
    assert.equal(fs.readdirSync(dir).length, 1);
    const again = await loadOrBuildVectorIndex({ ...o });
    assert.equal(again.stats.origin, 'cache');
    again.dispose();
  });

  it('keeps separate files per model and rebuilds on a dimension change', async () => {
    const dir = newDir();
    (await loadOrBuildVectorIndex(opts(dir))).dispose();
    const other = await loadOrBuildVectorIndex(opts(dir, { model: 'embed-b' }));
    assert.equal(other.stats.origin, 'built');
    other.dispose();
    assert.equal(fs.readdirSync(dir).length, 2);
    const dimChange = makeRecords(100, 24, 4);
    const idx = await loadOrBuildVectorIndex(opts(dir, { dim: 24, records: () => dimChange }));
    assert.equal(idx.stats.origin, 'built');
    assert.equal(idx.dim, 24);
    idx.dispose();
  });

  for (const [what, damage] of [
    ['truncated', (f: string) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2))],
    ['garbage preamble', (f: string) => fs.writeFileSync(f, Buffer.from('not an index at all, just text'))],
    [
      'flipped metadata byte',
      (f: string) => {
        const buf = fs.readFileSync(f);
        const headerOff = buf.readDoubleLE(16);
        const header = JSON.parse(buf.subarray(headerOff).toString('utf8')) as { sections: { ids: number } };
        buf[header.sections.ids + 3] ^= 0x40;
        fs.writeFileSync(f, buf);
      },
    ],
    [
      'broken header JSON',
      (f: string) => {
        const buf = fs.readFileSync(f);
        buf[buf.readDoubleLE(16) + 1] = 0x7b;
        fs.writeFileSync(f, buf);
      },
    ],
  ] as const) {
    it(`rebuilds a corrupt cache file (${what})`, async () => {
      const dir = newDir();
      const reference = await allResults(await buildVectorIndex(RECORDS, { model: 'embed-a' }));
      (await loadOrBuildVectorIndex(opts(dir))).dispose();
      damage(cacheFilePath(dir, '/path/archive.db', 'embed-a'));
      const o = opts(dir);
      const index = await loadOrBuildVectorIndex(o);
      assert.equal(index.stats.origin, 'built');
      assert.equal(o.reads(), 1);
      assert.deepEqual(await allResults(index), reference);
      index.dispose();
      const again = await loadOrBuildVectorIndex(opts(dir));
      assert.equal(again.stats.origin, 'cache');
      again.dispose();
    });
  }

  it('reports progress and can be cancelled, leaving no file behind', async () => {
    const dir = newDir();
    const many = makeRecords(30_000, 64, 9);
    const seen: { done: number; total?: number }[] = [];
    const ac = new AbortController();
    function* slow(): Generator<EmbeddingRecord> {
      for (let i = 0; i < many.length; i++) {
        if (i === 20_000) ac.abort();
        yield many[i];
      }
    }
    await assert.rejects(
      loadOrBuildVectorIndex({
        ...opts(dir, { records: slow, total: many.length }),
        signal: ac.signal,
        onProgress: (p) => seen.push(p),
      }),
      { name: 'AbortError' },
    );
    assert.deepEqual(listing(dir), [], 'no cache or temporary file remains');
    assert.ok(seen.length >= 1 && seen[0].total === many.length);

    const done: { done: number; total?: number }[] = [];
    const index = await loadOrBuildVectorIndex({
      ...opts(dir, { records: () => many, total: many.length }),
      onProgress: (p) => done.push(p),
    });
    assert.deepEqual(done.at(-1), { done: many.length, total: many.length });
    for (let i = 1; i < done.length; i++) assert.ok(done[i].done >= done[i - 1].done);
    index.dispose();
  });

  it('removes temporary files of crashed builds that are over an hour old', async () => {
    const dir = newDir();
    fs.mkdirSync(dir, { recursive: true });
    const file = cacheFilePath(dir, '/path/archive.db', 'embed-a');
    const old = `${file}.12345.abc.tmp`;
    const fresh = `${file}.12346.abd.tmp`;
    fs.writeFileSync(old, 'partial');
    fs.writeFileSync(fresh, 'in progress elsewhere');
    const hourAgo = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(old, hourAgo, hourAgo);
    (await loadOrBuildVectorIndex(opts(dir))).dispose();
    assert.deepEqual(fs.readdirSync(dir).sort(), [path.basename(file), path.basename(fresh)].sort());
  });

  it('a build interrupted by a failing record stream leaves no file behind', async () => {
    const dir = newDir();
    function* failing(): Generator<EmbeddingRecord> {
      yield* RECORDS.slice(0, 100);
      throw new Error('archive closed');
    }
    await assert.rejects(loadOrBuildVectorIndex(opts(dir, { records: failing })), /archive closed/);
    assert.deepEqual(listing(dir), []);
  });

  it('a loaded index keeps no float32 rows in memory', async () => {
    const dir = newDir();
    const big = makeRecords(4000, 384, 12);
    (await loadOrBuildVectorIndex(opts(dir, { records: () => big }))).dispose();
    const loaded = await loadOrBuildVectorIndex(opts(dir, { records: () => big }));
    const s = loaded.stats;
    // int8 rows (4000 × 384) + 60 bytes/row of metadata + under 1 MB of WASM scratch; float rows would add 6.1 MB.
    const bound = 4000 * 384 + 4000 * 60 + (1 << 20);
    assert.ok(s.residentBytes <= bound, `${s.residentBytes} resident vs ${bound} allowed (${s.float32Bytes} float32)`);
    assert.ok(s.residentBytes <= 0.35 * s.float32Bytes, `${s.residentBytes} resident vs ${s.float32Bytes} float32`);
    loaded.dispose();
  });

  it('rows whose vectors changed or are gone in the archive are left out, never scored against the old int8 row', async () => {
    const dir = newDir();
    const reference = await buildVectorIndex(RECORDS, { model: 'embed-a' });
    const q = QUERIES[0];
    const before = await reference.search(q, 10);
    // The archive changed under a built index: the best two rows were re-embedded in place (same rowid, another
    // vector) and the third was deleted.
    const changed = new Set([before[0].messageId, before[1].messageId]);
    const gone = before[2].messageId;
    const current = new Map(
      RECORDS.filter((r) => r.messageId !== gone).map((r) => [
        r.rowid,
        changed.has(r.messageId) ? QUERIES[1].map((x) => -x) : r.vec,
      ]),
    );
    const index = await loadOrBuildVectorIndex({
      ...opts(dir),
      rows: (parts) =>
        new KeyedRows(parts.rowids, parts.dim, (keys, out) => {
          let found = 0;
          for (let i = 0; i < keys.length; i++) {
            const v = current.get(keys[i]);
            if (v) out.set(v, i * parts.dim), found++;
          }
          return found;
        }),
    });
    const hits = await index.search(q, 10);
    const left = new Set([...changed, gone]);
    assert.ok(
      !hits.some((h) => left.has(h.messageId)),
      `changed or deleted rows were returned: ${JSON.stringify(hits)}`,
    );
    assert.ok((index.lastTrace.stale ?? 0) >= 3, `stale candidates counted: ${JSON.stringify(index.lastTrace)}`);
    // The rest is the exact answer over the unchanged rows.
    const expected = (await reference.search(q, 13)).filter((h) => !left.has(h.messageId)).slice(0, 10);
    assert.deepEqual(
      hits.map((h) => h.messageId),
      expected.map((h) => h.messageId),
    );
    for (const h of hits) assert.equal(h.score, expected.find((e) => e.messageId === h.messageId)!.score);
    index.dispose();
    reference.dispose();
  });
});
