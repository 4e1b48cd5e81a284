/** Async work shared by every caller; aborted only when every waiter has given up (or on `abort()`). */

export function abortError(message = 'the operation was cancelled'): Error {
  const err = new Error(message);
  err.name = 'AbortError';
  return err;
}

export function isAbortError(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

export class SharedTask<T> {
  private readonly controller = new AbortController();
  private readonly promise: Promise<T>;
  private waiters = 0;
  private settled = false;
  /** Keep running even with no waiter (background refresh). */
  private detached = false;

  constructor(work: (signal: AbortSignal) => Promise<T>) {
    this.promise = work(this.controller.signal);
    const settle = () => (this.settled = true);
    this.promise.then(settle, settle);
  }

  get done(): boolean {
    return this.settled;
  }

  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  /** The result for a caller that can stop waiting through `signal`. */
  wait(signal?: AbortSignal): Promise<T> {
    if (!signal) {
      this.waiters++;
      return this.promise.finally(() => this.waiters--);
    }
    if (signal.aborted) return Promise.reject(abortError());
    this.waiters++;
    return new Promise<T>((resolve, reject) => {
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        this.waiters--;
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        leave();
        reject(abortError());
        if (this.waiters === 0 && !this.detached && !this.settled) this.controller.abort(abortError());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.promise.finally(leave).then(resolve, reject);
    });
  }

  /** The outcome, for bookkeeping: neither counts as a waiter nor keeps the work alive. */
  observe(): Promise<T> {
    return this.promise;
  }

  /** Lets the work run to completion without anyone waiting. */
  detach(): Promise<T> {
    this.detached = true;
    return this.promise;
  }

  abort(): void {
    if (!this.settled) this.controller.abort(abortError());
  }
}
