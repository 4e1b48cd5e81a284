/** Archive queries and vector scans in a worker thread, behind the AsyncArchive / VectorIndex contracts. */
export { startEngineWorker, resolveWorkerScript, isEngineClient } from './client';
export type { EngineClient, EngineWorkerOptions, VectorIndexOptions } from './client';
export type { EngineLog, VectorOpenOptions } from './protocol';
