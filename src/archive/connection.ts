/** One read connection, robust against a concurrent msgbrowse writer: each run is one snapshot, retried when torn. */
import { SQLITE } from './sqlite-codes';
import fs from 'node:fs';
import type { Database, SqlValue } from '@sqlite.org/sqlite-wasm';
import { ArchiveError } from './errors';
import { type ArchiveIdentity, mayBeTorn, type ReaderFds, readIdentity, statsChanged } from './file-identity';
import { StatementCache } from './statements';
import type { Engine } from './wasm-engine';

export type { SqlValue };
export type Row = Record<string, SqlValue>;
export type Param = string | number | bigint | null | Uint8Array;

/** Column access for {@link Sql.scan}, valid only inside the callback (NULL reads as 0, '' and null). */
export interface Columns {
  num(i: number): number;
  text(i: number): string;
  blob(i: number): Uint8Array | null;
  /** The storage class (SQLITE.INTEGER … SQLITE.NULL). */
  type(i: number): number;
  /** The value's bytes without making a string; with {@link type}, what SQL's `=` compares. */
  bytes(i: number): Uint8Array;
}

/** What a query function gets inside one read snapshot. */
export interface Sql {
  scan(sql: string, params: readonly Param[], fn: (c: Columns) => void): void;
  all(sql: string, params?: readonly Param[]): Row[];
  get(sql: string, params?: readonly Param[]): Row | undefined;
  value(sql: string, params?: readonly Param[]): SqlValue | undefined;
}

export function mapRows<T>(sql: Sql, query: string, params: readonly Param[], read: (c: Columns) => T): T[] {
  const out: T[] = [];
  sql.scan(query, params, (c) => {
    out.push(read(c));
  });
  return out;
}

export type OpenMode = 'wal' | 'immutable';

/**
 * KiB of page cache. A serving connection keeps the pages a session's searches share (the peer bench's 30 queries
 * touch under 8 MB: at 4 MB each evicted the next's, a VFS read per page); a scan reads each page once.
 */
const PAGE_CACHE_KIB = { serving: 8192, scan: 4096 };

/** Attempts per run, with a doubling backoff between them. */
const MAX_ATTEMPTS = 10;
const MAX_BACKOFF_MS = 64;
/** Consecutive identical failures on unchanged files before the archive is reported damaged. */
const DAMAGED_AFTER = 3;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export function sqliteCode(e: unknown): number | undefined {
  const rc = (e as { resultCode?: unknown } | null)?.resultCode;
  return typeof rc === 'number' ? rc : undefined;
}

/** Errors a concurrent writer's checkpoint can cause on our lock-free reader (retry after reopen). */
function isTransient(e: unknown): boolean {
  const rc = sqliteCode(e);
  if (rc === undefined) return false;
  const primary = rc & 0xff;
  return (
    primary === SQLITE.CORRUPT ||
    primary === SQLITE.NOTADB ||
    primary === SQLITE.BUSY ||
    primary === SQLITE.SCHEMA ||
    rc === SQLITE.IOERR_SHORT_READ
  );
}

export interface ConnectionOptions {
  /** Default: WAL-read, falling back to immutable. */
  mode?: OpenMode;
  onAttempt?: (attempt: number) => void;
  /** The connection scans (an index build): its main database is read ahead (ReadonlyVfs.readAhead). */
  readAhead?: boolean;
}

export class ArchiveConnection {
  private db: Database | undefined;
  private stmts: StatementCache | undefined;
  private opened: ArchiveIdentity | undefined;
  /** For the cheap post-read check. */
  private fds: ReaderFds | undefined;
  private closed = false;
  opens = 0;

  constructor(
    private readonly engine: Engine,
    readonly path: string,
    private readonly options: ConnectionOptions = {},
  ) {}

  identity(): ArchiveIdentity {
    this.ensureOpen();
    return this.opened as ArchiveIdentity;
  }

  private openDb(mode: OpenMode): Database {
    const { sqlite3, vfs } = this.engine;
    const db = new sqlite3.oo1.DB({
      filename: this.path,
      flags: 'r',
      vfs: mode === 'wal' ? vfs.walName : vfs.immutableName,
    });
    try {
      if (mode === 'wal') db.exec('PRAGMA locking_mode=EXCLUSIVE');
      db.exec('PRAGMA temp_store=MEMORY');
      db.exec(`PRAGMA cache_size=-${PAGE_CACHE_KIB[this.options.readAhead ? 'scan' : 'serving']}`);
      db.exec('PRAGMA query_only=1');
      // Force the first read now so a broken WAL view fails here, not in a query.
      db.selectValue('SELECT count(*) FROM sqlite_master');
    } catch (e) {
      db.close();
      throw e;
    }
    return db;
  }

  private openInMode(): Database {
    if (this.options.mode) return this.openDb(this.options.mode);
    try {
      return this.openDb('wal');
    } catch (walErr) {
      // Interrupts and a writer's transient states are retried by run(), not papered over.
      if (isTransient(walErr) || sqliteCode(walErr) === SQLITE.INTERRUPT) throw walErr;
      try {
        return this.openDb('immutable');
      } catch {
        throw walErr;
      }
    }
  }

  private ensureOpen(): Database {
    if (this.closed) throw new ArchiveError('query_failed', `The archive ${this.path} was closed.`, this.path);
    if (this.db) return this.db;
    const identity = readIdentity(this.path);
    const db = this.openInMode();
    this.db = db;
    this.stmts = new StatementCache(this.engine.sqlite3, db);
    this.opened = identity;
    this.fds = this.engine.vfs.fdsOf(Number(db.pointer));
    if (this.options.readAhead) this.engine.vfs.readAhead(Number(db.pointer));
    this.opens++;
    return db;
  }

