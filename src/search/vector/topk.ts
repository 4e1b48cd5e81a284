import type { VectorHit } from '../types';

/** Keeps the k largest numbers seen, in a min-heap. */
export class KLargest {
  private readonly heap: Float64Array;
  private size = 0;

  constructor(readonly k: number) {
    this.heap = new Float64Array(k);
  }

  /** The values kept (at most k, in no particular order). */
  values(): Float64Array {
    return this.heap.slice(0, this.size);
  }

  /** Returns the k-th largest value once k were pushed, −∞ before. */
  push(v: number): number {
    const h = this.heap;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (h[p] <= v) break;
        h[i] = h[p];
        i = p;
      }
      h[i] = v;
    } else if (v > h[0]) {
      const n = this.size;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && h[r] < h[l] ? r : l;
        if (h[c] >= v) break;
        h[i] = h[c];
        i = c;
      }
      h[i] = v;
    }
    return this.size < this.k ? -Infinity : h[0];
  }
}

function compareHits(a: VectorHit, b: VectorHit): number {
  return b.score - a.score || a.messageId - b.messageId;
}

/** The best k hits by `compareHits`, kept sorted (k is small: tool limits are ≤ 200). */
export class TopHits {
  readonly items: VectorHit[] = [];

  constructor(readonly k: number) {}

  get full(): boolean {
    return this.items.length >= this.k;
  }

  get kth(): number {
    return this.full ? this.items[this.k - 1].score : -Infinity;
  }

  offer(hit: VectorHit): void {
    const items = this.items;
    if (this.full && compareHits(hit, items[this.k - 1]) >= 0) return;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareHits(items[mid], hit) <= 0) lo = mid + 1;
      else hi = mid;
    }
    items.splice(lo, 0, hit);
    if (items.length > this.k) items.pop();
  }
}
