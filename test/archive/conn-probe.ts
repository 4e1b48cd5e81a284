/** What an archive's connection is doing, read from its private fields: the shipped classes expose none of it. */
import type { Database } from '@sqlite.org/sqlite-wasm';
import type { Archive } from '../../src/archive';
import type { ArchiveConnection } from '../../src/archive/connection';
import type { Engine } from '../../src/archive/wasm-engine';
import { probeOf } from './vfs-probe';

interface Internals {
  db: Database | undefined;
  engine: Engine;
  opens: number;
}

export interface ConnectionState {
  /** The VFS the open database uses; undefined while closed. */
  mode: 'wal' | 'immutable' | undefined;
  opens: number;
  readAhead: boolean;
}

export function connectionState(of: Archive | ArchiveConnection): ConnectionState {
  const conn = ('conn' in of ? of.conn : of) as unknown as Internals;
  const { db, engine, opens } = conn;
  if (!db) return { mode: undefined, opens, readAhead: false };
  const vfsName = db.dbVfsName();
  const mode = vfsName === engine.vfs.walName ? 'wal' : vfsName === engine.vfs.immutableName ? 'immutable' : undefined;
  return { mode, opens, readAhead: probeOf(engine).readsAhead(Number(db.pointer)) };
}
