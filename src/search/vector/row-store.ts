/**
 * Where the original float32 rows live for exact rescoring: in memory (small indexes, tests) or in the cache
 * file, read back row by row with positioned reads so big indexes keep only int8 rows resident.
 */
import * as fs from 'node:fs';

export interface RowStore {
  /** Bytes this store keeps resident in the JS heap. */
  readonly residentBytes: number;
  /** Copies rows `rows[i]` into `out[i*dim .. (i+1)*dim)`. */
  readRows(rows: ArrayLike<number>, count: number, out: Float32Array): void;
  close(): void;
}

/** Receives rows in order while an index is being built. */
export interface RowSink {
  append(vec: Float32Array): void;
}

export class MemoryRows implements RowStore, RowSink {
  private data: Float32Array;
  private count = 0;

  constructor(
    private readonly dim: number,
    expected = 1024,
  ) {
    this.data = new Float32Array(Math.max(1, expected) * dim);
  }

  get residentBytes(): number {
    return this.data.byteLength;
  }

  append(vec: Float32Array): void {
    const need = (this.count + 1) * this.dim;
    if (need > this.data.length) {
      const next = new Float32Array(Math.max(need, this.data.length * 2));
      next.set(this.data.subarray(0, this.count * this.dim));
      this.data = next;
    }
    this.data.set(vec.subarray(0, this.dim), this.count * this.dim);
    this.count++;
  }

  /** Drops unused capacity once the build is done. */
  trim(): void {
    if (this.data.length !== this.count * this.dim) this.data = this.data.slice(0, this.count * this.dim);
  }

  readRows(rows: ArrayLike<number>, count: number, out: Float32Array): void {
    const d = this.dim;
    for (let i = 0; i < count; i++) out.set(this.data.subarray(rows[i] * d, rows[i] * d + d), i * d);
  }

  close(): void {
    this.data = new Float32Array(0);
  }
}

/** Streams rows into an open file at `offset`, through a write buffer. */
export class FileRowSink implements RowSink {
  private readonly buf: Buffer;
  private used = 0;
  private position: number;

  constructor(
    private readonly fd: number,
    private readonly dim: number,
    offset: number,
    bufferBytes = 4 << 20,
  ) {
    this.position = offset;
    this.buf = Buffer.alloc(Math.max(bufferBytes, dim * 4));
  }

  append(vec: Float32Array): void {
    const bytes = this.dim * 4;
    if (this.used + bytes > this.buf.length) this.flush();
    const src = new Uint8Array(vec.buffer, vec.byteOffset, bytes);
    this.buf.set(src, this.used);
    this.used += bytes;
  }

  flush(): void {
    let done = 0;
    while (done < this.used) {
      done += fs.writeSync(this.fd, this.buf, done, this.used - done, this.position + done);
    }
    this.position += this.used;
    this.used = 0;
  }
}

/** Reads rows from the cache file with positioned reads (coalescing adjacent rows). */
export class FileRows implements RowStore {
  readonly residentBytes = 0;
  private fd: number | undefined;
  private scratch: Uint32Array = new Uint32Array(0);

  constructor(
    fd: number,
    private readonly dim: number,
    private readonly offset: number,
  ) {
    this.fd = fd;
  }

  readRows(rows: ArrayLike<number>, count: number, out: Float32Array): void {
    if (this.fd === undefined) throw new Error('the vector index was disposed');
    const bytes = this.dim * 4;
    const dst = new Uint8Array(out.buffer, out.byteOffset, count * bytes);
    // Visit rows in file order so adjacent ones can be read with one call.
    if (this.scratch.length < count) this.scratch = new Uint32Array(Math.max(count, 64));
    const order = this.scratch.subarray(0, count);
    for (let i = 0; i < count; i++) order[i] = i;
    order.sort((a, b) => rows[a] - rows[b]);
    let i = 0;
    while (i < count) {
      let j = i + 1;
      while (j < count && rows[order[j]] === rows[order[j - 1]] + 1 && order[j] === order[j - 1] + 1) j++;
      const first = order[i];
      this.readFully(dst, first * bytes, (j - i) * bytes, this.offset + rows[first] * bytes);
      i = j;
    }
  }

  private readFully(dst: Uint8Array, at: number, length: number, position: number): void {
    let done = 0;
    while (done < length) {
      const n = fs.readSync(this.fd!, dst, at + done, length - done, position + done);
      if (n === 0) throw new Error('the vector cache file is shorter than its header says (it was modified while open)');
      done += n;
    }
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
