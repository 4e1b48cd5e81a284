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
  const { model, dim, cacheDir } = req;
  const name = req.archive.path;
  // The key changes with the archive's on-disk state, so re-imported conversations (new message ids) rebuild.
  const fingerprint = archiveFingerprint(name);
  const key = vectorCacheKey({ path: name, model, dim, count: req.count, fingerprint });
  const build = { dim, total: req.count, signal: req.signal, onProgress: req.onProgress };
  const remote = req.archive.vectorIndex;
  if (remote) return remote(model, { cacheDir, key, fingerprint, name, ...build });
  const sync = req.archive.sync;
  if (!sync)
    throw new Error('this archive is not open in this thread; pass a buildVectorIndex that can read its embeddings');
  const records = () => sync.embeddings(model, { shareVectors: true });
  const rows = archiveRows(sync, model);
  const log = (m: string) => req.log('debug', m);
  const index = cacheDir
    ? await loadOrBuildVectorIndex({ ...build, model, records, cacheDir, key, name, rows, log })
    : await consumeRecords(records(), { ...build, model }).then((parts) =>
        Int8VectorIndex.create(parts, rows(parts), 'memory'),
      );
  // The build counted the model's vector coverage: the first search receipt need not count it again.
  keepBuildCoverage(sync, model, index.stats, fingerprint, log);
  return index;
};
