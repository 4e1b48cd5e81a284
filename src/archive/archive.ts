/**
 * WasmArchive: the synchronous Archive over one robust read connection. Each public method is one
 * read snapshot (ArchiveConnection.run), with the schema features re-detected whenever the
 * connection had to be reopened (a re-import or migration may have changed them).
 */
import type { ArchiveConnection, Sql } from './connection';
import { fingerprint } from './file-identity';
import { attachments } from './queries/media';
import { context } from './queries/context';
import { filterConversations, listConversations, resolveConversation } from './queries/conversations';
import { EmbeddingIterator, embeddingModels } from './queries/embeddings';
import { links } from './queries/links';
import {
  attachmentsForMessages,
  messageByHash,
  messageById,
  messagesByIds,
  reactionsForHashes,
} from './queries/messages';
import { searchKeyword } from './queries/search';
import { summaryCounts } from './queries/summary';
import { transcript } from './queries/transcript';
import { detectSchema, type SchemaInfo } from './schema';
import type {
  Archive,
  ArchiveSummary,
  AttachmentOptions,
  AttachmentRow,
  ConversationRow,
  EmbeddingModelInfo,
  EmbeddingRecord,
  KeywordHit,
  KeywordSearchOptions,
  LinkOptions,
  LinkRow,
  MessageRow,
  ReactionRow,
  ResolveResult,
  TranscriptOptions,
  TranscriptPage,
} from './types';

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
  get stats(): { mode: string | undefined; opens: number; retries: number } {
    return { mode: this.conn.mode, opens: this.conn.opens, retries: this.conn.retries };
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
    return this.conn.run((sql) => fn(sql, this.perOpen('schema', () => detectSchema(sql))));
  }

  summary(): ArchiveSummary {
    return this.q((sql, schema) => {
      const counts = this.perOpen('counts', () => summaryCounts(sql, this.conversations(sql, schema)));
      const models = this.models(sql, schema);
      return {
        path: this.path,
        schemaVersion: schema.version,
        ...counts,
        sources: { ...counts.sources },
        embeddingModels: models.map((m) => ({ ...m })),
        fingerprint: fingerprint(this.conn.identity()),
      };
    });
  }

  /** Every conversation (resolveConversation needs them all). */
  private conversations(sql: Sql, schema: SchemaInfo): ConversationRow[] {
    return this.perOpen('conversations', () => listConversations(sql, schema));
  }

  private models(sql: Sql, schema: SchemaInfo): EmbeddingModelInfo[] {
    return this.perOpen('models', () => embeddingModels(sql, schema));
  }

  listConversations(filter?: { source?: string; nameContains?: string }): ConversationRow[] {
    return this.q((sql, s) => filterConversations(this.conversations(sql, s), filter).map((c) => ({ ...c })));
  }

  conversationById(id: number): ConversationRow | undefined {
    return this.q((sql, s) => {
      const c = this.conversations(sql, s).find((x) => x.id === id);
      return c ? { ...c } : undefined;
    });
  }

  resolveConversation(name: string, source?: string): ResolveResult {
    return this.q((sql, s) => structuredClone(resolveConversation(this.conversations(sql, s), name, source)));
  }

  transcript(opts: TranscriptOptions): TranscriptPage {
    return this.q((sql, s) => transcript(sql, s, opts));
  }

  searchKeyword(opts: KeywordSearchOptions): KeywordHit[] {
    return this.q((sql, s) => searchKeyword(sql, s, opts));
  }

  context(messageId: number, window: number): MessageRow[] | undefined {
    return this.q((sql, s) => context(sql, s, messageId, window));
  }

  attachments(opts: AttachmentOptions): { items: AttachmentRow[]; hasMore: boolean } {
    return this.q((sql, s) => attachments(sql, s, opts));
  }

  links(opts: LinkOptions): { items: LinkRow[]; hasMore: boolean } {
    return this.q((sql, s) => links(sql, s, opts));
  }

  messageById(id: number): MessageRow | undefined {
    return this.q((sql, s) => messageById(sql, s, id));
  }

  messageByHash(hash: string): MessageRow | undefined {
    return this.q((sql, s) => messageByHash(sql, s, hash));
  }

  messagesByIds(ids: number[]): MessageRow[] {
    return this.q((sql, s) => messagesByIds(sql, s, ids));
  }

  attachmentsForMessages(ids: number[]): AttachmentRow[] {
    return this.q((sql, s) => attachmentsForMessages(sql, s, ids));
  }

  reactionsForHashes(hashes: string[]): ReactionRow[] {
    return this.q((sql, s) => reactionsForHashes(sql, s, hashes));
  }

  embeddingModels(): EmbeddingModelInfo[] {
    return this.q((sql, s) => this.models(sql, s).map((m) => ({ ...m })));
  }

  embeddings(model: string): IterableIterator<EmbeddingRecord> {
    return new EmbeddingIterator((fn) => this.q(fn), model);
  }

  close(): void {
    this.conn.close();
  }
}
