/**
 * Generate msgbrowse-format fixture archives (deterministic; overwrites cleanly).
 *
 *   tsx scripts/gen-fixtures.ts --demo [dir]                 README demo archive (default dir: data/)
 *   tsx scripts/gen-fixtures.ts --curated <dir>              curated edge-case archive
 *   tsx scripts/gen-fixtures.ts --mcp <dir>                  msgbrowse's own MCP test fixture (§10)
 *   tsx scripts/gen-fixtures.ts --legacy <version> <dir>     older schema (1..16, e.g. 2 or 8)
 *   tsx scripts/gen-fixtures.ts --scale <messages> --out <file> [--dim D] [--model name]
 *                               [--conversations N] [--seed S]
 *
 * Each archive is written as <dir>/msgbrowse.sqlite (scale: the given file). A one-line JSON
 * summary is printed to stdout; progress goes to stderr.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  buildCuratedArchive,
  buildDemoArchive,
  buildLegacyArchive,
  buildMsgbrowseMcpFixture,
  buildScaleArchive,
  LEGACY_VERSIONS,
  type ArchiveDescription,
} from '../test/fixtures/index';

const USAGE = `usage:
  tsx scripts/gen-fixtures.ts --demo [dir]              (default dir: data/)
  tsx scripts/gen-fixtures.ts --curated <dir>
  tsx scripts/gen-fixtures.ts --mcp <dir>
  tsx scripts/gen-fixtures.ts --legacy <version> <dir>  (version: ${LEGACY_VERSIONS[0]}..${LEGACY_VERSIONS[LEGACY_VERSIONS.length - 1]})
  tsx scripts/gen-fixtures.ts --scale <messages> --out <file> [--dim D] [--model name] [--conversations N] [--seed S]`;

function fail(msg: string): never {
  process.stderr.write(`gen-fixtures: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function intArg(name: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

function summary(kind: string, d: ArchiveDescription): Record<string, unknown> {
  return {
    kind,
    path: path.resolve(d.path),
    version: d.version,
    conversations: d.conversations.length,
    messages: d.messages.length,
    embeddings: d.embeddings.map((e) => ({ model: e.model, dim: e.dim, count: e.count })),
  };
}

function main(): void {
  const parse = () =>
    parseArgs({
      allowPositionals: true,
      options: {
        demo: { type: 'boolean' },
        curated: { type: 'string' },
        mcp: { type: 'string' },
        legacy: { type: 'string' },
        scale: { type: 'string' },
        out: { type: 'string' },
        dim: { type: 'string' },
        model: { type: 'string' },
        conversations: { type: 'string' },
        seed: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const { values: v, positionals } = parsed;
  if (v.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const modes = ['demo', 'curated', 'mcp', 'legacy', 'scale'].filter((k) => v[k as keyof typeof v] !== undefined);
  if (modes.length !== 1)
    fail(
      modes.length === 0
        ? 'choose one of --demo, --curated, --mcp, --legacy, --scale'
        : `choose only one of ${modes.map((m) => `--${m}`).join(', ')}`,
    );
  const out = (d: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(d)}\n`);

  if (v.demo) {
    if (positionals.length > 1) fail('--demo takes at most one directory');
    out(summary('demo', buildDemoArchive(positionals[0] ?? 'data')));
  } else if (v.curated !== undefined) {
    out(summary('curated', buildCuratedArchive(v.curated)));
  } else if (v.mcp !== undefined) {
    out(summary('mcp', buildMsgbrowseMcpFixture(v.mcp)));
  } else if (v.legacy !== undefined) {
    const version = intArg('legacy', v.legacy, 1) as number;
    if (!LEGACY_VERSIONS.includes(version)) fail(`--legacy version ${version} is not supported`);
    if (positionals.length !== 1) fail('--legacy <version> needs exactly one <dir>');
    out(summary(`legacy-v${version}`, buildLegacyArchive(positionals[0], version)));
  } else {
    const messages = intArg('scale', v.scale, 1) as number;
    if (!v.out) fail('--scale needs --out <file>');
    const d = buildScaleArchive(v.out, {
      messages,
      dim: intArg('dim', v.dim, 0),
      model: v.model,
      conversations: intArg('conversations', v.conversations, 1),
      seed: intArg('seed', v.seed, 0),
    });
    out({ kind: 'scale', ...d, path: path.resolve(d.path) });
  }
}

try {
  main();
} catch (err) {
  process.stderr.write(`gen-fixtures: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
