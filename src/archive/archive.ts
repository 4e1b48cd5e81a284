/**
 * WasmArchive: the synchronous Archive over one robust read connection. Each query method (declared in
 * `methods.ts`) is one read snapshot (ArchiveConnection.run), with the schema features re-detected whenever the
 * connection had to be reopened (a re-import or migration may have changed them).
 */
import type { ArchiveConnection, Sql } from './connection';
import { fingerprint } from './file-identity';
import { ARCHIVE_METHODS, ARCHIVE_QUERIES, coverageMemoKey, type Snapshot } from './methods';
import { listConversations } from './queries/conversations';
import {
  EmbeddingIterator,
  embeddingModels,
  readEmbeddingVectors,
  type EmbeddingStreamOptions,
} from './queries/embeddings';
import { summaryCounts } from './queries/summary';
import { readableSchema, type SchemaInfo } from './schema';
import type {
  Archive,
  ArchiveQueries,
  EmbeddingModelInfo,
  EmbeddingRecord,
  ExcludingQueries,
  Exclusion,
} from './types';

// The query methods are installed on the prototype from the table below the class.
export interface WasmArchive extends ArchiveQueries {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above declares what the table below installs.
export class WasmArchive implements Archive {
  /**
   * Values derived from the current connection's snapshot (schema features, the conversation
   * listing, summary counts, embedding models): costly to aggregate on big archives, so kept until
   * the connection is reopened — which happens on every change to the files.
   */
  private memo = new Map<string, unknown>();
  private memoOpen = -1;

  constructor(
    private readonly conn: ArchiveConnection,
    readonly path: string,
  ) {}

  /** Schema version detected at the last (re)open. */
  get schemaVersion(): number {
    return this.q((_sql, s) => s.version);
  }

  /** Diagnostics: the read mode in use and how often the connection was reopened/retried. */
  get stats(): { mode: string | undefined; opens: number; retries: number; readAhead: boolean } {
    return {
      mode: this.conn.mode,
      opens: this.conn.opens,
      retries: this.conn.retries,
      readAhead: this.conn.readsAhead,
    };
  }

  /** `compute()` once per connection (re)open. Call only inside a run. */
  private perOpen<T>(key: string, compute: () => T): T {
    if (this.memoOpen !== this.conn.opens) {
      this.memo.clear();
      this.memoOpen = this.conn.opens;
    }
    if (!this.memo.has(key)) this.memo.set(key, compute());
    return this.memo.get(key) as T;
  }

  /** Run one query family inside a snapshot, with the schema features of the current connection. */
  private q<T>(fn: (sql: Sql, schema: SchemaInfo) => T): T {
    return this.conn.run((sql) =>
      fn(
        sql,
        this.perOpen('schema', () => readableSchema(sql, this.path)),
      ),
    );
  }

  /** The query methods answering as if `exclude`'s conversations were not in the archive. */
  excluding(exclude: Exclusion): ExcludingQueries {
    const frozen = Object.freeze(
      exclude.map((x) => Object.freeze(x.source === undefined ? { name: x.name } : { name: x.name, source: x.source })),
    );
    const out: Record<string, unknown> = {};
    for (const name of ARCHIVE_METHODS) {
      const run = ARCHIVE_QUERIES[name] as (s: Snapshot, ...args: unknown[]) => unknown;
      out[name] = (...args: unknown[]): unknown => this.query((s) => run(s, ...args), frozen);
    }
    return out as unknown as ExcludingQueries;
  }

  /** Runs a query of the table in one snapshot (`exclude`: conversations the query must not see). */
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

  /** The embedding models of this open, counted once. */
  private models(sql: Sql, schema: SchemaInfo): EmbeddingModelInfo[] {
    return this.perOpen('models', () => embeddingModels(sql, schema));
  }

  primeModelCoverage(model: string, count: number, fp: string): boolean {
    if (!Number.isSafeInteger(count) || count < 0) return false;
    // Inside a run: a change of the files since the last query reopens the connection (and clears the memo) first.
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

for (const name of ARCHIVE_METHODS) {
  const run = ARCHIVE_QUERIES[name] as (s: Snapshot, ...args: unknown[]) => unknown;
  Object.defineProperty(WasmArchive.prototype, name, {
    value(this: WasmArchive, ...args: unknown[]): unknown {
      return this.query((s) => run(s, ...args));
    },
    writable: true,
    configurable: true,
  });
}
