/**
 * Query embeddings shared per embedder: one request per text at a time, the last answers kept, failures not kept.
 * So a request that outlives a search's budget goes on and serves the next search with the same query.
 */
import type { Embedder } from '../embed/types';
import { SharedTask } from './shared-task';

/** Answers kept per embedder. */
const KEPT = 64;

export class SharedQueryEmbedder implements Embedder {
  private readonly inFlight = new Map<string, SharedTask<Float32Array>>();
  private readonly kept = new Map<string, Float32Array>();

  constructor(private readonly inner: Embedder) {}

  get model(): string {
    return this.inner.model;
  }

  embed(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const hit = this.kept.get(text);
    if (hit) {
      this.kept.delete(text);
      this.kept.set(text, hit); // most recently used last
      return Promise.resolve(hit);
    }
    let task = this.inFlight.get(text);
    if (!task || task.aborted) {
      const t = new SharedTask<Float32Array>((s) => this.inner.embed(text, s));
      task = t;
      this.inFlight.set(text, t);
      const settled = () => this.inFlight.get(text) === t && this.inFlight.delete(text);
      t.observe().then((vec) => {
        settled();
        this.kept.set(text, vec);
        while (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value as string);
      }, settled);
    }
    return task.wait(signal);
  }

  /** Lets the request for `text` finish without a waiter (a caller whose budget ran out stops waiting for it). */
  release(text: string): void {
    this.inFlight
      .get(text)
      ?.detach()
      .catch(() => {});
  }
}
