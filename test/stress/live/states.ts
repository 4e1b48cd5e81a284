/**
 * The committed states of the live writer's conversation, reconstructed from its JSON events, and the
 * checks that a reader's answer matches exactly one committed state (no mixing of old and new rows).
 */
import type { LiveWriterEvent } from '../../fixtures/index';

type TxEvent = Extract<LiveWriterEvent, { kind: 'reimport' | 'append' }>;

export interface CommittedState {
  tx: number;
  /** Message ids of the conversation in chronological (ts_unix, id) order. */
  ids: number[];
}

/** Every committed state, in commit order. Throws if the events are not what the writer promises. */
export function committedStates(events: readonly LiveWriterEvent[]): CommittedState[] {
  const states: CommittedState[] = [];
  let current: number[] = [];
  for (const e of events) {
    if (e.kind !== 'reimport' && e.kind !== 'append') continue;
    const tx = e as TxEvent;
    if (tx.kind === 'reimport') {
      // A re-import deletes and re-inserts the whole conversation in one transaction: contiguous new ids.
      if (tx.maxId - tx.minId + 1 !== tx.messageCount) {
        throw new Error(
          `reimport tx ${tx.tx}: ids ${tx.minId}..${tx.maxId} are not ${tx.messageCount} contiguous rows`,
        );
      }
      current = Array.from({ length: tx.messageCount }, (_, i) => tx.minId + i);
    } else {
      current = [...current, ...tx.added.map((m) => m.id)];
      if (current.length !== tx.messageCount)
        throw new Error(`append tx ${tx.tx}: expected ${tx.messageCount} rows, have ${current.length}`);
    }
    states.push({ tx: tx.tx, ids: current });
  }
  return states;
}

export interface TranscriptObservation {
  /** Latest writer tx whose event had arrived before the request was sent. */
  seenTx: number;
  ids: number[];
  hasMore: boolean;
}

export interface SubsetObservation {
  seenTx: number;
  ids: number[];
  what: string;
}

/**
 * The committed state a transcript page shows, or a description of why none matches. A page is the
 * first `ids.length` messages of one state; `has_more` must agree with that state's size.
 */
export function matchTranscript(
  states: readonly CommittedState[],
  o: TranscriptObservation,
): { tx: number } | { error: string } {
  const candidates = states.filter((s) => s.tx >= o.seenTx);
  for (const s of candidates) {
    if (s.ids.length < o.ids.length) continue;
    if (o.ids.every((id, i) => s.ids[i] === id) && o.hasMore === s.ids.length > o.ids.length) return { tx: s.tx };
  }
  const stale = states.some(
    (s) => s.tx < o.seenTx && o.ids.length <= s.ids.length && o.ids.every((id, i) => s.ids[i] === id),
  );
  return {
    error: stale
      ? `stale: the page shows a state older than tx ${o.seenTx}, which had already been committed when the request was sent`
      : `mixed: ${o.ids.length} ids [${o.ids.slice(0, 6).join(',')}…${o.ids.slice(-3).join(',')}] (has_more ${o.hasMore}) match no committed state at or after tx ${o.seenTx}`,
  };
}

const sets = new WeakMap<CommittedState, Set<number>>();
function idSet(s: CommittedState): Set<number> {
  let set = sets.get(s);
  if (!set) sets.set(s, (set = new Set(s.ids)));
  return set;
}

/** Whether all `ids` belong to one committed state at or after `seenTx`. */
export function matchSubset(
  states: readonly CommittedState[],
  o: SubsetObservation,
): { tx: number } | { error: string } {
  for (const s of states) {
    if (s.tx < o.seenTx) continue;
    const set = idSet(s);
    if (o.ids.every((id) => set.has(id))) return { tx: s.tx };
  }
  return {
    error: `${o.what}: ids [${o.ids.join(',')}] are not all from one committed state at or after tx ${o.seenTx}`,
  };
}
