/** Where the engine worker's entry is, and how to start it (built .js as is; TypeScript sources through tsx). */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface WorkerScript {
  file: string;
  eval: boolean;
}

/** Production: `engine-worker.js` beside the bundle; dev/tests: the TypeScript entry run through tsx. */
export function resolveWorkerScript(override?: string): WorkerScript {
  const file = override ?? defaultWorkerScript();
  if (!/\.[cm]?ts$/.test(file)) return { file, eval: false };
  // Workers on Node 20 do not apply `--import tsx` hooks to their entry module, so bootstrap through tsx's
  // CommonJS register API (resolved here, from the project's node_modules) and require the TS entry.
  const req = createRequire(__filename);
  const tsxApi = req.resolve('tsx/cjs/api');
  const code = `require(${JSON.stringify(tsxApi)}).register();\nrequire(${JSON.stringify(file)});\n`;
  return { file: code, eval: true };
}

function defaultWorkerScript(): string {
  const built = path.join(__dirname, 'engine-worker.js');
  if (fs.existsSync(built)) return built;
  const source = path.join(__dirname, 'host.ts');
  if (fs.existsSync(source)) return source;
  throw new Error(
    `The search engine worker script is missing: expected ${built} (built by esbuild.js) or ${source} (sources).`,
  );
}
