/**
 * The tools a client must see: one per committed contract snapshot (test/mcp/__toolsnaps__), in the registration order
 * of src/mcp/tools. Importing this fails while the two disagree, so a tool lost or renamed fails every test that uses it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TOOLS } from '../../src/mcp/tools';

const SUFFIX = '.snap.json';

/** The snapshots folder, found upward: this file also runs bundled (test/integration's out/integration/suite.js). */
function snapshotDir(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'test', 'mcp', '__toolsnaps__');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`no test/mcp/__toolsnaps__ above ${__dirname}`);
  }
}

/** The names of the committed tool snapshots. */
const SNAPSHOT_TOOLS: readonly string[] = fs
  .readdirSync(snapshotDir())
  .filter((f) => f.endsWith(SUFFIX))
  .map((f) => f.slice(0, -SUFFIX.length));

export const EXPECTED_TOOLS: readonly string[] = TOOLS.map((t) => t.name);
export type ExpectedTool = string;

const unsnapped = EXPECTED_TOOLS.filter((t) => !SNAPSHOT_TOOLS.includes(t));
const lost = SNAPSHOT_TOOLS.filter((t) => !EXPECTED_TOOLS.includes(t));
if (unsnapped.length || lost.length || new Set(EXPECTED_TOOLS).size !== EXPECTED_TOOLS.length) {
  throw new Error(
    `src/mcp/tools and test/mcp/__toolsnaps__ disagree: ${[
      ...unsnapped.map((t) => `${t} has no snapshot`),
      ...lost.map((t) => `${t} has a snapshot but is not in TOOLS`),
    ].join('; ')}` +
      ` (tools: ${EXPECTED_TOOLS.join(', ')}). A new or removed tool: \`npm run test:toolsnaps:update\` and commit.`,
  );
}
