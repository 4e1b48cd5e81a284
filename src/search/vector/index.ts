/** The exact int8 + WASM SIMD vector index (see int8-index.ts for the exactness argument). */
export { buildVectorIndex, type BuildOptions, type BuildProgress } from './build';
export {
  loadOrBuildVectorIndex,
  loadCachedParts,
  writeCacheFile,
  cacheFilePath,
  vectorCacheKey,
  type LoadOrBuildOptions,
} from './cache';
export { consumeRecords } from './build';
export type { IndexParts } from './accumulator';
export { archiveRows, KeyedRows, type RowStore, type VectorSource } from './row-store';
export { packParts, unpackParts, type PackedParts } from './transfer';
export { keepBuildCoverage, type BuildStats } from './accumulator';
export { Int8VectorIndex, type VectorIndexStats, type SearchTrace, type IndexOrigin } from './int8-index';
export { VectorIndexError, isVectorIndexError, type VectorErrorCode } from './errors';
export type { VectorFilter, VectorHit, VectorIndex } from '../types';
