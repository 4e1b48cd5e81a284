/**
 * An index's WebAssembly memory: [query i16][chunk dots i32][chunk upper bounds f32][chunk row list i32][int8 rows…]
 * then, once the row count is known (metaLayout), [scale f32[n]][err f32[n]][qnorm f32[n]].
 */
export const WASM_PAGE = 65536;
/** The wasm32 limit: 4 GiB. */
export const MAX_PAGES = 65536;

export interface MemoryLayout {
  stride: number;
  /** Rows scored per kernel call (and per event-loop turn). */
  chunkRows: number;
  queryOff: number;
  outOff: number;
  uOff: number;
  idxOff: number;
  matrixOff: number;
}

export const align = (n: number, a = 64) => Math.ceil(n / a) * a;

export function layoutFor(stride: number): MemoryLayout {
  // A few MiB of int8 rows per chunk: short kernel calls between yields.
  const chunkRows = Math.min(65536, Math.max(1024, Math.floor((4 << 20) / stride / 2) * 2));
  const outOff = align(stride * 2);
  const uOff = align(outOff + chunkRows * 4);
  const idxOff = align(uOff + chunkRows * 4);
  const matrixOff = align(idxOff + chunkRows * 4);
  return { stride, chunkRows, queryOff: 0, outOff, uOff, idxOff, matrixOff };
}

export function pagesFor(bytes: number): number {
  return Math.ceil(bytes / WASM_PAGE);
}

export interface MetaLayout {
  /** Byte offset of scale[0]; err and qnorm follow at +plane and +2·plane. */
  metaOff: number;
  plane: number;
  /** Bytes in use. */
  end: number;
}

export function metaLayout(layout: MemoryLayout, n: number): MetaLayout {
  const metaOff = align(layout.matrixOff + n * layout.stride);
  const plane = align(n * 4);
  return { metaOff, plane, end: metaOff + 3 * plane };
}
