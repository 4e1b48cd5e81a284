/**
 * Embeddings: per-model counts and a streaming, resumable iterator over a model's embeddings joined to their
 * messages (orphans skipped) that decodes little-endian float32 vectors.
 *
 * The iterator reads in batches keyed by embeddings.rowid, each batch in its own read snapshot
 * (so a concurrent writer's checkpoint only costs a retry of one batch, never a duplicate or a
 * skipped row). A row whose blob length is not dim × 4 makes `next()` throw
 * ArchiveError('bad_embedding') naming the hash and model; the iterator stays usable and a further
 * `next()` continues after that row, so the caller decides whether to skip it.
 */
import { SQLITE } from '../sqlite-codes';
import { scanRows, type Columns, type Sql } from '../connection';
import { ArchiveError } from '../errors';
import type { SchemaInfo } from '../schema';
import { exprs } from '../schema';
import type { EmbeddingModelInfo, EmbeddingRecord } from '../types';
import { num, str } from './rows';

const BATCH = 2048;
/** Embeddings are streamed from the rowid after this one (so rows with a negative rowid are never read). */
const STREAM_AFTER = -1;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function embeddingModels(sql: Sql, schema: SchemaInfo): EmbeddingModelInfo[] {
  if (!schema.embeddings) return [];
  // Nearly every archive holds one model. Then its count is the table's row count (SQLite counts the btree cells
  // of the smallest index without decoding rows) and one covering-index walk, stopped at the first row of another
  // model, proves there is no second one. That is 2-3x faster in WASM than grouping, whose sort of every row is on
  // the path of a first semantic call (first call in a process: 73 -> 41 ms at 100k vectors, 400 -> 140 ms at 1M).
  // With several models, group them.
  const first = sql.get('SELECT model, dim FROM embeddings ORDER BY rowid LIMIT 1');
  if (!first) return [];
  const model = str(first.model);
  if (sql.value('SELECT 1 FROM embeddings WHERE model <> ? LIMIT 1', [model]) === undefined) {
    return [{ model, count: num(sql.value('SELECT count(*) FROM embeddings')), dim: num(first.dim) }];
  }
  // Counts come from the (message_hash, model) primary-key index, which also holds each row's rowid;
  // the dim is read from the model's first row by rowid, so vectors are never scanned.
  const models = sql.all(
    'SELECT model, COUNT(*) AS n, MIN(rowid) AS first FROM embeddings GROUP BY model ORDER BY model',
  );
  return models.map((r) => ({
    model: str(r.model),
    count: num(r.n),
    dim: num(sql.value('SELECT dim FROM embeddings WHERE rowid = ?', [num(r.first)])),
  }));
}

/** Every message's identity and filter columns, keyed by hash (one sequential scan of `messages`). */
export function messageMetaSql(schema: SchemaInfo): string {
  const e = exprs(schema);
  return `SELECT m.hash, m.id, m.conversation_id, m.ts_unix, m.sender, ${e.msgSource} AS source FROM messages m`;
}

/**
 * One batch of a model's embeddings after a rowid: a rowid range scan of `embeddings` alone. Messages are joined
 * in JavaScript through {@link MessageMeta} (a hash map built by one scan of `messages`): on a 1M-message archive
 * that is 2.5× faster than the SQL join, whose two index lookups per row dominated an index build.
 */
export function embeddingBatchSql(): string {
  return `SELECT rowid AS rid, message_hash AS hash, dim, vec FROM embeddings WHERE rowid > ? AND model = ? ORDER BY rowid LIMIT ${BATCH}`;
}

/**
 * The hash as SQL's `m.hash = e.message_hash` compares it (TEXT equals TEXT with the same bytes, BLOB equals BLOB,
 * never each other); undefined for NULL, which equals nothing.
 */
function hashKey(c: Columns, col: number): string | undefined {
  const cls = c.type(col);
  if (cls === SQLITE.NULL) return undefined;
  return cls === SQLITE.BLOB ? `b${Buffer.from(c.bytes(col)).toString('hex')}` : `t${c.text(col)}`;
}

