/**
 * Touching a build's index memory ahead of the build, from another thread.
 *
 * A fresh WebAssembly memory is committed page by page on first touch, and on this project's machines each such page
 * fault costs 10–20 µs (the guest's and the host's both map the page): 19k faults, about 0.35 s, for the 77 MB of a
 * 100k × 768 index, paid by the build thread as it writes its rows (bench/analysis.md, 2026-12-04). A one-thread
 * build leaves the other core idle, so the engine worker writes each page first.
 *
 * `Atomics.add(…, 0)` is a write (on a private mapping a read would map only the shared zero page, and the build's
 * write would fault again) that never changes a byte, whatever the build has written there already: the read and the
 * write-back are one indivisible instruction on x64 (`lock xadd`) and arm64 (`ldaddal`, or an exclusive load/store
 * pair that retries when another core stored in between), so a plain store of the build lands before or after it,
 * never lost. ECMAScript's memory model calls a plain write beside an atomic one a race and promises less; this
 * relies on what V8 emits.
 *
 * Faults of the same page are serialised by the kernel, so this only pays while it runs ahead of the build, which it
 * does: a page takes it one fault, the build about five rows of SQL and quantisation. It works in small slices and
 * yields between them, so the thread stays free for tool calls.
 */
import type { WasmMemory } from '../kernel/wasm-api';
import { yieldToEventLoop } from './errors';

/** Linux's base page. */
export const TOUCH_PAGE = 4096;
/** Pages per slice: about 0.3–0.6 ms of faults, then a turn of the event loop. */
const PAGES_PER_SLICE = 32;

export interface PrefaultResult {
  /** Pages written (each once). */
  pages: number;
  /** Whether it reached the end of the range (else `stop` ended it). */
  complete: boolean;
}

/**
 * Writes every page of `[from, to)` of `memory` once, without changing its bytes, until done or `stop()` says so
 * (checked between slices). `yieldTurn` is how it gives the event loop a turn (default: one setImmediate).
 */
export async function prefault(
  memory: WasmMemory,
  from: number,
  to: number,
  stop: () => boolean,
  yieldTurn: () => Promise<void> = yieldToEventLoop,
): Promise<PrefaultResult> {
  const words = new Int32Array(memory.buffer);
  const end = Math.min(to, words.byteLength);
  let at = Math.max(0, Math.floor(from / TOUCH_PAGE) * TOUCH_PAGE);
  let pages = 0;
  while (at < end) {
    if (stop()) return { pages, complete: false };
    const sliceEnd = Math.min(end, at + PAGES_PER_SLICE * TOUCH_PAGE);
    for (; at < sliceEnd; at += TOUCH_PAGE, pages++) Atomics.add(words, at >> 2, 0);
    await yieldTurn();
  }
  return { pages, complete: true };
}
