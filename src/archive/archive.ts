/** The synchronous Archive: each query method of `methods.ts` in one snapshot, schema re-detected at every reopen. */
import type { ArchiveConnection, Sql } from './connection';
import { fingerprint } from './file-identity';
import {
  ARCHIVE_METHODS,
  ARCHIVE_QUERIES,
  type ArchiveMethod,
  type ArchiveQueryMethods,
  type Snapshot,
} from './methods';
import { listConversations } from './queries/conversations';
import {
  EmbeddingIterator,
  embeddingModels,
  readEmbeddingVectors,
  type EmbeddingStreamOptions,
} from './queries/embeddings';
import { coverageMemoKey } from './queries/scope-counts';
import { summaryCounts } from './queries/summary';
import { readableSchema, type SchemaInfo } from './schema';
import type { Archive, ArchiveQueries, EmbeddingModelInfo, EmbeddingRecord, Exclusion } from './types';

// The query methods are installed on the prototype from the table below the class.
export interface WasmArchive extends ArchiveQueries {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above declares what the table below installs.
export class WasmArchive implements Archive {
  /** Costly aggregates kept until the connection reopens, which it does on every change to the files. */
  private memo = new Map<string, unknown>();
  private memoOpen = -1;

  constructor(
    private readonly conn: ArchiveConnection,
    readonly path: string,
  ) {}

  get schemaVersion(): number {
    return this.q((_sql, s) => s.version);
  }

  /** Call only inside a run. */
  private perOpen<T>(key: string, compute: () => T): T {
    if (this.memoOpen !== this.conn.opens) {
      this.memo.clear();
      this.memoOpen = this.conn.opens;
    }
    if (!this.memo.has(key)) this.memo.set(key, compute());
    return this.memo.get(key) as T;
  }

  private q<T>(fn: (sql: Sql, schema: SchemaInfo) => T): T {
    return this.conn.run((sql) =>
      fn(
        sql,
        this.perOpen('schema', () => readableSchema(sql, this.path)),
      ),
    );
  }

  excluding(exclude: Exclusion): ArchiveQueryMethods {
    const frozen = Object.freeze(
      exclude.map((x) => Object.freeze(x.source === undefined ? { name: x.name } : { name: x.name, source: x.source })),
    );
    const out: Record<string, unknown> = {};
    for (const name of ARCHIVE_METHODS) out[name] = queryMethod(name, frozen).bind(this);
    return out as unknown as ArchiveQueryMethods;
  }

  /** `exclude`: conversations the query must not see. */
  query(run: (s: Snapshot) => unknown, exclude: Exclusion = []): unknown {
    return this.q((sql, schema) => {
      const conversations = () => this.perOpen('conversations', () => listConversations(sql, schema));
      return run({
        sql,
        schema,
        path: this.path,
        conversations,
        models: () => this.models(sql, schema),
        counts: () => this.perOpen('counts', () => summaryCounts(sql, conversations())),
        identity: () => this.conn.identity(),
        memo: (key, compute) => this.perOpen(`memo:${key}`, compute),
        exclude,
      });
    });
  }

  embeddings(model: string, opts?: EmbeddingStreamOptions): IterableIterator<EmbeddingRecord> {
    return new EmbeddingIterator((fn) => this.q(fn), model, opts);
  }

  private models(sql: Sql, schema: SchemaInfo): EmbeddingModelInfo[] {
    return this.perOpen('models', () => embeddingModels(sql, schema));
  }

  primeModelCoverage(model: string, count: number, fp: string): boolean {
    if (!Number.isSafeInteger(count) || count < 0) return false;
    // Inside a run: files changed since the last query reopen the connection (clearing the memo) first.
    return this.q(() => {
      if (fingerprint(this.conn.identity()) !== fp) return false;
      // The key scopeCounts memoises the coverage under (Snapshot.memo in `query`).
      return this.perOpen(`memo:${coverageMemoKey(model)}`, () => count) === count;
    });
  }

  embeddingVectors(model: string, dim: number, rowids: ArrayLike<number>, out: Float32Array): number {
    return this.q((sql, schema) => readEmbeddingVectors(sql, schema, model, dim, rowids, out));
  }

  close(): void {
    this.conn.close();
  }
}

/** Query `name` of the table, run in its own snapshot with the conversations of `exclude` hidden. */
function queryMethod(name: ArchiveMethod, exclude: Exclusion) {
  const run = ARCHIVE_QUERIES[name] as (s: Snapshot, ...args: unknown[]) => unknown;
  return function (this: WasmArchive, ...args: unknown[]): unknown {
    return this.query((s) => run(s, ...args), exclude);
  };
}

for (const name of ARCHIVE_METHODS) {
  Object.defineProperty(WasmArchive.prototype, name, {
    value: queryMethod(name, []),
    writable: true,
    configurable: true,
  });
}
