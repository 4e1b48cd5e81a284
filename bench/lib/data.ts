/**
 * Benchmark archives: generated once with the fixture generator (test/fixtures buildScaleArchive) into a cache
 * directory outside the repository (default ~/.cache/msgbrowse-bench, override with MSGBROWSE_BENCH_DIR), reused when
 * a stamp file with the same generator parameters exists beside them.
 *
 *   npx tsx bench/lib/data.ts m100k_e768 m1m m1m_e768 m1m_e384     generate (in this order) and exit
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildScaleArchive, type ScaleArchiveDescription } from '../../test/fixtures';

export const BENCH_DIR = process.env.MSGBROWSE_BENCH_DIR ?? path.join(os.homedir(), '.cache', 'msgbrowse-bench');

export interface ArchiveSpec {
  name: string;
  messages: number;
  dim: number;
  model: string;
  seed: number;
  /** buildScaleArchive's defaults when absent. */
  conversations?: number;
  longMessages?: number;
}

/** Bump when the generator's output would change for the same parameters. */
const STAMP_VERSION = 1;

export const SPECS: Record<string, ArchiveSpec> = {
  m100k_e768: { name: 'm100k_e768', messages: 100_000, dim: 768, model: 'nomic-embed-text', seed: 1 },
  m1m: { name: 'm1m', messages: 1_000_000, dim: 0, model: 'nomic-embed-text', seed: 1 },
  m1m_e768: { name: 'm1m_e768', messages: 1_000_000, dim: 768, model: 'nomic-embed-text', seed: 1 },
  m1m_e384: { name: 'm1m_e384', messages: 1_000_000, dim: 384, model: 'all-minilm', seed: 1 },
  // Issue 39's shapes: a real archive's length of messages (5% long) in 400 conversations, and 20,000 conversations.
  m20k_long: {
    name: 'm20k_long',
    messages: 20_000,
    conversations: 400,
    longMessages: 0.05,
    dim: 64,
    model: 'bench-embed',
    seed: 1,
  },
  m40k_c20k: { name: 'm40k_c20k', messages: 40_000, conversations: 20_000, dim: 0, model: 'bench-embed', seed: 1 },
};

export interface BenchArchive {
  spec: ArchiveSpec;
  file: string;
  desc: ScaleArchiveDescription;
  bytes: number;
}

function stampOf(spec: ArchiveSpec): string {
  return JSON.stringify({ v: STAMP_VERSION, generator: 'buildScaleArchive', ...spec });
}

/** The archive if it exists with a matching stamp, else undefined. */
export function cachedArchive(name: string): BenchArchive | undefined {
  const spec = SPECS[name];
  if (!spec) throw new Error(`unknown bench archive ${name}; known: ${Object.keys(SPECS).join(', ')}`);
  const dir = path.join(BENCH_DIR, spec.name);
  const file = path.join(dir, 'msgbrowse.sqlite');
  const stampFile = path.join(dir, 'stamp.json');
  if (!fs.existsSync(file) || !fs.existsSync(stampFile)) return undefined;
  const stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8')) as { params: string; desc: ScaleArchiveDescription };
  if (stamp.params !== stampOf(spec)) return undefined;
  return { spec, file, desc: stamp.desc, bytes: fs.statSync(file).size };
}

/** Generate (or reuse) an archive; progress goes to stderr. */
export function ensureArchive(
  name: string,
  log: (m: string) => void = (m) => process.stderr.write(`${m}\n`),
): BenchArchive {
  const hit = cachedArchive(name);
  if (hit) return hit;
  const spec = SPECS[name];
  const dir = path.join(BENCH_DIR, spec.name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'msgbrowse.sqlite');
  log(
    `generating ${name}: ${spec.messages} messages${spec.dim ? ` × ${spec.dim}-d embeddings (${spec.model})` : ''} → ${file}`,
  );
  const desc = buildScaleArchive(file, {
    messages: spec.messages,
    dim: spec.dim || undefined,
    model: spec.model,
    seed: spec.seed,
    ...(spec.conversations ? { conversations: spec.conversations } : {}),
    ...(spec.longMessages ? { longMessages: spec.longMessages } : {}),
    progress: true,
  });
  fs.writeFileSync(path.join(dir, 'stamp.json'), JSON.stringify({ params: stampOf(spec), desc }, null, 1));
  log(`generated ${name} in ${desc.seconds.toFixed(0)} s (${(fs.statSync(file).size / 1e6).toFixed(1)} MB)`);
  return { spec, file, desc, bytes: fs.statSync(file).size };
}

if (require.main === module) {
  for (const name of process.argv.slice(2)) ensureArchive(name);
}
