/**
 * Embeddings: per-model counts and a streaming, resumable iterator over `embeddings JOIN messages`
 * (orphans skipped) that decodes little-endian float32 vectors.
 *
 * The iterator reads in batches keyed by embeddings.rowid, each batch in its own read snapshot
 * (so a concurrent writer's checkpoint only costs a retry of one batch, never a duplicate or a
 * skipped row). A row whose blob length is not dim × 4 makes `next()` throw
 * ArchiveError('bad_embedding') naming the hash and model; the iterator stays usable and a further
 * `next()` continues after that row, so the caller decides whether to skip it.
 */
import { scanRows, type Sql } from '../connection';
import { ArchiveError } from '../errors';
import type { SchemaInfo } from '../schema';
import { exprs } from '../schema';
import type { EmbeddingModelInfo, EmbeddingRecord } from '../types';
import { num, str } from './rows';

const BATCH = 2048;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export function embeddingModels(sql: Sql, schema: SchemaInfo): EmbeddingModelInfo[] {
  if (!schema.embeddings) return [];
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

export function embeddingBatchSql(schema: SchemaInfo): string {
  const e = exprs(schema);
  // CROSS JOIN keeps embeddings as the outer loop: a rowid range scan, messages looked up by hash.
  return `SELECT e.rowid AS rid, e.message_hash AS hash, e.dim AS dim, e.vec AS vec,
      m.id AS id, m.conversation_id AS conversation_id, m.ts_unix AS ts_unix, m.sender AS sender, ${e.msgSource} AS source
    FROM embeddings e CROSS JOIN messages m ON m.hash = e.message_hash
    WHERE e.rowid > ? AND e.model = ?
    ORDER BY e.rowid
    LIMIT ${BATCH}`;
}

type RunFn = <T>(fn: (sql: Sql, schema: SchemaInfo) => T) => T;

/** A decoded row, or the facts of a damaged one (reported when the consumer reaches it). */
type Item = { rowid: number; rec: EmbeddingRecord } | { rowid: number; bad: { hash: string; dim: number; bytes: number } };

/** Read one batch after `afterRowid` (columns as in embeddingBatchSql). */
export function readEmbeddingBatch(sql: Sql, schema: SchemaInfo, model: string, afterRowid: number): Item[] {
  if (!schema.embeddings) return [];
  const items: Item[] = [];
  scanRows(sql, embeddingBatchSql(schema), [afterRowid, model], (c) => {
    const rowid = c.num(0);
    const hash = c.text(1);
    const dim = c.num(2);
    const blob = c.blob(3);
    const bytes = blob ? blob.byteLength : -1;
    if (!blob || !Number.isInteger(dim) || dim <= 0 || bytes !== dim * 4) {
      items.push({ rowid, bad: { hash, dim, bytes } });
      return;
    }
    const vec = new Float32Array(dim);
    if (LITTLE_ENDIAN) new Uint8Array(vec.buffer).set(blob);
    else {
      const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
      for (let i = 0; i < dim; i++) vec[i] = view.getFloat32(i * 4, true);
    }
    items.push({
      rowid,
      rec: {
        messageId: c.num(4),
        hash,
        conversationId: c.num(5),
        tsUnix: c.num(6),
        sender: c.text(7),
        source: c.text(8),
        vec,
      },
    });
  });
  return items;
}

export class EmbeddingIterator implements IterableIterator<EmbeddingRecord> {
  private buf: Item[] = [];
  private pos = 0;
  private lastRowid = -1;
  private exhausted = false;

  constructor(
    private readonly run: RunFn,
    readonly model: string,
  ) {}

  [Symbol.iterator](): IterableIterator<EmbeddingRecord> {
    return this;
  }

  private fill(): void {
    const after = this.lastRowid;
    this.buf = this.run((sql, schema) => readEmbeddingBatch(sql, schema, this.model, after));
    this.pos = 0;
    // A short batch is the last one.
    if (this.buf.length < BATCH) this.exhausted = true;
  }

  next(): IteratorResult<EmbeddingRecord> {
    while (this.pos >= this.buf.length) {
      if (this.exhausted) return { done: true, value: undefined };
      this.fill();
    }
    const item = this.buf[this.pos++];
    this.lastRowid = item.rowid;
    if ('bad' in item) {
      const { hash, dim, bytes } = item.bad;
      throw new ArchiveError(
        'bad_embedding',
        `The stored embedding of message ${hash} (model "${this.model}") is damaged: ${bytes < 0 ? 'its vector is not a blob' : `${bytes} bytes`} but dim ${dim} needs ${dim * 4} bytes. Skip it, or re-run \`msgbrowse embed\` for that model.`,
      );
    }
    return { done: false, value: item.rec };
  }

  return(): IteratorResult<EmbeddingRecord> {
    this.exhausted = true;
    this.buf = [];
    this.pos = 0;
    return { done: true, value: undefined };
  }
}
