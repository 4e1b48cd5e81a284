/** Minimal .npy (v1/v2, little-endian float32 / int64, C order) reader for the benchmark's query files. */
import * as fs from 'node:fs';

export function readNpy(file: string): { shape: number[]; data: Float32Array | BigInt64Array } {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file} is not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  if (/True/.test(/'fortran_order':\s*(\w+)/.exec(header)?.[1] ?? '')) throw new Error('fortran order not supported');
  const body = buf.subarray(start + hlen);
  const copy = new Uint8Array(body.byteLength);
  copy.set(body);
  if (descr === '<f4') return { shape, data: new Float32Array(copy.buffer) };
  if (descr === '<i8') return { shape, data: new BigInt64Array(copy.buffer) };
  throw new Error(`unsupported dtype ${descr}`);
}

/** Row i of a 2-D float32 npy. */
export function npyRows(npy: { shape: number[]; data: Float32Array | BigInt64Array }): Float32Array[] {
  const [n, d] = npy.shape;
  const data = npy.data as Float32Array;
  return Array.from({ length: n }, (_, i) => data.slice(i * d, (i + 1) * d));
}
