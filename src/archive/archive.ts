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
import { summaryCounts, type SummaryCounts } from './queries/summary';
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
  private schemaInfo: SchemaInfo | undefined;
  private schemaOpen = -1;
  private cachedCounts: { open: number; counts: SummaryCounts; models: EmbeddingModelInfo[] } | undefined;
  /** The full conversation listing of the current connection (recomputed after every reopen). */
  private cachedConversations: { open: number; rows: ConversationRow[] } | undefined;

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

  /** Run one query family inside a snapshot, with the schema features of the current connection. */
  private q<T>(fn: (sql: Sql, schema: SchemaInfo) => T): T {
    return this.conn.run((sql) => {
      if (!this.schemaInfo || this.schemaOpen !== this.conn.opens) {
        this.schemaInfo = detectSchema(sql);
        this.schemaOpen = this.conn.opens;
      }
      return fn(sql, this.schemaInfo);
    });
  }

  summary(): ArchiveSummary {
    return this.q((sql, schema) => {
      const open = this.conn.opens;
      if (!this.cachedCounts || this.cachedCounts.open !== open) {
        this.cachedCounts = { open, counts: summaryCounts(sql, schema), models: embeddingModels(sql, schema) };
      }
      const { counts, models } = this.cachedCounts;
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

  /**
   * Conversation rows are cheap to keep and costly to aggregate on big archives (every
   * resolveConversation needs them all), so they are cached per connection: any change to the
   * files reopens the connection, which invalidates the cache.
   */
  private conversations(sql: Sql, schema: SchemaInfo): ConversationRow[] {
    const open = this.conn.opens;
    if (this.cachedConversations?.open !== open) {
      this.cachedConversations = { open, rows: listConversations(sql, schema) };
    }
    return this.cachedConversations.rows;
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
    return this.q((sql, s) => {
      const open = this.conn.opens;
      if (this.cachedCounts?.open === open) return this.cachedCounts.models.map((m) => ({ ...m }));
      return embeddingModels(sql, s);
    });
  }

  embeddings(model: string): IterableIterator<EmbeddingRecord> {
    return new EmbeddingIterator((fn) => this.q(fn), model);
  }

  close(): void {
    this.conn.close();
  }
}
