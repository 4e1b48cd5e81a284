/** The exact int8 + WASM SIMD vector index (see int8-index.ts for the exactness argument). */
export { buildVectorIndex, consumeRecords, type BuildProgress } from './build';
export {
  loadOrBuildVectorIndex,
  loadCachedParts,
  writeCacheFile,
  cacheFilePath,
  vectorCacheKey,
  type LoadOrBuildOptions,
} from './cache';
export { keepBuildCoverage, type BuildStats, type IndexParts } from './accumulator';
export { archiveRows, KeyedRows } from './row-store';
export { packParts, unpackParts, type PackedParts } from './transfer';
export { Int8VectorIndex } from './int8-index';
export { VectorIndexError } from './errors';
