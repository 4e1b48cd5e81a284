/**
 * Dev-only (not shipped): writes media/demo/msgbrowse.sqlite.gz, the demo archive the extension unpacks into its
 * global storage for "msgbrowse: Open Demo Archive". Deterministic: rerunning gives identical bytes.
 *
 *   npx tsx media/demo/generate.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildDemoArchive } from '../../test/fixtures';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-demo-'));
try {
  const desc = buildDemoArchive(dir);
  const bytes = fs.readFileSync(desc.path);
  const out = path.join(__dirname, 'msgbrowse.sqlite.gz');
  fs.writeFileSync(out, gzipSync(bytes, { level: 9 }));
  console.log(
    `${path.relative(process.cwd(), out)}: ${desc.conversations.length} conversations, ${desc.messages.length} messages, ${fs.statSync(out).size} bytes`,
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
