// A ring of Int32 cancel flags shared with the engine worker: the client sets a request's flag when its caller aborts,
// the worker polls it. A slot is reused only after the worker answered, so a late cancelled request never sees its
// flag cleared by the next one.
import { CANCEL_SLOTS, NO_SLOT } from './protocol';

export class CancelSlots {
  readonly buffer: SharedArrayBuffer;
  private readonly flags: Int32Array;
  private readonly free: number[] = [];

  constructor(size = CANCEL_SLOTS) {
    this.buffer = new SharedArrayBuffer(size * Int32Array.BYTES_PER_ELEMENT);
    this.flags = new Int32Array(this.buffer);
    for (let i = size - 1; i >= 0; i--) this.free.push(i);
  }

  /** A cleared slot, or NO_SLOT when all are in use (the request is then cancelled by message only). */
  take(): number {
    const slot = this.free.pop();
    if (slot === undefined) return NO_SLOT;
    Atomics.store(this.flags, slot, 0);
    return slot;
  }

  cancel(slot: number): void {
    if (slot !== NO_SLOT) Atomics.store(this.flags, slot, 1);
  }

  release(slot: number): void {
    if (slot !== NO_SLOT) this.free.push(slot);
  }
}

export class CancelFlags {
  private readonly flags: Int32Array;
  constructor(buffer: SharedArrayBuffer) {
    this.flags = new Int32Array(buffer);
  }
  isSet(slot: number): boolean {
    return slot !== NO_SLOT && Atomics.load(this.flags, slot) !== 0;
  }
}
