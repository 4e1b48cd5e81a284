/** Building an index from a stream of embedding records: progress, cancellation, the in-memory variant. */
import type { EmbeddingRecord } from '../../archive/types';
import { IndexBuilder, type IndexParts } from './accumulator';
import { VectorIndexError, throwIfAborted, yieldToEventLoop } from './errors';
import { Int8VectorIndex } from './int8-index';
import { KernelRowQuantiser } from './row-quantiser';
import { MemoryRows, type RowSink } from './row-store';

export interface BuildProgress {
  /** Records consumed so far. */
  done: number;
  /** Expected total when the caller knows it (e.g. from the archive's embedding model counts). */
  total?: number;
}

export interface BuildOptions {
  /** Embedding model name the records belong to (used in messages). */
  model: string;
  /** Expected dimension; records of another length are skipped. Default: the first record's length. */
  dim?: number;
  /** Expected record count, for progress and pre-sizing. */
  total?: number;
  onProgress?: (p: BuildProgress) => void;
  signal?: AbortSignal;
  /** Diagnostics: skipped rows, and (for the cache) why a cache file was not used. */
  log?: (message: string) => void;
}

/** Work this long between event-loop turns while building (lets cancellation and other requests through). */
const SLICE_MS = 30;
const PROGRESS_MS = 200;

/** Feeds every record into `builder`, yielding regularly; rejects with an AbortError when cancelled. */
async function feed(records: Iterable<EmbeddingRecord>, builder: IndexBuilder, opts: BuildOptions): Promise<number> {
  let done = 0;
  let sliceStart = Date.now();
  let lastProgress = 0;
  opts.onProgress?.({ done: 0, total: opts.total });
  const it = records[Symbol.iterator]();
  try {
    for (;;) {
      const next = it.next();
      if (next.done) break;
      builder.add(next.value);
      done++;
      if ((done & 255) === 0) {
        const now = Date.now();
        if (now - sliceStart >= SLICE_MS) {
          if (opts.onProgress && now - lastProgress >= PROGRESS_MS) {
            lastProgress = now;
            opts.onProgress({ done, total: opts.total });
          }
          await yieldToEventLoop();
          throwIfAborted(opts.signal);
          sliceStart = Date.now();
        }
      }
    }
  } finally {
    // Stops the archive's statement when the build ends early (error or cancellation).
    it.return?.();
  }
  throwIfAborted(opts.signal);
  opts.onProgress?.({ done, total: opts.total });
  return done;
}

/** Feeds every record into a builder and finishes the index parts; rejects with an AbortError when cancelled. */
export async function consumeRecords(
  records: Iterable<EmbeddingRecord>,
  opts: BuildOptions,
  sink?: (dim: number) => RowSink,
): Promise<IndexParts> {
  throwIfAborted(opts.signal);
  const quantiser = await KernelRowQuantiser.create();
  const builder = new IndexBuilder({ model: opts.model, dim: opts.dim, expected: opts.total, sink, quantiser });
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
  if (skippedWrongLength + skippedNonFinite > 0) {
    opts.log?.(
      `vector index for model ${opts.model}: skipped ${skippedWrongLength} embedding(s) whose length is not ${parts.dim} ` +
        `and ${skippedNonFinite} holding NaN/infinite values; ${parts.n} indexed`,
    );
  }
  return parts;
}

/** Builds an index entirely in memory, float rows kept in the heap: for tests and small archives. */
export async function buildVectorIndex(
  records: Iterable<EmbeddingRecord>,
  opts: BuildOptions,
): Promise<Int8VectorIndex> {
  let rows: MemoryRows | undefined;
  const parts = await consumeRecords(records, opts, (dim) => (rows = new MemoryRows(dim, opts.total)));
  rows!.trim();
  return Int8VectorIndex.create(parts, rows!, 'memory');
}
