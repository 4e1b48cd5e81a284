/**
 * The default VectorIndexBuilder.
 * TEMPORARY: builds the in-memory ExactCosineIndex from the in-thread archive. To be replaced by the search
 * layer's persistent index (`src/search/vector/`) once its public builder lands.
 */
import { ExactCosineIndex } from './exact-index';
import type { VectorIndexBuilder } from './types';

export const defaultVectorIndexBuilder: VectorIndexBuilder = async (req) => {
  const sync = req.archive.sync;
  if (!sync) {
    throw new Error('this archive is not open in this thread; pass a buildVectorIndex that can read its embeddings');
  }
  return ExactCosineIndex.build(req.model, req.dim, sync.embeddings(req.model), req.signal);
};
