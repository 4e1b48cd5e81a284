/** Embedding counts, and a model's vectors in rowid batches of one snapshot each (a retry never repeats a row). */
import { SQLITE } from '../sqlite-codes';
import type { Columns, Sql } from '../connection';
import { ArchiveError } from '../errors';
import { exprs, type SchemaInfo } from '../schema';
import type { EmbeddingModelInfo, EmbeddingRecord } from '../types';
import { num, str } from './rows';

const BATCH = 2048;
/** Embeddings are streamed from the rowid after this one (so rows with a negative rowid are never read). */
const STREAM_AFTER = -1;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Decodes a blob of `vec.length` little-endian float32s into `vec`. */
function decodeInto(blob: Uint8Array, vec: Float32Array): void {
  if (LITTLE_ENDIAN) new Uint8Array(vec.buffer, vec.byteOffset, blob.byteLength).set(blob);
  else {
    const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
    for (let i = 0; i < vec.length; i++) vec[i] = view.getFloat32(i * 4, true);
  }
}

export function embeddingModels(sql: Sql, schema: SchemaInfo): EmbeddingModelInfo[] {
  if (!schema.embeddings) return [];
  // Nearly every archive holds one model: then its count is the table's row count (no rows decoded), where grouping
  // would sort every row on the path of a first semantic call.
  const first = sql.get('SELECT model, dim FROM embeddings ORDER BY rowid LIMIT 1');
  if (!first) return [];
  const model = str(first.model);
  if (sql.value('SELECT 1 FROM embeddings WHERE model <> ? LIMIT 1', [model]) === undefined) {
    return [{ model, count: num(sql.value('SELECT count(*) FROM embeddings')), dim: num(first.dim) }];
  }
  // Counted on the (message_hash, model) key index; each dim read from the model's first row, so no vector is read.
  return sql
    .all('SELECT model, COUNT(*) AS n, MIN(rowid) AS first FROM embeddings GROUP BY model ORDER BY model')
    .map((r) => ({
      model: str(r.model),
      count: num(r.n),
      dim: num(sql.value('SELECT dim FROM embeddings WHERE rowid = ?', [num(r.first)])),
    }));
}

function messageMetaSql(schema: SchemaInfo): string {
  const e = exprs(schema);
  return `SELECT m.hash, m.id, m.conversation_id, m.ts_unix, m.sender, ${e.msgSource} AS source FROM messages m`;
}

/** A rowid range scan of `embeddings` alone: joined to messages through {@link MessageMeta}, faster than in SQL. */
export function embeddingBatchSql(): string {
  return `SELECT rowid AS rid, message_hash AS hash, dim, vec FROM embeddings WHERE rowid > ? AND model = ? ORDER BY rowid LIMIT ${BATCH}`;
}

/** The hash as SQL's `m.hash = e.message_hash` compares it (a TEXT never equals a BLOB); undefined for NULL. */
function hashKey(c: Columns, col: number): string | undefined {
  const cls = c.type(col);
  if (cls === SQLITE.NULL) return undefined;
  return cls === SQLITE.BLOB ? `b${Buffer.from(c.bytes(col)).toString('hex')}` : `t${c.text(col)}`;
}