/**
 * The columns an embedding record takes from its message, for every message, by its hash (one scan of `messages`).
 * Hashes are UNIQUE in `messages`; were one repeated, its first row is the one embeddings join to.
 */
export class MessageMeta {
  private readonly at = new Map<string, number>();
  private readonly ids: number[] = [];
  private readonly conv: number[] = [];
  private readonly ts: number[] = [];
  private readonly sender: string[] = [];
  private readonly source: string[] = [];

  constructor(sql: Sql, schema: SchemaInfo) {
    // Sender and source names repeat: one string each.
    const names = new Map<string, string>();
    const intern = (s: string) => names.get(s) ?? (names.set(s, s), s);
    scanRows(sql, messageMetaSql(schema), [], (c) => {
      const key = hashKey(c, 0);
      if (key === undefined || this.at.has(key)) return;
      this.at.set(key, this.ids.length);
      this.ids.push(c.num(1));
      this.conv.push(c.num(2));
      this.ts.push(c.num(3));
      this.sender.push(intern(c.text(4)));
      this.source.push(intern(c.text(5)));
    });
  }

  /** How many messages it holds (distinct hashes). */
  get size(): number {
    return this.ids.length;
  }

  /** The message whose hash is column `col` of `c`, or -1 (none: the embedding is an orphan). */
  find(c: Columns, col: number): number {
    const key = hashKey(c, col);
    return key === undefined ? -1 : (this.at.get(key) ?? -1);
  }

  /** The record of message `i` (from {@link find}) for the embedding at `rowid`. */
  record(i: number, hash: string, rowid: number, vec: Float32Array): EmbeddingRecord {
    return {
      rowid,
      messageId: this.ids[i],
      hash,
      conversationId: this.conv[i],
      tsUnix: this.ts[i],
      sender: this.sender[i],
      source: this.source[i],
      vec,
    };
  }
}

/** The error a stream meets at a damaged row (see EmbeddingIterator). */
function badEmbeddingError(model: string, hash: string, dim: number, bytes: number): ArchiveError {
  return new ArchiveError(
    'bad_embedding',
    `The stored embedding of message ${hash} (model "${model}") is damaged: ${bytes < 0 ? 'its vector is not a blob' : `${bytes} bytes`} but dim ${dim} needs ${dim * 4} bytes. Skip it, or re-run \`msgbrowse embed\` for that model.`,
  );
}

type RunFn = <T>(fn: (sql: Sql, schema: SchemaInfo) => T) => T;

export interface EmbeddingStreamOptions {
  /**
   * Yield vectors that are views of a buffer the iterator reuses for its next batch: no allocation per row, for a
   * consumer that copies or quantises each vector before asking for a later batch (an index build).
   */
  shareVectors?: boolean;
}

/** A decoded row, or the facts of a damaged one (reported when the consumer reaches it). */
type Item =
  | { rowid: number; rec: EmbeddingRecord }
  | { rowid: number; bad: { hash: string; dim: number; bytes: number } };

/** One batch after `afterRowid`: its records (orphans left out), how many rows it scanned and the last rowid. */
export function readEmbeddingBatch(
  sql: Sql,
  schema: SchemaInfo,
  model: string,
  afterRowid: number,
  meta: MessageMeta,
  /** When given, vectors are views of one buffer reused by the next batch (no allocation per row). */
  shared?: { data: Float32Array },
): { items: Item[]; scanned: number; last: number } {
  let used = 0;
  const items: Item[] = [];
  let scanned = 0;
  let last = afterRowid;
  if (!schema.embeddings) return { items, scanned, last };
  scanRows(sql, embeddingBatchSql(), [afterRowid, model], (c) => {
    const rowid = c.num(0);
    scanned++;
    last = rowid;
    const at = meta.find(c, 1);
    // An orphan (no message with that hash) is skipped, damaged or not.
    if (at < 0) return;
    const dim = c.num(2);
    const blob = c.blob(3);
    const bytes = blob ? blob.byteLength : -1;
    if (!blob || !Number.isInteger(dim) || dim <= 0 || bytes !== dim * 4) {
      // Reported when the consumer reaches it.
      items.push({ rowid, bad: { hash: c.text(1), dim, bytes } });
      return;
    }
    let vec: Float32Array;
    if (shared) {
      if (shared.data.length < used + dim) {
        // Earlier items of this batch keep their views of the old buffer.
        shared.data = new Float32Array(Math.max(used + dim, dim * BATCH));
        used = 0;
      }
      vec = shared.data.subarray(used, used + dim);
      used += dim;
    } else vec = new Float32Array(dim);
    if (LITTLE_ENDIAN) new Uint8Array(vec.buffer, vec.byteOffset, bytes).set(blob);
    else {
      const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
      for (let i = 0; i < dim; i++) vec[i] = view.getFloat32(i * 4, true);
    }
    items.push({ rowid, rec: meta.record(at, c.text(1), rowid, vec) });
  });
  return { items, scanned, last };
}

