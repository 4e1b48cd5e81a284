/** Prepared statements over the raw WASM exports: oo1's `Stmt` wraps every call, most of a small query's time. */
import { SQLITE } from './sqlite-codes';
import type { Database, PreparedStatement, SqlValue, Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import type { Columns, Param, Row } from './connection';

/** Pointers are 32-bit numbers in this build; int64 is a BigInt. */
interface Exports {
  sqlite3_step(p: number): number;
  sqlite3_reset(p: number): number;
  sqlite3_clear_bindings(p: number): number;
  sqlite3_bind_parameter_count(p: number): number;
  sqlite3_bind_int(p: number, i: number, v: number): number;
  sqlite3_bind_int64(p: number, i: number, v: bigint): number;
  sqlite3_bind_double(p: number, i: number, v: number): number;
  sqlite3_bind_null(p: number, i: number): number;
  sqlite3_column_type(p: number, i: number): number;
  sqlite3_column_double(p: number, i: number): number;
  sqlite3_column_int64(p: number, i: number): bigint;
  sqlite3_column_text(p: number, i: number): number;
  sqlite3_column_blob(p: number, i: number): number;
  sqlite3_column_bytes(p: number, i: number): number;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The WASM heap as a Buffer, re-created when the memory grows (its ArrayBuffer is replaced). */
class Heap {
  private buf: Buffer;
  constructor(private readonly memory: { readonly buffer: ArrayBuffer }) {
    this.buf = Buffer.from(memory.buffer);
  }
  get bytes(): Buffer {
    if (this.buf.buffer !== this.memory.buffer) this.buf = Buffer.from(this.memory.buffer);
    return this.buf;
  }
}

class Statement implements Columns {
  readonly p: number;
  private readonly nParams: number;
  private names: string[] | undefined;

  constructor(
    private readonly x: Exports,
    private readonly heap: Heap,
    private readonly checkRc: (rc: number) => never,
    readonly stmt: PreparedStatement,
  ) {
    this.p = Number(stmt.pointer);
    this.nParams = x.sqlite3_bind_parameter_count(this.p);
  }

  bind(params: readonly Param[]): void {
    if (params.length !== this.nParams) {
      throw new Error(`This statement takes ${this.nParams} parameter(s), ${params.length} given.`);
    }
    const { x, p } = this;
    for (let i = 0; i < params.length; i++) {
      const v = params[i];
      let rc = 0;
      if (typeof v === 'number') {
        if (Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX) rc = x.sqlite3_bind_int(p, i + 1, v);
        else if (Number.isSafeInteger(v)) rc = x.sqlite3_bind_int64(p, i + 1, BigInt(v));
        else rc = x.sqlite3_bind_double(p, i + 1, v);
      } else if (typeof v === 'bigint') rc = x.sqlite3_bind_int64(p, i + 1, v);
      else if (v === null) rc = x.sqlite3_bind_null(p, i + 1);
      else this.stmt.bind(i + 1, v); // strings and blobs: oo1 copies them into the heap for us
      if (rc) this.checkRc(rc);
    }
  }

  step(): boolean {
    const rc = this.x.sqlite3_step(this.p);
    if (rc === SQLITE.ROW) return true;
    if (rc === SQLITE.DONE) return false;
    return this.checkRc(rc);
  }

  /** A failed step already threw its error, so the rc is not re-raised. */
  reset(): void {
    this.x.sqlite3_reset(this.p);
    this.x.sqlite3_clear_bindings(this.p);
  }

  num(i: number): number {
    return this.x.sqlite3_column_double(this.p, i);
  }

  text(i: number): string {
    const ptr = Number(this.x.sqlite3_column_text(this.p, i));
    if (!ptr) return '';
    const n = this.x.sqlite3_column_bytes(this.p, i);
    return this.heap.bytes.toString('utf8', ptr, ptr + n);
  }

  blob(i: number): Uint8Array | null {
    const ptr = Number(this.x.sqlite3_column_blob(this.p, i));
    const n = this.x.sqlite3_column_bytes(this.p, i);
    if (!ptr) return n === 0 && this.x.sqlite3_column_type(this.p, i) !== 5 ? new Uint8Array(0) : null;
    return new Uint8Array(this.heap.bytes.buffer, ptr, n);
  }

  type(i: number): number {
    return this.x.sqlite3_column_type(this.p, i);
  }

  bytes(i: number): Uint8Array {
    const blob = this.x.sqlite3_column_type(this.p, i) === SQLITE.BLOB;
    const ptr = Number(blob ? this.x.sqlite3_column_blob(this.p, i) : this.x.sqlite3_column_text(this.p, i));
    const n = this.x.sqlite3_column_bytes(this.p, i);
    return ptr ? new Uint8Array(this.heap.bytes.buffer, ptr, n) : new Uint8Array(0);
  }

  /** Column `i` as oo1's `get()` returns it (integers beyond 2^53 stay BigInt; blobs are copies). */
  value(i: number): SqlValue {
    switch (this.x.sqlite3_column_type(this.p, i)) {
      case SQLITE.INTEGER: {
        const d = this.x.sqlite3_column_double(this.p, i);
        if (Number.isSafeInteger(d)) return d;
        const v = this.x.sqlite3_column_int64(this.p, i);
        return v >= Number.MIN_SAFE_INTEGER && v <= Number.MAX_SAFE_INTEGER ? Number(v) : v;
      }
      case SQLITE.FLOAT:
        return this.x.sqlite3_column_double(this.p, i);
      case SQLITE.TEXT:
        return this.text(i);
      case SQLITE.BLOB:
        return (this.blob(i) ?? new Uint8Array(0)).slice();
      default:
        return null;
    }
  }

  row(): Row {
    const names = (this.names ??= this.stmt.getColumnNames());
    const r: Row = {};
    for (let i = 0; i < names.length; i++) r[names[i]] = this.value(i);
    return r;
  }
}

/** The statements of one open database, prepared once and kept until it is closed. */
export class StatementCache {
  private readonly cache = new Map<string, Statement>();
  private readonly x: Exports;
  private readonly heap: Heap;
  private readonly checkRc: (rc: number) => never;

  constructor(
    sqlite3: Sqlite3Static,
    private readonly db: Database,
  ) {
    const wasm = sqlite3.wasm as unknown as { exports: Exports; memory: { readonly buffer: ArrayBuffer } };
    this.x = wasm.exports;
    this.heap = new Heap(wasm.memory);
    const dbPtr = db.pointer;
    // Throws SQLite3Error, exactly like oo1's own step/bind.
    this.checkRc = (rc) => {
      sqlite3.oo1.DB.checkRc(dbPtr as never, rc);
      throw new Error(`SQLite result code ${rc}`);
    };
  }

  with<T>(sql: string, params: readonly Param[] | undefined, fn: (s: Statement) => T): T {
    let s = this.cache.get(sql);
    if (!s) this.cache.set(sql, (s = new Statement(this.x, this.heap, this.checkRc, this.db.prepare(sql))));
    try {
      s.bind(params ?? []);
      return fn(s);
    } finally {
      s.reset();
    }
  }

  exec(sql: string): void {
    this.with(sql, undefined, (s) => s.step());
  }

  finalizeAll(): void {
    for (const s of this.cache.values()) {
      try {
        s.stmt.finalize();
      } catch {
        /* ignore */
      }
    }
    this.cache.clear();
  }
}