  private drop(): void {
    this.stmts?.finalizeAll();
    this.stmts = undefined;
    if (this.db) {
      try {
        this.db.close();
      } catch {
        /* ignore */
      }
    }
    this.db = undefined;
    this.opened = undefined;
    this.fds = undefined;
  }

  close(): void {
    this.drop();
    this.closed = true;
  }

  private get cache(): StatementCache {
    if (!this.stmts) throw new ArchiveError('query_failed', `The archive ${this.path} is not open.`, this.path);
    return this.stmts;
  }

  private readonly sql: Sql = {
    scan: (sql, params, fn) => {
      this.cache.with(sql, params, (s) => {
        while (s.step()) fn(s);
      });
    },
    all: (sql, params) =>
      this.cache.with(sql, params, (s) => {
        const rows: Row[] = [];
        while (s.step()) rows.push(s.row());
        return rows;
      }),
    get: (sql, params) => this.cache.with(sql, params, (s) => (s.step() ? s.row() : undefined)),
    value: (sql, params) => this.cache.with(sql, params, (s) => (s.step() ? s.value(0) : undefined)),
  };

  /** Runs `fn` in one read snapshot: reopened first if the files changed, retried when a writer may have torn it. */
  run<T>(fn: (sql: Sql) => T): T {
    let lastErr: unknown;
    // Files as they were at the first failure: the same error on unchanged files is damage, not a writer.
    let failedOn: ArchiveIdentity | undefined;
    let sameFailures = 0;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 0) {
        if (lastErr !== undefined && isDamage(lastErr)) {
          if (failedOn && !statsChanged(failedOn, this.path)) {
            if (++sameFailures >= DAMAGED_AFTER) throw damaged(this.path, lastErr);
          } else {
            failedOn = readIdentity(this.path);
            sameFailures = 0;
          }
        }
        this.drop();
        sleepMs(Math.min(2 ** (attempt - 1), MAX_BACKOFF_MS));
      }
      try {
        if (this.db && this.opened && statsChanged(this.opened, this.path)) this.drop();
        const db = this.ensureOpen();
        const stmts = this.cache;
        const base = this.opened as ArchiveIdentity;
        this.options.onAttempt?.(attempt);
        let result: T;
        // Cached BEGIN/COMMIT statements: db.exec() would parse them on every call.
        stmts.exec('BEGIN');
        try {
          result = fn(this.sql);
        } finally {
          try {
            stmts.exec('COMMIT');
          } catch {
            try {
              db.exec('ROLLBACK');
            } catch {
              /* the next run reopens */
              this.drop();
            }
          }
        }
        if (mayBeTorn(base, this.path, this.fds) && attempt < MAX_ATTEMPTS - 1) {
          lastErr = undefined;
          continue;
        }
        return result;
      } catch (e) {
        if (!isTransient(e)) throw toArchiveError(this.path, e);
        lastErr = e;
      }
    }
    throw transientFailure(this.path, lastErr);
  }
}

/** Any non-transient failure as an ArchiveError. */
export function toArchiveError(path: string, e: unknown): ArchiveError {
  if (e instanceof ArchiveError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  if (!fs.existsSync(path)) {
    return new ArchiveError(
      'missing_path',
      `The archive ${path} no longer exists (it was moved or deleted). Point the extension at its new location.`,
      path,
    );
  }
  const rc = sqliteCode(e);
  if (rc === SQLITE.INTERRUPT) return new ArchiveError('query_failed', `Reading ${path} was interrupted.`, path);
  return new ArchiveError('query_failed', `Reading ${path} failed: ${msg}`, path);
}

function isDamage(e: unknown): boolean {
  const primary = (sqliteCode(e) ?? 0) & 0xff;
  return primary === SQLITE.CORRUPT || primary === SQLITE.NOTADB;
}

/** The same SQLite error on files that did not change: the archive itself is damaged. */
function damaged(path: string, e: unknown): ArchiveError {
  const detail = e instanceof Error ? e.message : String(e);
  const where = /fts5|messages_fts/i.test(detail)
    ? "msgbrowse's full-text index (messages_fts) is damaged: keyword search cannot work, other tools still can"
    : 'part of the file is damaged';
  return new ArchiveError(
    'corrupt',
    `The archive ${path} is damaged (${detail}); ${where}. The file did not change between attempts, so this is not an import in progress. Check it with \`msgbrowse doctor\` or restore a backup (msgbrowse keeps snapshots in <data dir>/backups).`,
    path,
  );
}

function transientFailure(path: string, e: unknown): ArchiveError {
  const rc = sqliteCode(e);
  const detail = e instanceof Error ? e.message : 'the archive kept changing while it was read';
  if (rc !== undefined && (rc & 0xff) === SQLITE.BUSY) {
    return new ArchiveError(
      'busy',
      `The archive ${path} is busy (${detail}) — msgbrowse is probably importing or checkpointing right now. Try again in a moment.`,
      path,
    );
  }
  return new ArchiveError(
    'corrupt',
    `Could not get a consistent read of ${path} after ${MAX_ATTEMPTS} attempts (${detail}). If msgbrowse is importing, try again when it has finished; otherwise check the file with \`msgbrowse doctor\`.`,
    path,
  );
}
