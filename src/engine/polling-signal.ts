// An AbortSignal that also aborts itself when read (`aborted`, `throwIfAborted()`) while a shared cancel flag is set:
// a long synchronous loop in the worker never yields to receive a `cancel` message, but checks its signal.
const nativeAborted = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get;
const nativeThrowIfAborted = AbortSignal.prototype.throwIfAborted;

export interface PollingAbort {
  readonly signal: AbortSignal;
  abort(): void;
}

export function pollingSignal(isSet: () => boolean): PollingAbort {
  const ctrl = new AbortController();
  const signal = ctrl.signal;
  const abort = (): void => {
    if (!ctrl.signal.reason) ctrl.abort(new DOMException('The request was cancelled by the client.', 'AbortError'));
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
