/**
 * The persistent index cache: one file per (archive, model) in a cache directory of ours, never beside the archive,
 * written atomically (temporary file + rename). Little-endian:
 *   [0, 64)  preamble: "MSGBVEC1", u32 version, u32 0, f64 header offset, f64 header length, f64 0, f64 file size
 *   [64, …)  int8 rows (n × stride bytes), the metadata sections (SECTION_BYTES), then the JSON header: key, model,
 *            dim, n, section offsets, interned senders/sources, build stats, sha1 of the metadata
 * No float rows: rescoring reads candidates' vectors back from the archive. A file that does not match is rebuilt.
 */
import { createHash, type Hash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { EmbeddingRecord } from '../../archive/types';
import { consumeRecords, type BuildOptions } from './build';
import { metaViews, type IndexParts } from './accumulator';
import { abortError, yieldToEventLoop } from './errors';
import { Int8VectorIndex } from './int8-index';
import { align, layoutFor, MAX_PAGES, metaLayout, pagesFor } from './layout';
import { strideFor } from './quantize';
import type { RowStore } from './row-store';
import { kernelMemory } from '../kernel/kernel';

const MAGIC = 'MSGBVEC1';
const FORMAT_VERSION = 2;
const PREAMBLE = 64;

export interface LoadOrBuildOptions extends BuildOptions {
  /** Called only when the cache is missing or stale. */
  records: () => Iterable<EmbeddingRecord>;
  /** Directory of ours for cache files (extension global storage, or an XDG cache dir for the CLI). */
  cacheDir: string;
  /** Identity of the archive's embeddings (vectorCacheKey): a change rebuilds. */
  key: string;
  /** Stable identity of the archive: one file per (name, model), so a changed key replaces it. Default: `key`. */
  name?: string;
  /** Where rescoring reads a row's float vector back (`parts.rowids` are the archive's rowids). */
  rows: (parts: IndexParts) => RowStore;
}

/** The metadata sections in file order, with the bytes per row of each. */
const SECTION_BYTES = { rowids: 8, ids: 8, ts: 8, conv: 4, sender: 4, source: 4, scale: 4, err: 4, qnorm: 4 };
type SectionName = keyof typeof SECTION_BYTES;
const SECTIONS = Object.keys(SECTION_BYTES) as SectionName[];

/** The JSON header: what the parts carry besides their arrays, and where the writer put things. */
type CacheHeader = Pick<IndexParts, 'model' | 'dim' | 'n' | 'senders' | 'sources' | 'stats'> & {
  version: number;
  key: string;
  stride: number;
  matrixOff: number;
  sections: Record<SectionName, number>;
  metaSha1: string;
};

/** A cache file that cannot be used (the message says why); it is rebuilt. */
class StaleCache extends Error {}

/** The identity of an archive's embeddings: path, model, dim, count and fingerprint (so a re-import rebuilds). */
export function vectorCacheKey(k: { path: string; model: string; dim?: number; count?: number; fingerprint: string }) {
  return [k.path, k.model, k.dim, k.count, k.fingerprint].join('|');
}

export function cacheFilePath(cacheDir: string, name: string, model: string): string {
  const id = createHash('sha256').update(name).update('\0').update(model).digest('hex').slice(0, 24);
  return path.join(cacheDir, `vectors-${id}.idx`);
}

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

const writeAsync = promisify(fs.write);
const readAsync = promisify(fs.read);
const fsyncAsync = promisify(fs.fsync);
/** I/O runs off the thread in slices, so a big cache file never stalls the event loop. */
const IO_CHUNK = 16 << 20;

/** Hashes in slices with a yield between them, so a big section never holds the thread long. */
async function hashInSlices(sha: Hash, bytes: Uint8Array): Promise<void> {
  const SLICE = 1 << 20;
  for (let at = 0; at < bytes.length; at += SLICE) {
    sha.update(bytes.subarray(at, Math.min(bytes.length, at + SLICE)));
    if (at + SLICE < bytes.length) await yieldToEventLoop();
  }
}

async function writeFully(fd: number, data: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    done += (await writeAsync(fd, data, done, Math.min(IO_CHUNK, data.length - done), position + done)).bytesWritten;
  }
}

async function readFully(fd: number, into: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const n = (await readAsync(fd, into, done, Math.min(IO_CHUNK, into.length - done), position + done)).bytesRead;
    if (n === 0) throw new StaleCache('shorter than its header says (truncated)');
    done += n;
  }
}

