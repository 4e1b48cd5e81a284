/** Byte-exact snapshots of a directory: names, sizes, mtimes, inodes and SHA-256 of every file. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface FileState {
  size: number;
  mtimeMs: number;
  ino: number;
  sha256: string;
}

export type DirSnapshot = Map<string, FileState>;

export function hashFile(file: string): string {
  const h = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

/** Snapshot of every entry directly in `dir` (subdirectories are listed with size 0 and no hash). */
export function snapshotDir(dir: string, { hashes = true } = {}): DirSnapshot {
  const snap: DirSnapshot = new Map();
  for (const name of fs.readdirSync(dir).sort()) {
    const st = fs.statSync(path.join(dir, name));
    snap.set(name, {
      size: st.isFile() ? st.size : 0,
      mtimeMs: st.mtimeMs,
      ino: st.ino,
      sha256: hashes && st.isFile() ? hashFile(path.join(dir, name)) : '',
    });
  }
  return snap;
}

/** Human-readable differences between two snapshots (empty when identical). */
export function diffSnapshots(before: DirSnapshot, after: DirSnapshot): string[] {
  const out: string[] = [];
  for (const [name, a] of before) {
    const b = after.get(name);
    if (!b) {
      out.push(`removed ${name}`);
      continue;
    }
    if (a.size !== b.size) out.push(`${name}: size ${a.size} → ${b.size}`);
    if (a.mtimeMs !== b.mtimeMs) out.push(`${name}: mtime ${a.mtimeMs} → ${b.mtimeMs}`);
    if (a.ino !== b.ino) out.push(`${name}: inode ${a.ino} → ${b.ino}`);
    if (a.sha256 !== b.sha256) out.push(`${name}: content changed`);
  }
  for (const name of after.keys()) if (!before.has(name)) out.push(`created ${name}`);
  return out;
}
