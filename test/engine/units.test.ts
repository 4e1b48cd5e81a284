/** The engine worker's small parts: cancel slots, the polling AbortSignal, error transport. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArchiveError } from '../../src/archive';
import { VectorIndexError } from '../../src/search/vector';
import { CancelFlags, CancelSlots } from '../../src/engine/cancel-slots';
import { pollingSignal } from '../../src/engine/polling-signal';
import { NO_SLOT } from '../../src/engine/protocol';
import { abortError, fromWireError, toWireError } from '../../src/engine/wire-error';

describe('cancel slots', () => {
  it('hands out cleared slots, shares flags with the reader, and recycles released slots', () => {
    const slots = new CancelSlots(3);
    const flags = new CancelFlags(slots.buffer);
    const a = slots.take();
    const b = slots.take();
    const c = slots.take();
    assert.deepEqual(new Set([a, b, c]).size, 3);
    assert.equal(slots.take(), NO_SLOT, 'exhausted slots fall back to NO_SLOT');
    slots.cancel(b);
    assert.equal(flags.isSet(b), true);
    assert.equal(flags.isSet(a), false);
    assert.equal(flags.isSet(NO_SLOT), false);
    slots.release(b);
    const again = slots.take();
    assert.equal(again, b);
    assert.equal(flags.isSet(again), false, 'a reused slot starts cleared');
    slots.cancel(NO_SLOT);
    slots.release(NO_SLOT);
    assert.equal(slots.take(), NO_SLOT, 'NO_SLOT is never handed out as a slot');
  });
});

describe('polling AbortSignal', () => {
  it('becomes aborted when read while the flag is set, firing abort listeners', () => {
    let flag = false;
    const { signal } = pollingSignal(() => flag);
    let fired = 0;
    signal.addEventListener('abort', () => fired++);
    assert.equal(signal.aborted, false);
    signal.throwIfAborted();
    flag = true;
    assert.equal(fired, 0, 'nothing happens until someone looks');
    assert.equal(signal.aborted, true);
    assert.equal(fired, 1);
    assert.throws(() => signal.throwIfAborted(), { name: 'AbortError' });
    assert.equal(signal.aborted, true);
    assert.equal(fired, 1);
  });

  it('throwIfAborted polls too, and abort() works without the flag', () => {
    let flag = false;
    const p = pollingSignal(() => flag);
    flag = true;
    assert.throws(() => p.signal.throwIfAborted(), { name: 'AbortError' });
    const q = pollingSignal(() => false);
    q.abort();
    assert.equal(q.signal.aborted, true);
    assert.equal((q.signal.reason as Error).name, 'AbortError');
  });
});

describe('errors across the boundary', () => {
  it('ArchiveError keeps code, message and path; no stack travels', () => {
    const e = new ArchiveError('not_msgbrowse', 'x.sqlite is not a msgbrowse archive', '/tmp/x.sqlite');
    const wire = toWireError(e);
    assert.deepEqual(wire, { kind: 'archive', code: 'not_msgbrowse', message: e.message, path: '/tmp/x.sqlite' });
    assert.equal(structuredClone(wire).message, e.message);
    const back = fromWireError(wire);
    assert.ok(back instanceof ArchiveError);
    assert.equal(back.code, 'not_msgbrowse');
    assert.equal(back.path, '/tmp/x.sqlite');
    assert.ok(!('stack' in wire));
  });

  it('VectorIndexError, AbortError, plain errors and thrown non-errors', () => {
    const v = fromWireError(toWireError(new VectorIndexError('zero_query', 'zero length')));
    assert.ok(v instanceof VectorIndexError);
    assert.equal(v.code, 'zero_query');
    const ac = new AbortController();
    ac.abort();
    assert.equal(fromWireError(toWireError(abortError(ac.signal))).name, 'AbortError');
    const plain = fromWireError(toWireError(new TypeError('bad input')));
    assert.equal(plain.constructor, Error);
    assert.equal(plain.message, 'bad input');
    assert.equal(fromWireError(toWireError('just a string')).message, 'just a string');
  });

  it('an abort rejects with the signal reason when it is an Error, else an AbortError', () => {
    const reason = new Error('turn stopped');
    const ac = new AbortController();
    ac.abort(reason);
    assert.equal(abortError(ac.signal), reason);
    const other = new AbortController();
    other.abort('not an error');
    assert.equal(abortError(other.signal).name, 'AbortError');
    assert.equal(abortError(undefined).name, 'AbortError');
  });
});