/** The columns an embedding record takes from its message, by hash; a repeated hash joins to its first row. */
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
    sql.scan(messageMetaSql(schema), [], (c) => {
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

  /** The message whose hash is column `col` of `c`, or -1 (an orphan). */
  find(c: Columns, col: number): number {
    const key = hashKey(c, col);
    return key === undefined ? -1 : (this.at.get(key) ?? -1);
  }

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

/** A stored vector whose blob does not hold `dim` float32s (`bytes` -1: not a blob). */
type Damage = { hash: string; dim: number; bytes: number };

function badEmbeddingError(model: string, { hash, dim, bytes }: Damage): ArchiveError {
  return new ArchiveError(
    'bad_embedding',
    `The stored embedding of message ${hash} (model "${model}") is damaged: ${bytes < 0 ? 'its vector is not a blob' : `${bytes} bytes`} but dim ${dim} needs ${dim * 4} bytes. Skip it, or re-run \`msgbrowse embed\` for that model.`,
  );
}

type RunFn = <T>(fn: (sql: Sql, schema: SchemaInfo) => T) => T;

export interface EmbeddingStreamOptions {
  /** Vectors are views of a buffer reused by the next batch: for a consumer that copies each one first (a build). */
  shareVectors?: boolean;
}

/** A decoded row, or a damaged one (reported when the consumer reaches it). */
type Item = { rowid: number; rec: EmbeddingRecord } | { rowid: number; bad: Damage };

/** One batch after `afterRowid`: its records (orphans left out), the rows it scanned and the last rowid. */
export function readEmbeddingBatch(
  sql: Sql,
  model: string,
  afterRowid: number,
  meta: MessageMeta,
  shared?: { data: Float32Array },
): { items: Item[]; scanned: number; last: number } {
  let used = 0;
  const items: Item[] = [];
  let scanned = 0;
  let last = afterRowid;
  sql.scan(embeddingBatchSql(), [afterRowid, model], (c) => {
    const rowid = c.num(0);
    scanned++;
    last = rowid;
    const at = meta.find(c, 1);
    if (at < 0) return; // an orphan, damaged or not
    const dim = c.num(2);
    const blob = c.blob(3);
    const bytes = blob ? blob.byteLength : -1;
    if (!blob || !Number.isInteger(dim) || dim <= 0 || bytes !== dim * 4) {
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
    decodeInto(blob, vec);
    items.push({ rowid, rec: meta.record(at, c.text(1), rowid, vec) });
  });
  return { items, scanned, last };
}

/** Vectors of `model` at `rowids`, copied into `out` (row i at `i * dim`); returns how many matched model and dim. */
export function readEmbeddingVectors(
  sql: Sql,
  schema: SchemaInfo,
  model: string,
  dim: number,
  rowids: ArrayLike<number>,
  out: Float32Array,
): number {
  if (!schema.embeddings || rowids.length === 0) return 0;
  const list = Array.from(rowids);
  const at = new Map(list.map((rowid, i) => [rowid, i]));
  const bytes = dim * 4;
  let found = 0;
  sql.scan(
    'SELECT rowid, vec FROM embeddings WHERE rowid IN (SELECT value FROM json_each(?)) AND model = ?',
    [JSON.stringify(list), model],
    (c) => {
      const i = at.get(c.num(0));
      const blob = c.blob(1);
      if (i === undefined || !blob || blob.byteLength !== bytes) return;
      decodeInto(blob, out.subarray(i * dim, (i + 1) * dim));
      found++;
    },
  );
  return found;
}

export class EmbeddingIterator implements IterableIterator<EmbeddingRecord> {
  private buf: Item[] = [];
  private pos = 0;
  /** Where the next batch starts (orphans included). */
  private lastScanned = STREAM_AFTER;
  private exhausted = false;
  private meta: MessageMeta | undefined;
  /** With `shareVectors`: every batch's vectors, back to back. */
  private readonly shared = { data: new Float32Array(0) };

  constructor(
    private readonly run: RunFn,
    readonly model: string,
    private readonly opts: EmbeddingStreamOptions = {},
  ) {}

  [Symbol.iterator](): IterableIterator<EmbeddingRecord> {
    return this;
  }

  private fill(): void {
    const after = this.lastScanned;
    const batch = this.run((sql, schema) => {
      if (!schema.embeddings) return { items: [], scanned: 0, last: after };
      this.meta ??= new MessageMeta(sql, schema);
      const shared = this.opts.shareVectors ? this.shared : undefined;
      return readEmbeddingBatch(sql, this.model, after, this.meta, shared);
    });
    this.buf = batch.items;
    this.pos = 0;
    this.lastScanned = batch.last;
    if (batch.scanned < BATCH) this.exhausted = true; // a short batch is the last
  }

  next(): IteratorResult<EmbeddingRecord> {
    while (this.pos >= this.buf.length) {
      if (this.exhausted) return { done: true, value: undefined };
      this.fill();
    }
    const item = this.buf[this.pos++];
    if ('bad' in item) throw badEmbeddingError(this.model, item.bad);
    return { done: false, value: item.rec };
  }

  return(): IteratorResult<EmbeddingRecord> {
    this.exhausted = true;
    this.buf = [];
    this.pos = 0;
    this.meta = undefined;
    return { done: true, value: undefined };
  }
}
