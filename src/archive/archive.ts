/**
 * WasmArchive: the synchronous Archive over one robust read connection. Each query method (declared in
 * `methods.ts`) is one read snapshot (ArchiveConnection.run), with the schema features re-detected whenever the
 * connection had to be reopened (a re-import or migration may have changed them).
 */
import type { ArchiveConnection, Sql } from './connection';
import { fingerprint } from './file-identity';
import { ARCHIVE_METHODS, ARCHIVE_QUERIES, coverageMemoKey, type Snapshot } from './methods';
import { listConversations } from './queries/conversations';
import { EmbeddingIterator, embeddingModels, embeddingSpan, MessageMeta, readEmbeddingVectors, type EmbeddingStreamOptions } from './queries/embeddings';
import { summaryCounts } from './queries/summary';
import { readableSchema, type SchemaInfo } from './schema';
import type { Archive, ArchiveQueries, EmbeddingModelInfo, EmbeddingRecord, ExcludingQueries, Exclusion, JoinedKeys, SharedEmbeddingJoin, UnjoinedEmbeddings } from './types';

/** The per-open memo key of a prepared embeddings join (prepareEmbeddingJoin). */
const JOIN_KEY = 'embeddingJoin';

// The query methods are installed on the prototype from the table below the class.
// eslint-disable-next-line @typescript-eslint/no-empty-interface, @typescript-eslint/no-unsafe-declaration-merging
export interface WasmArchive extends ArchiveQueries {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
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
    return { mode: this.conn.mode, opens: this.conn.opens, retries: this.conn.retries, readAhead: this.conn.readsAhead };
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
    return this.conn.run((sql) => fn(sql, this.perOpen('schema', () => readableSchema(sql, this.path))));
  }

  /** The query methods answering as if `exclude`'s conversations were not in the archive. */
  excluding(exclude: Exclusion): ExcludingQueries {
    const frozen = Object.freeze(exclude.map((x) => Object.freeze(x.source === undefined ? { name: x.name } : { name: x.name, source: x.source })));
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
    // The stream's first batch takes a prepared join (prepareEmbeddingJoin) of this open, else scans `messages`.
    return new EmbeddingIterator((fn) => this.q(fn), model, opts, (sql, schema) => this.takePerOpen<MessageMeta>(JOIN_KEY) ?? new MessageMeta(sql, schema));
  }

  embeddingsJoinedLater(model: string, opts: { shareVectors?: boolean; after?: number; upTo?: number; expected: number }): UnjoinedEmbeddings {
    const { expected, ...stream } = opts;
    const it = new EmbeddingIterator((fn) => this.q(fn), model, { ...stream, deferJoin: { expected } });
    return Object.assign(it, {
      join: (shared: SharedEmbeddingJoin | null): JoinedKeys =>
        this.q((sql, schema) => {
          if (shared !== null && fingerprint(this.conn.identity()) === shared.fingerprint) {
            let meta: MessageMeta | undefined;
            try {
              meta = new MessageMeta(shared.tables);
            } catch {
              // Tables that do not hold together (RangeError): a join of this connection's own, as for a changed archive.
            }
            if (meta) return it.joinThrough(meta, 'shared');
          }
          return it.joinThrough(new MessageMeta(sql, schema), 'own');
        }),
    });
  }

  prepareEmbeddingJoin(): void {
    this.q((sql, schema) => this.joinOfThisOpen(sql, schema));
  }

  shareEmbeddingJoin(): SharedEmbeddingJoin {
    return this.q((sql, schema) => ({ tables: this.joinOfThisOpen(sql, schema).tablesOf(), fingerprint: fingerprint(this.conn.identity()) }));
  }

  /** The join the next stream takes: made once per open, in shared memory so that another thread can adopt it. */
  private joinOfThisOpen(sql: Sql, schema: SchemaInfo): MessageMeta {
    return this.perOpen(JOIN_KEY, () => new MessageMeta(sql, schema, { shared: true }));
  }

  /** Removes and returns a value `perOpen` made for the current open, if any. Call only inside a run. */
  private takePerOpen<T>(key: string): T | undefined {
    if (this.memoOpen !== this.conn.opens) return undefined;
    const value = this.memo.get(key) as T | undefined;
    this.memo.delete(key);
    return value;
  }

  embeddingSpan(model: string): { first: number; last: number } | undefined {
    return this.q((sql, schema) => embeddingSpan(sql, schema, model, this.models(sql, schema), this.perOpen('spans', () => new Map())));
  }

  /** The embedding models of this open, counted once; a grouping of several also notes their rowid spans. */
  private models(sql: Sql, schema: SchemaInfo): EmbeddingModelInfo[] {
    return this.perOpen('models', () => embeddingModels(sql, schema, this.perOpen('spans', () => new Map())));
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
