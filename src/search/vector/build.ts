/** Building an index from a stream of embedding records: progress, cancellation, the tests' in-memory variant. */
import type { EmbeddingRecord } from '../../archive/types';
import { IndexBuilder, type IndexParts } from './accumulator';
import { VectorIndexError, throwIfAborted, yieldToEventLoop } from './errors';
import { Int8VectorIndex } from './int8-index';
import { KernelRowQuantiser } from './row-quantiser';
import { KeyedRows } from './row-store';

/** Records consumed so far, of the expected total when the caller knows it. */
export interface BuildProgress {
  done: number;
  total?: number;
}

export interface BuildOptions {
  model: string;
  /** Records of another length are skipped. Default: the first record's length. */
  dim?: number;
  /** Expected record count, for progress and pre-sizing. */
  total?: number;
  onProgress?: (p: BuildProgress) => void;
  signal?: AbortSignal;
  /** Diagnostics: skipped rows, and (for the cache) why a cache file was not used. */
  log?: (message: string) => void;
}

/** Work this long between event-loop turns, letting cancellation and other requests through. */
const SLICE_MS = 30;
const PROGRESS_MS = 200;

/** Feeds every record into `builder`, yielding regularly; rejects with an AbortError when cancelled. */
async function feed(records: Iterable<EmbeddingRecord>, builder: IndexBuilder, opts: BuildOptions): Promise<number> {
  let done = 0;
  let sliceStart = Date.now();
  let lastProgress = 0;
  opts.onProgress?.({ done: 0, total: opts.total });
  // for…of closes the iterator (the archive's statement) when the build ends early.
  for (const rec of records) {
    builder.add(rec);
    if ((++done & 255) !== 0) continue;
    const now = Date.now();
    if (now - sliceStart < SLICE_MS) continue;
    if (opts.onProgress && now - lastProgress >= PROGRESS_MS) {
      lastProgress = now;
      opts.onProgress({ done, total: opts.total });
    }
    await yieldToEventLoop();
    throwIfAborted(opts.signal);
    sliceStart = Date.now();
  }
  throwIfAborted(opts.signal);
  opts.onProgress?.({ done, total: opts.total });
  return done;
}

export async function consumeRecords(records: Iterable<EmbeddingRecord>, opts: BuildOptions): Promise<IndexParts> {
  throwIfAborted(opts.signal);
  const quantiser = await KernelRowQuantiser.create();
  const builder = new IndexBuilder({ model: opts.model, dim: opts.dim, expected: opts.total, quantiser });
  const read = await feed(records, builder, opts);
  return checkedParts(builder.finish(), opts, read);
}

/** The parts of a finished build (logging the rows it skipped), or the error of one that found no usable vector. */
function checkedParts(parts: IndexParts | undefined, opts: BuildOptions, read: number): IndexParts {
  if (!parts || parts.n === 0) {
    const s = parts?.stats;
    const skipped = s
      ? ` (${s.skippedWrongLength} with the wrong length, ${s.skippedNonFinite} with NaN/infinite values)`
      : '';
    throw new VectorIndexError(
      'no_vectors',
      `the archive holds no usable embeddings for model ${opts.model}: ${read} record(s) read${skipped}; run \`msgbrowse embed\` with this model`,
    );
  }
  const { skippedWrongLength, skippedNonFinite } = parts.stats;
  if (skippedWrongLength + skippedNonFinite > 0)
    opts.log?.(
      `vector index for model ${opts.model}: skipped ${skippedWrongLength} embedding(s) whose length is not ${parts.dim} ` +
        `and ${skippedNonFinite} holding NaN/infinite values; ${parts.n} indexed`,
    );
  return parts;
}

/** Builds an index whose float rows stay in memory, copied as the build reads them: for tests. */
export async function buildVectorIndex(records: Iterable<EmbeddingRecord>, opts: BuildOptions) {
  const vectors = new Map<number, Float32Array>();
  function* kept() {
    for (const r of records) {
      vectors.set(r.rowid, r.vec.slice());
      yield r;
    }
  }
  const parts = await consumeRecords(kept(), opts);
  const rows = new KeyedRows(parts.rowids, parts.dim, (keys, out) => {
    for (const [i, key] of keys.entries()) out.set(vectors.get(key)!, i * parts.dim);
  });
  return Int8VectorIndex.create(parts, rows, 'memory');
}
