/** Where the engine worker's entry is, and how to start it (built .js as is; TypeScript sources through tsx). */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export interface WorkerScript {
  file: string;
  eval: boolean;
}

const ENTRIES = {
  engine: { built: 'engine-worker.js', source: 'host.ts' },
  build: { built: 'index-build-worker.js', source: 'build-host.ts' },
} as const;

/** Production: the bundle beside this one (`engine-worker.js`…); dev/tests: the TypeScript entry run through tsx. */
export function resolveWorkerScript(override?: string, entry: keyof typeof ENTRIES = 'engine'): WorkerScript {
  const file = override ?? defaultWorkerScript(entry);
  if (!/\.[cm]?ts$/.test(file)) return { file, eval: false };
  // Node 20 workers do not apply `--import tsx` hooks to their entry: register tsx's CommonJS API, then require it.
  const req = createRequire(__filename);
  const tsxApi = req.resolve('tsx/cjs/api');
  const code = `require(${JSON.stringify(tsxApi)}).register();\nrequire(${JSON.stringify(file)});\n`;
  return { file: code, eval: true };
}

function defaultWorkerScript(entry: keyof typeof ENTRIES): string {
  const built = path.join(__dirname, ENTRIES[entry].built);
  if (fs.existsSync(built)) return built;
  const source = path.join(__dirname, ENTRIES[entry].source);
  if (fs.existsSync(source)) return source;
  throw new Error(
    `The ${entry === 'engine' ? 'search engine' : 'index-build'} worker script is missing: expected ${built} (built by esbuild.js) or ${source} (sources).`,
  );
}

/** A worker running `script`: the tsx loader is eval'd code, run without the parent's exec args. */
export function startWorker(script: WorkerScript, workerData: unknown, opts: WorkerOptions = {}): Worker {
  return new Worker(script.file, { ...opts, eval: script.eval, workerData, execArgv: script.eval ? [] : undefined });
}
