/** The default VectorIndexBuilder: built in the worker when the archive has one, else here; cached when a dir is given. */
import {
  archiveRows,
  consumeRecords,
  Int8VectorIndex,
  keepBuildCoverage,
  loadOrBuildVectorIndex,
  vectorCacheKey,
} from '../search/vector/index';
import { archiveFingerprint } from './archive-holder';
import type { VectorIndexBuilder } from './types';

export const defaultVectorIndexBuilder: VectorIndexBuilder = async (req) => {
  // The key changes with the archive's on-disk state, so re-imported conversations (new message ids) rebuild.
  const fingerprint = archiveFingerprint(req.archive.path);
  const key = vectorCacheKey({ path: req.archive.path, model: req.model, dim: req.dim, count: req.count, fingerprint });
  const remote = req.archive.vectorIndex;
  if (remote) {
    return remote(req.model, {
      cacheDir: req.cacheDir,
      key,
      fingerprint,
      name: req.archive.path,
      dim: req.dim,
      total: req.count,
      signal: req.signal,
      onProgress: req.onProgress,
    });
  }
  const sync = req.archive.sync;
  if (!sync)
    throw new Error('this archive is not open in this thread; pass a buildVectorIndex that can read its embeddings');
  const records = () => sync.embeddings(req.model, { shareVectors: true });
  const rows = archiveRows(sync, req.model);
  // The build counted the model's vector coverage: the first search receipt need not count it again.
  const prime = (index: Int8VectorIndex): Int8VectorIndex => {
    keepBuildCoverage(sync, req.model, index.stats, fingerprint, (m) => req.log('debug', m));
    return index;
  };
  if (!req.cacheDir) {
    const parts = await consumeRecords(records(), {
      model: req.model,
      dim: req.dim,
      total: req.count,
      signal: req.signal,
      onProgress: req.onProgress,
    });
    return prime(await Int8VectorIndex.create(parts, rows(parts), 'memory'));
  }
  const index = await loadOrBuildVectorIndex({
    records,
    model: req.model,
    dim: req.dim,
    total: req.count,
    cacheDir: req.cacheDir,
    key,
    name: req.archive.path,
    signal: req.signal,
    onProgress: req.onProgress,
    rows,
    log: (m) => req.log('debug', m),
  });
  return prime(index);
};
