/** Archive queries and vector scans in a worker thread, behind the AsyncArchive / VectorIndex contracts. */
export { startEngineWorker, isEngineClient, type EngineClient } from './client';
export { resolveWorkerScript } from './worker-script';