/** Writes the int8 rows, the metadata sections and the header, then the preamble that makes the file valid. */
async function writeParts(fd: number, parts: IndexParts, key: string): Promise<void> {
  const { n, dim, layout } = parts;
  const stride = layout.stride;
  const matrixOff = PREAMBLE;
  await writeFully(fd, new Uint8Array(parts.memory.buffer, layout.matrixOff, n * stride), matrixOff);
  let at = align(matrixOff + n * stride);
  const sections = {} as Record<SectionName, number>;
  const sha = createHash('sha1');
  for (const s of SECTIONS) {
    const bytes = bytesOf(parts[s]);
    sections[s] = at;
    await writeFully(fd, bytes, at);
    await hashInSlices(sha, bytes);
    at = align(at + bytes.length, 8);
  }
  const header: CacheHeader = {
    version: FORMAT_VERSION,
    key,
    model: parts.model,
    dim,
    stride,
    n,
    matrixOff,
    sections,
    senders: parts.senders,
    sources: parts.sources,
    stats: parts.stats,
    metaSha1: sha.digest('hex'),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  await writeFully(fd, json, at);
  const pre = Buffer.alloc(PREAMBLE);
  pre.write(MAGIC, 0, 'latin1');
  pre.writeUInt32LE(FORMAT_VERSION, 8);
  pre.writeDoubleLE(at, 16);
  pre.writeDoubleLE(json.length, 24);
  pre.writeDoubleLE(0, 32);
  pre.writeDoubleLE(at + json.length, 40);
  await writeFully(fd, pre, 0);
}

/** The header a file's preamble points to, checked against the file's size. */
async function readHeader(fd: number): Promise<{ h: CacheHeader; headerOff: number }> {
  const size = fs.fstatSync(fd).size;
  if (size < PREAMBLE) throw new StaleCache('too short');
  const pre = Buffer.alloc(PREAMBLE);
  await readFully(fd, pre, 0);
  if (pre.toString('latin1', 0, 8) !== MAGIC) throw new StaleCache('not a vector cache file');
  const version = pre.readUInt32LE(8);
  if (version !== FORMAT_VERSION) throw new StaleCache(`format ${version}, expected ${FORMAT_VERSION}`);
  const headerOff = pre.readDoubleLE(16);
  const headerLen = pre.readDoubleLE(24);
  const fits = headerOff >= PREAMBLE && headerOff + headerLen === size && headerLen < 1 << 30;
  if (pre.readDoubleLE(40) !== size || !fits)
    throw new StaleCache('size does not match its preamble (truncated or overwritten)');
  const json = Buffer.alloc(headerLen);
  await readFully(fd, json, headerOff);
  try {
    return { h: JSON.parse(json.toString('utf8')) as CacheHeader, headerOff };
  } catch {
    throw new StaleCache('unreadable header');
  }
}

/** Throws StaleCache unless the header describes this index, its sections where the writer puts them. */
function checkHeader(h: CacheHeader, headerOff: number, key: string, model: string, dim: number | undefined): void {
  if (h.version !== FORMAT_VERSION) throw new StaleCache('header format mismatch');
  if (h.key !== key) throw new StaleCache('the archive embeddings changed since it was built');
  if (h.model !== model) throw new StaleCache(`built for model ${h.model}`);
  if (dim !== undefined && h.dim !== dim) throw new StaleCache(`dimension ${h.dim}, expected ${dim}`);
  const n = h.n;
  if (h.stride !== strideFor(h.dim) || !Number.isInteger(n) || n < 1 || h.matrixOff !== PREAMBLE)
    throw new StaleCache('inconsistent header');
  let expectAt = align(h.matrixOff + n * h.stride);
  for (const s of SECTIONS) {
    if (h.sections?.[s] !== expectAt) throw new StaleCache('inconsistent section offsets');
    expectAt = align(expectAt + n * SECTION_BYTES[s], 8);
  }
  if (expectAt !== headerOff) throw new StaleCache('inconsistent section offsets');
}

async function readCache(fd: number, key: string, model: string, dim: number | undefined): Promise<IndexParts> {
  const { h, headerOff } = await readHeader(fd);
  checkHeader(h, headerOff, key, model, dim);
  const { n, stride } = h;
  const sha = createHash('sha1');
  const read = async <T extends ArrayBufferView>(name: SectionName, arr: T): Promise<T> => {
    const bytes = bytesOf(arr);
    await readFully(fd, bytes, h.sections[name]);
    await hashInSlices(sha, bytes);
    return arr;
  };
  const rows = {} as Pick<IndexParts, 'rowids' | 'ids' | 'ts' | 'conv' | 'sender' | 'source'>;
  for (const name of ['rowids', 'ids', 'ts'] as const) rows[name] = await read(name, new Float64Array(n));
  for (const name of ['conv', 'sender', 'source'] as const) rows[name] = await read(name, new Int32Array(n));
  const layout = layoutFor(stride);
  const meta = metaLayout(layout, n);
  const pages = pagesFor(meta.end);
  if (pages > MAX_PAGES) throw new StaleCache('too large for WebAssembly memory');
  const memory = kernelMemory(pages);
  const views = metaViews(memory, meta, n);
  for (const name of ['scale', 'err', 'qnorm'] as const) await read(name, views[name]);
  if (sha.digest('hex') !== h.metaSha1) throw new StaleCache('metadata checksum mismatch (corrupt)');
  await readFully(fd, new Uint8Array(memory.buffer, layout.matrixOff, n * stride), h.matrixOff);
  const { senders, sources, stats } = h;
  return { model: h.model, dim: h.dim, n, layout, memory, meta, ...rows, ...views, senders, sources, stats };
}

/** The index parts of `model` from its cache file, or undefined (the reason logged) when missing, stale or corrupt. */
export async function loadCachedParts(
  opts: Pick<LoadOrBuildOptions, 'cacheDir' | 'name' | 'key' | 'model' | 'dim' | 'log'>,
): Promise<IndexParts | undefined> {
  const file = cacheFilePath(opts.cacheDir, opts.name ?? opts.key, opts.model);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    opts.log?.(`vector cache ${file}: not found, building`);
    return undefined;
  }
  try {
    return await readCache(fd, opts.key, opts.model, opts.dim);
  } catch (e) {
    if (!(e instanceof StaleCache)) throw e;
    opts.log?.(`vector cache ${file}: ${e.message}; rebuilding`);
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** The index of `model` from the cache, else built and cached. Rejects with an AbortError when cancelled. */
export async function loadOrBuildVectorIndex(opts: LoadOrBuildOptions): Promise<Int8VectorIndex> {
  const file = cacheFilePath(opts.cacheDir, opts.name ?? opts.key, opts.model);
  const cached = await loadCachedParts(opts);
  if (cached) return Int8VectorIndex.create(cached, opts.rows(cached), 'cache', file);
  // Fail before a build whose result could not be kept, not after it.
  ensureWritableDir(opts.cacheDir);
  const parts = await consumeRecords(opts.records(), opts);
  if (opts.signal?.aborted) throw abortError(opts.signal);
  await writeCacheFile(opts, parts, opts.signal);
  return Int8VectorIndex.create(parts, opts.rows(parts), 'built', file);
}

function unwritable(dir: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code ?? String(e);
  return new Error(
    `cannot write the vector index cache in ${dir} (${code}); the semantic index needs a writable cache directory`,
  );
}

function ensureWritableDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (e) {
    throw unwritable(dir, e);
  }
}

/** Removes temporary files of this cache file left by builds that crashed (untouched for over an hour). */
function removeStaleTemporaries(file: string): void {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // no directory yet
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const p = path.join(dir, name);
    try {
      const stat = fs.statSync(p, { throwIfNoEntry: false });
      if (stat && Date.now() - stat.mtimeMs > 3600_000) fs.rmSync(p, { force: true });
    } catch {
      // Another process is removing it, or it is not ours to remove: the next one may still be.
    }
  }
}

/** Writes the cache file of (name, model) atomically (synced, then renamed); no temporary file is left behind. */
export async function writeCacheFile(
  opts: Pick<LoadOrBuildOptions, 'cacheDir' | 'name' | 'key' | 'model'>,
  parts: IndexParts,
  signal?: AbortSignal,
): Promise<string> {
  const file = cacheFilePath(opts.cacheDir, opts.name ?? opts.key, opts.model);
  removeStaleTemporaries(file);
  const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  let wfd: number;
  try {
    fs.mkdirSync(opts.cacheDir, { recursive: true });
    wfd = fs.openSync(tmp, 'w');
  } catch (e) {
    throw unwritable(opts.cacheDir, e);
  }
  try {
    try {
      await writeParts(wfd, parts, opts.key);
      if (signal?.aborted) throw abortError(signal);
      await fsyncAsync(wfd);
    } finally {
      fs.closeSync(wfd);
    }
    fs.renameSync(tmp, file);
    return file;
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}
