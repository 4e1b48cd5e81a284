/**
 * An AbortSignal that also aborts itself as soon as anyone reads `aborted` (or calls
 * `throwIfAborted()`) while a shared cancel flag is set.
 *
 * Inside the worker a long synchronous loop (a vector scan, an index build chunk) never yields to the
 * event loop, so a `cancel` message could not be delivered until it ends. Code that checks its signal
 * between chunks sees the client's shared flag immediately instead.
 */
const nativeAborted = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get;
const nativeThrowIfAborted = AbortSignal.prototype.throwIfAborted;

export interface PollingAbort {
  readonly signal: AbortSignal;
  abort(): void;
}

function cancelledError(): DOMException {
  return new DOMException('The request was cancelled by the client.', 'AbortError');
}

export function pollingSignal(isSet: () => boolean): PollingAbort {
  const ctrl = new AbortController();
  const signal = ctrl.signal;
  const abort = (): void => {
    if (!ctrl.signal.reason) ctrl.abort(cancelledError());
  };
  if (nativeAborted) {
    const read = (): boolean => {
      if (!nativeAborted.call(signal) && isSet()) abort();
      return nativeAborted.call(signal) as boolean;
    };
    Object.defineProperty(signal, 'aborted', { get: read, configurable: true });
    Object.defineProperty(signal, 'throwIfAborted', {
      value: function throwIfAborted(this: AbortSignal): void {
        read();
        nativeThrowIfAborted.call(signal);
      },
      configurable: true,
    });
  }
  return { signal, abort };
}
