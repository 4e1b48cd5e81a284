/** Damaging copies of fixture archives in precise places (never the originals). */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { openWritable } from '../../fixtures/index';

/** Folds any WAL into the main file and leaves a single-file database (journal_mode DELETE). */
export function consolidate(file: string): void {
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** Page numbers (1-based) of a table or index, from `dbstat` when available, else its root page. */
export function pagesOf(file: string, name: string): { pageSize: number; pages: number[] } {
  const db = new Database(file, { readonly: true });
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    let pages: number[] = [];
    try {
      pages = (
        db.prepare('SELECT pageno FROM dbstat WHERE name = ? ORDER BY pageno').all(name) as { pageno: number }[]
      ).map((r) => r.pageno);
    } catch {
      /* dbstat not compiled in */
    }
    if (pages.length === 0) {
      const root = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(name) as
        | { rootpage: number }
        | undefined;
      if (!root) throw new Error(`no table or index named ${name} in ${file}`);
      pages = [root.rootpage];
    }
    return { pageSize, pages };
  } finally {
    db.close();
  }
}

/**
 * Overwrites every page of `name` (e.g. `messages_fts_data`) with garbage that keeps no valid b-tree
 * header. The file must be consolidated (no WAL). Returns the pages overwritten.
 */
export function corruptTablePages(file: string, name: string): number[] {
  consolidate(file);
  const { pageSize, pages } = pagesOf(file, name);
  const fd = fs.openSync(file, 'r+');
  try {
    for (const p of pages) {
      const garbage = Buffer.alloc(pageSize, 0xa5);
      garbage[0] = 0x0d; // claims to be a table leaf page …
      garbage.writeUInt16BE(0xffff, 3); // … with an impossible cell count
      fs.writeSync(fd, garbage, 0, pageSize, (p - 1) * pageSize);
    }
  } finally {
    fs.closeSync(fd);
  }
  return pages;
}

/** Replaces the stored vector of one message (by hash, for `model`) with a blob of `bytes` bytes. */
export function damageEmbedding(file: string, hash: string, model: string, bytes: number): void {
  const db = openWritable(file);
  try {
    const r = db
      .prepare('UPDATE embeddings SET vec = ? WHERE message_hash = ? AND model = ?')
      .run(Buffer.alloc(bytes, 0x3f), hash, model);
    if (r.changes !== 1) throw new Error(`no embedding of ${hash} for ${model}`);
  } finally {
    db.close();
  }
  consolidate(file);
}