/**
 * Vectors of `model` at the given embedding rowids, copied straight from the WASM heap into `out` (row i of the
 * request at `i * dim`). Returns how many matched (right model, dim × 4 bytes); the others are left untouched.
 */
export function readEmbeddingVectors(
  sql: Sql,
  schema: SchemaInfo,
  model: string,
  dim: number,
  rowids: ArrayLike<number>,
  out: Float32Array,
): number {
  if (!schema.embeddings || rowids.length === 0) return 0;
  const at = new Map<number, number>();
  const list: number[] = [];
  for (let i = 0; i < rowids.length; i++) {
    at.set(rowids[i], i);
    list.push(rowids[i]);
  }
  const bytes = dim * 4;
  const dst = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  let found = 0;
  scanRows(
    sql,
    'SELECT rowid, vec FROM embeddings WHERE rowid IN (SELECT value FROM json_each(?)) AND model = ?',
    [JSON.stringify(list), model],
    (c) => {
      const i = at.get(c.num(0));
      const blob = c.blob(1);
      if (i === undefined || !blob || blob.byteLength !== bytes) return;
      if (LITTLE_ENDIAN) dst.set(blob, i * bytes);
      else {
        const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
        for (let j = 0; j < dim; j++) out[i * dim + j] = view.getFloat32(j * 4, true);
      }
      found++;
    },
  );
  return found;
}

export class EmbeddingIterator implements IterableIterator<EmbeddingRecord> {
  private buf: Item[] = [];
  private pos = 0;
  /** Last rowid the scan has read (orphans included), where the next batch starts. */
  private lastScanned: number;
  private exhausted = false;
  /** Built with the first batch; released when the iteration ends. */
  private meta: MessageMeta | undefined;
  /** The batch's vectors, back to back, when `shareVectors` is set (reused by every batch). */
  private readonly shared = { data: new Float32Array(0) };

  constructor(
    private readonly run: RunFn,
    readonly model: string,
    private readonly opts: EmbeddingStreamOptions = {},
  ) {
    this.lastScanned = STREAM_AFTER;
  }

  [Symbol.iterator](): IterableIterator<EmbeddingRecord> {
    return this;
  }

  private fill(): void {
    const after = this.lastScanned;
    const batch = this.run((sql, schema) => {
      if (!schema.embeddings) return { items: [], scanned: 0, last: after };
      this.meta ??= new MessageMeta(sql, schema);
      return readEmbeddingBatch(
        sql,
        schema,
        this.model,
        after,
        this.meta,
        this.opts.shareVectors ? this.shared : undefined,
      );
    });
    this.buf = batch.items;
    this.pos = 0;
    this.lastScanned = batch.last;
    // A short batch is the last one.
    if (batch.scanned < BATCH) this.exhausted = true;
  }

  next(): IteratorResult<EmbeddingRecord> {
    for (;;) {
      while (this.pos >= this.buf.length) {
        if (this.exhausted) return { done: true, value: undefined };
        this.fill();
      }
      const item = this.buf[this.pos++];
      if (!('bad' in item)) return { done: false, value: item.rec };
      const { hash, dim, bytes } = item.bad;
      throw badEmbeddingError(this.model, hash, dim, bytes);
    }
  }

  return(): IteratorResult<EmbeddingRecord> {
    this.exhausted = true;
    this.buf = [];
    this.pos = 0;
    this.meta = undefined;
    return { done: true, value: undefined };
  }
}
