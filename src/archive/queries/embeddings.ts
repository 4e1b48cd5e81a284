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
import { ByteKeys, ByteLog, type ByteKeyTables } from '../byte-keys';
import { arenaBytes, MappedArena, mappedArray } from '../mapped-arena';
import { SQLITE } from '../sqlite-codes';
import { scanRows, type Columns, type Sql } from '../connection';
import { ArchiveError } from '../errors';
import type { SchemaInfo } from '../schema';
import { exprs } from '../schema';
import type { EmbeddingModelInfo, EmbeddingRecord, JoinedKeys, MessageColumns } from '../types';
import { num, str } from './rows';

const BATCH = 2048;
/** A message hash's expected length (msgbrowse's are 64 hex digits), for sizing the map. */
const HASH_BYTES = 64;
/** Embeddings are streamed from the rowid after this one (so rows with a negative rowid are never read). */
const STREAM_AFTER = -1;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Each model's lowest and highest embedding rowid, when a grouping of the models found them (see embeddingSpan). */
export type ModelSpans = Map<string, { first: number; last: number }>;

export function embeddingModels(sql: Sql, schema: SchemaInfo, spans?: ModelSpans): EmbeddingModelInfo[] {
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
  // the dim is read from the model's first row by rowid, so vectors are never scanned. The same walk gives each
  // model's rowid span, for splitting its index build (embeddingSpan).
  const models = sql.all(
    'SELECT model, COUNT(*) AS n, MIN(rowid) AS first, MAX(rowid) AS last FROM embeddings GROUP BY model ORDER BY model',
  );
  for (const r of models) spans?.set(str(r.model), { first: num(r.first), last: num(r.last) });
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
export function embeddingBatchSql(bounded = false): string {
  const upTo = bounded ? ' AND rowid <= ?' : '';
  return `SELECT rowid AS rid, message_hash AS hash, dim, vec FROM embeddings WHERE rowid > ?${upTo} AND model = ? ORDER BY rowid LIMIT ${BATCH}`;
}

/**
 * The lowest and highest rowid of `model`'s embeddings that EmbeddingIterator streams (orphans included; none below
 * its start), for splitting a build into rowid ranges.
 * With one model in the table these are the table's ends (two seeks); with several, the grouping that counted
 * them (`spans`, filled by embeddingModels) found them, or else one walk of the (message_hash, model) primary-key
 * index, which holds each row's rowid.
 */
export function embeddingSpan(sql: Sql, schema: SchemaInfo, model: string, models: EmbeddingModelInfo[], spans?: ModelSpans): { first: number; last: number } | undefined {
  if (!schema.embeddings || !models.some((m) => m.model === model)) return undefined;
  let span = spans?.get(model);
  if (!span) {
    const r =
      models.length === 1
        ? sql.get('SELECT (SELECT rowid FROM embeddings ORDER BY rowid LIMIT 1) AS first, (SELECT rowid FROM embeddings ORDER BY rowid DESC LIMIT 1) AS last')
        : sql.get('SELECT MIN(rowid) AS first, MAX(rowid) AS last FROM embeddings WHERE model = ?', [model]);
    if (!r || r.first === null || r.last === null) return undefined;
    span = { first: num(r.first), last: num(r.last) };
  }
  if (span.last <= STREAM_AFTER) return undefined;
  return { first: Math.max(span.first, STREAM_AFTER + 1), last: span.last };
}

/**
 * A {@link MessageMeta}'s tables, as structured clone carries them to another thread: a map made `shared` arrives as
 * views of the same memory (no copy), its ordinary arrays (should the map have outgrown its arena) as copies.
 */
export interface MessageMetaTables {
  hashes: ByteKeyTables;
  names: ByteKeyTables;
  strings: string[];
  ids: Float64Array;
  conv: Float64Array;
  ts: Float64Array;
  sender: Int32Array;
  source: Int32Array;
}

/**
 * The columns an embedding record takes from its message, for every message (typed arrays, interned strings),
 * found by the message's hash as bytes: SQL's `m.hash = e.message_hash` (same storage class, same bytes), with no
 * string made per message or per vector. Hashes are UNIQUE in `messages`; were one repeated, its first row is the
 * one embeddings join to.
 *
 * Read-only once made, so threads may share one: a map made with `shared` lives in a SharedArrayBuffer, and
 * {@link MessageMeta.tablesOf} / {@link MessageMeta.fromTables} hand it to another thread (a split build's ranges).
 */
export class MessageMeta {
  private readonly hashes: ByteKeys;
  private ids: Float64Array;
  private conv: Float64Array;
  private ts: Float64Array;
  private sender: Int32Array;
  private source: Int32Array;
  /** Sender and source strings, one per distinct value (made once each, from their bytes). */
  private readonly names: ByteKeys;
  private readonly strings: string[];

  /** One scan of `messages` (`shared`: into a SharedArrayBuffer, for other threads too), or the tables another made. */
  constructor(sql: Sql, schema: SchemaInfo, opts?: { shared?: boolean });
  constructor(tables: MessageMetaTables);
  constructor(from: Sql | MessageMetaTables, schema?: SchemaInfo, opts: { shared?: boolean } = {}) {
    if ('hashes' in from) {
      this.hashes = ByteKeys.fromTables(from.hashes);
      this.names = ByteKeys.fromTables(from.names);
      this.strings = from.strings;
      ({ ids: this.ids, conv: this.conv, ts: this.ts, sender: this.sender, source: this.source } = from);
      const n = this.hashes.size;
      if ([this.ids, this.conv, this.ts, this.sender, this.source].some((a) => a.length < n) || this.names.size !== this.strings.length) {
        throw new RangeError('MessageMeta: inconsistent tables');
      }
      return;
    }
    const sql = from;
    this.names = new ByteKeys(64);
    this.strings = [];
    const n = Math.max(16, num(sql.value('SELECT count(*) FROM messages')));
    // One buffer for the whole map, large enough that malloc maps it by itself (mapped-arena.ts: in a build thread's
    // arena the tables stayed resident after the thread ended).
    const columns = [
      [Float64Array, n],
      [Float64Array, n],
      [Float64Array, n],
      [Int32Array, n],
      [Int32Array, n],
    ] as const;
    const memory = new MappedArena(ByteKeys.tables(n, HASH_BYTES).bytes + arenaBytes(columns), { shared: opts.shared });
    this.hashes = new ByteKeys(n, HASH_BYTES, memory);
    [this.ids, this.conv, this.ts, this.sender, this.source] = memory.arrays(columns);
    scanRows(sql, messageMetaSql(schema!), [], (c) => {
      const cls = c.type(0);
      if (cls === SQLITE.NULL) return; // NULL equals nothing in SQL, so nothing joins to it
      const before = this.hashes.size;
      const i = this.hashes.add(cls, c.bytes(0));
      if (i < before) return; // a repeated hash: the first row keeps it
      if (i === this.ids.length) this.grow();
      this.ids[i] = c.num(1);
      this.conv[i] = c.num(2);
      this.ts[i] = c.num(3);
      this.sender[i] = this.intern(c, 4);
      this.source[i] = this.intern(c, 5);
    });
  }

  /** Its tables, for another thread's {@link MessageMeta} over the same memory (when made `shared`). */
  tablesOf(): MessageMetaTables {
    return { hashes: this.hashes.tablesOf(), names: this.names.tablesOf(), strings: this.strings, ids: this.ids, conv: this.conv, ts: this.ts, sender: this.sender, source: this.source };
  }

  /** How many messages it holds (distinct hashes). */
  get size(): number {
    return this.hashes.size;
  }

  /** Column `col` (TEXT) as an index into `strings`, as `text()` would read it. */
  private intern(c: Columns, col: number): number {
    const bytes = c.bytes(col);
    const before = this.names.size;
    // Keyed by bytes alone: `text()` renders every storage class as the same UTF-8.
    const id = this.names.add(0, bytes);
    if (id === before) this.strings.push(c.text(col));
    return id;
  }

  private grow(): void {
    const n = this.ids.length * 2;
    const g = <T extends Float64Array | Int32Array>(a: T): T => {
      const b = new (a.constructor as new (k: number) => T)(n);
      b.set(a);
      return b;
    };
    this.ids = g(this.ids);
    this.conv = g(this.conv);
    this.ts = g(this.ts);
    this.sender = g(this.sender);
    this.source = g(this.source);
  }

  /** The message whose hash is string `id` of `log`, or -1 (an orphan). */
  findLogged(log: ByteLog, id: number): number {
    return this.hashes.findLogged(log, id);
  }

  /** The message whose hash is (cls, bytes), or -1 (none: the embedding is an orphan). */
  find(cls: number, bytes: Uint8Array): number {
    return cls === SQLITE.NULL ? -1 : this.hashes.find(cls, bytes);
  }

  /** Message `i`'s hash as text (made on demand: builds never read it). */
  hashText(i: number): string {
    return Buffer.from(this.hashes.bytes(i)).toString('utf8');
  }

  /** Message `i`'s columns (from {@link find}), as a record carries them. */
  columns(i: number): MessageColumns {
    return { messageId: this.ids[i], conversationId: this.conv[i], tsUnix: this.ts[i], sender: this.strings[this.sender[i]], source: this.strings[this.source[i]] };
  }

  /** The record of message `i` (from {@link find}) for the embedding at `rowid`. */
  record(i: number, rowid: number, vec: Float32Array): EmbeddingRecord {
    return new MessageEmbedding(this, i, rowid, this.ids[i], this.conv[i], this.ts[i], this.strings[this.sender[i]], this.strings[this.source[i]], vec);
  }
}

/** An embedding record whose `hash` string is only made when read. */
class MessageEmbedding implements EmbeddingRecord {
  readonly #meta: MessageMeta;
  readonly #at: number;
  constructor(
    meta: MessageMeta,
    at: number,
    readonly rowid: number,
    readonly messageId: number,
    readonly conversationId: number,
    readonly tsUnix: number,
    readonly sender: string,
    readonly source: string,
    readonly vec: Float32Array,
  ) {
    this.#meta = meta;
    this.#at = at;
  }

  get hash(): string {
    return this.#meta.hashText(this.#at);
  }
}

/** A record of a stream joined later (`deferJoin`): no message columns yet, its hash kept in the stream's log. */
class UnjoinedEmbedding implements EmbeddingRecord {
  readonly messageId = Number.NaN;
  readonly conversationId = Number.NaN;
  readonly tsUnix = Number.NaN;
  readonly #log: ByteLog;
  constructor(
    readonly rowid: number,
    readonly joinKey: number,
    readonly vec: Float32Array,
    log: ByteLog,
  ) {
    this.#log = log;
  }

  get hash(): string {
    return Buffer.from(this.#log.bytes(this.joinKey)).toString('utf8');
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
  /** Only rows whose rowid is above this (default: all). */
  after?: number;
  /** Only rows whose rowid is at most this (default: all). With `after`: one rowid range of a split build. */
  upTo?: number;
  /**
   * Make no join to messages: every row is yielded (orphans too) with a `joinKey` and no message columns, damaged
   * rows are held back, and the stream's `joinThrough` joins them all once the stream has ended:
   * a split build's upper range, which scans while the lower range makes the join. `expected`: about how many rows.
   */
  deferJoin?: { expected: number };
}

/** A decoded row, or the facts of a damaged one (reported when the consumer reaches it). */
type Item = { rowid: number; rec: EmbeddingRecord } | { rowid: number; bad: { hash: string; dim: number; bytes: number }; key?: number };

/**
 * One batch after `afterRowid`: its records (orphans left out, unless the stream is joined later), how many rows it
 * scanned and the last rowid.
 */
export function readEmbeddingBatch(
  sql: Sql,
  schema: SchemaInfo,
  model: string,
  afterRowid: number,
  /** The join to messages, or (a stream joined later) the log its rows' hashes are appended to. */
  meta: MessageMeta | ByteLog,
  /** When given, vectors are views of one buffer reused by the next batch (no allocation per row). */
  shared?: { data: Float32Array },
  /** Only rows whose rowid is at most this. */
  upTo?: number,
): { items: Item[]; scanned: number; last: number } {
  let used = 0;
  const items: Item[] = [];
  let scanned = 0;
  let last = afterRowid;
  if (!schema.embeddings) return { items, scanned, last };
  const bounded = upTo !== undefined;
  const log = meta instanceof ByteLog ? meta : undefined;
  scanRows(sql, embeddingBatchSql(bounded), bounded ? [afterRowid, upTo, model] : [afterRowid, model], (c) => {
    const rowid = c.num(0);
    scanned++;
    last = rowid;
    // Joined later: every row's hash goes to the log (orphans are found by the join).
    const key = log ? log.append(c.type(1), c.bytes(1)) : -1;
    const at = log ? key : (meta as MessageMeta).find(c.type(1), c.bytes(1));
    // An orphan (no message with that hash) is skipped, damaged or not.
    if (at < 0) return;
    const dim = c.num(2);
    const blob = c.blob(3);
    const bytes = blob ? blob.byteLength : -1;
    if (!blob || !Number.isInteger(dim) || dim <= 0 || bytes !== dim * 4) {
      // Reported when the consumer reaches it (joined later: when the join finds its message).
      items.push({ rowid, bad: { hash: c.text(1), dim, bytes }, ...(log ? { key } : {}) });
      return;
    }
    let vec: Float32Array;
    if (shared) {
      if (shared.data.length < used + dim) {
        // Earlier items of this batch keep their views of the old buffer. A buffer malloc maps by itself (mapped-arena.ts).
        shared.data = mappedArray(Float32Array, Math.max(used + dim, dim * BATCH));
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
    items.push({ rowid, rec: log ? new UnjoinedEmbedding(rowid, key, vec, log) : (meta as MessageMeta).record(at, rowid, vec) });
  });
  return { items, scanned, last };
}

/**
 * Vectors of `model` at the given embedding rowids, copied straight from the WASM heap into `out` (row i of the
 * request at `i * dim`). Returns how many matched (right model, dim × 4 bytes); the others are left untouched.
 */
export function readEmbeddingVectors(sql: Sql, schema: SchemaInfo, model: string, dim: number, rowids: ArrayLike<number>, out: Float32Array): number {
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
  /** A stream joined later: its rows' hashes, and its damaged rows (reported by `join` if they have a message). */
  private readonly log: ByteLog | undefined;
  private readonly held: { key: number; hash: string; dim: number; bytes: number }[] = [];
  /** The batch's vectors, back to back, when `shareVectors` is set (reused by every batch). */
  private readonly shared = { data: new Float32Array(0) };

  constructor(
    private readonly run: RunFn,
    readonly model: string,
    private readonly opts: EmbeddingStreamOptions = {},
    /** The hash → message map, made (or taken ready) inside the first batch's snapshot. */
    private readonly joinFor: (sql: Sql, schema: SchemaInfo) => MessageMeta = (sql, schema) => new MessageMeta(sql, schema),
  ) {
    this.lastScanned = opts.after ?? STREAM_AFTER;
    const expected = opts.deferJoin?.expected;
    if (expected !== undefined) {
      // In a buffer malloc maps by itself, as the join's own tables (mapped-arena.ts).
      const n = Math.max(16, Math.ceil(expected * 1.05));
      this.log = new ByteLog(n, HASH_BYTES, new MappedArena(ByteLog.tables(n, HASH_BYTES).bytes));
    }
  }

  [Symbol.iterator](): IterableIterator<EmbeddingRecord> {
    return this;
  }

  private fill(): void {
    const after = this.lastScanned;
    // A batch read again (after a concurrent writer's checkpoint: a thrown error or a torn snapshot) logs its rows'
    // hashes afresh, from where the batch began.
    const logged = this.log?.size ?? 0;
    const batch = this.run((sql, schema) => {
      this.log?.truncate(logged);
      if (!schema.embeddings) return { items: [], scanned: 0, last: after };
      const join = this.log ?? (this.meta ??= this.joinFor(sql, schema));
      return readEmbeddingBatch(sql, schema, this.model, after, join, this.opts.shareVectors ? this.shared : undefined, this.opts.upTo);
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
      if (item.key === undefined) throw badEmbeddingError(this.model, hash, dim, bytes);
      // Joined later: reported by `join`, should the row have a message.
      this.held.push({ key: item.key, hash, dim, bytes });
    }
  }

  /**
   * A stream joined later (`deferJoin`), once it has ended: each yielded record's message, by its `joinKey`, through
   * `meta` (undefined: an orphan). Throws the error a joined stream would have thrown at its first damaged row with a
   * message (an orphan's damage is never reported, as in a joined stream).
   */
  joinThrough(meta: MessageMeta, through: JoinedKeys['through'] = 'own'): JoinedKeys {
    const log = this.log;
    if (!log) throw new Error('EmbeddingIterator.joinThrough: this stream was joined as it was read');
    const at = (key: number): number => (log.storageClass(key) === SQLITE.NULL ? -1 : meta.findLogged(log, key));
    for (const h of this.held) if (at(h.key) >= 0) throw badEmbeddingError(this.model, h.hash, h.dim, h.bytes);
    return {
      through,
      messageOf: (key: number) => {
        const i = at(key);
        return i < 0 ? undefined : meta.columns(i);
      },
    };
  }

  return(): IteratorResult<EmbeddingRecord> {
    this.exhausted = true;
    this.buf = [];
    this.pos = 0;
    this.meta = undefined;
    return { done: true, value: undefined };
  }
}
