/**
 * The keyword search's own SQL in native SQLite (better-sqlite3, statements cached as ours are): issue 15's reference
 * for the keyword half end to end ("the same SQL natively"). `bench/mcp-overhead.ts` breaks the call down against it;
 * the e2e section times it beside the keyword-only calls, in the same run, on the same queries.
 */
import Database from 'better-sqlite3';
import type { Row, Sql, SqlValue } from '../../src/archive/connection';
import { valueColumns } from '../../test/fixtures/native-sql';
import { searchKeyword } from '../../src/archive/queries/search';
import { detectSchema, type SchemaInfo } from '../../src/archive/schema';

/** better-sqlite3 behind the archive layer's Sql interface. */
export function nativeSql(db: Database.Database): Sql {
  const cache = new Map<string, Database.Statement>();
  const st = (q: string) => {
    let s = cache.get(q);
    if (!s) cache.set(q, (s = db.prepare(q)));
    return s;
  };
  return {
    // A fresh statement: .raw() would switch the cached one.
    scan: (q, p, fn) => {
      for (const r of db
        .prepare(q)
        .raw()
        .iterate(...p) as Iterable<SqlValue[]>)
        fn(valueColumns(r));
    },
    all: (q, p = []) => st(q).all(...p) as Row[],
    get: (q, p = []) => st(q).get(...p) as Row | undefined,
    value: (q, p = []) => {
      const r = db
        .prepare(q)
        .raw()
        .get(...p) as unknown[] | undefined;
      return r?.[0] as Row[string] | undefined;
    },
  };
}

export interface NativeKeyword {
  sql: Sql;
  schema: SchemaInfo;
  /** The statements `search_messages` runs first for `query` (limit 20, as the tool's default). */
  search(query: string): unknown;
  close(): void;
}

export function openNativeKeyword(file: string): NativeKeyword {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const sql = nativeSql(db);
  const schema = detectSchema(sql);
  return {
    sql,
    schema,
    search: (query) => searchKeyword(sql, schema, { query, limit: 20 }, []),
    close: () => db.close(),
  };
}
