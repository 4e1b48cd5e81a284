/** Hidden conversations, in one place: every model-facing surface reaches the archive through `modelFacing()`. */
import { closestConversations } from '../archive/index';
import { isExcludedConversation } from '../archive/methods';
import type { AsyncArchive, ConversationExclusion, ConversationRow, Exclusion } from '../archive/types';
import type { VectorFilter, VectorIndex } from '../search/types';
import type { SemanticOptions, SemanticState, ServerContext } from './context';

/** A source prefix in `source:name` (msgbrowse's sources are lowercase words: signal, imessage, whatsapp, …). */
const SOURCE_PREFIX = /^([a-z][a-z0-9_-]*):(.+)$/;

/**
 * The setting's entries as exclusions: an exact conversation name in any source, or `source:name` for one source,
 * which also hides a conversation named exactly `source:name` (over-hiding is the safe side).
 */
export function parseExclusions(entries: readonly unknown[] | undefined): Exclusion {
  const out = new Map<string, ConversationExclusion>();
  const add = (x: ConversationExclusion) => out.set(JSON.stringify([x.name, x.source ?? null]), x);
  for (const raw of entries ?? []) {
    if (typeof raw !== 'string' || raw.trim() === '') continue;
    const entry = raw.trim();
    add({ name: entry });
    const m = SOURCE_PREFIX.exec(entry);
    if (m) add({ name: m[2].trim(), source: m[1] });
  }
  return [...out.values()];
}

/** What one exclusion entry hides, or (when nothing) up to three conversation names close to it. */
export type ExclusionMatch = { entry: string; matched: { name: string; source: string }[]; closest: string[] };

/** Each entry of the setting with what it hides in `all` (every conversation), so a typo is said, not silent. */
export function matchExclusions(all: readonly ConversationRow[], entries: readonly unknown[]): ExclusionMatch[] {
  return entries
    .filter((e): e is string => typeof e === 'string' && e.trim() !== '')
    .map((raw) => {
      const entry = raw.trim();
      const x = parseExclusions([entry]);
      const matched = all.filter((c) => isExcludedConversation(c, x)).map((c) => ({ name: c.name, source: c.source }));
      const closest = matched.length
        ? []
        : closestConversations([...all], SOURCE_PREFIX.exec(entry)?.[2] ?? entry)
            .slice(0, 3)
            .map((c) => c.name);
      return { entry, matched, closest };
    });
}

/** One line per entry that hides nothing (for logs and warnings), or none. */
export function unmatchedExclusionLines(matches: readonly ExclusionMatch[]): string[] {
  return matches
    .filter((m) => m.matched.length === 0)
    .map(
      (m) =>
        `"${m.entry}" matches no conversation, so it hides nothing${m.closest.length ? ` — closest: ${m.closest.map((n) => `"${n}"`).join(', ')}` : ''}`,
    );
}

/** Whether a conversation is hidden by the given setting entries (for the person's surfaces to mark it). */
export { isExcludedConversation as isHiddenConversation };

/** The vector index seen through an exclusion: the scan itself skips hidden conversations' rows (top-k stays k). */
function excludingIndex(index: VectorIndex, hiddenIds: (signal?: AbortSignal) => Promise<number[]>): VectorIndex {
  return {
    get model() {
      return index.model;
    },
    get dim() {
      return index.dim;
    },
    get size() {
      return index.size;
    },
    async search(query: Float32Array, k: number, filter?: VectorFilter, signal?: AbortSignal) {
      const ids = await hiddenIds(signal);
      const merged: VectorFilter = ids.length
        ? { ...filter, excludeConversationIds: [...(filter?.excludeConversationIds ?? []), ...ids] }
        : { ...filter };
      return index.search(query, k, merged, signal);
    },
    // The runtime owns the index.
    dispose() {},
  };
}

/** `base` (which sees everything) as the model must see it: without the conversations `exclusion()` names. */
export function modelFacing(base: ServerContext, exclusion: () => Exclusion): ServerContext {
  const archive = async (): Promise<AsyncArchive> => {
    const a = await base.archive();
    const x = exclusion();
    return x.length ? a.excluding(x) : a;
  };
  // Everything else is the base's own, getters included (also what the context gains later).
  const view = Object.defineProperties({}, Object.getOwnPropertyDescriptors(base)) as ServerContext;
  view.archive = archive;
  view.semantic = async (signal?: AbortSignal, opts?: SemanticOptions): Promise<SemanticState> => {
    const state = await base.semantic(signal, opts);
    const x = exclusion();
    if (!state.available || x.length === 0) return state;
    const hiddenIds = async (s?: AbortSignal) => {
      const all = await (await base.archive()).listConversations(undefined, s);
      return all.filter((c) => isExcludedConversation(c, x)).map((c) => c.id);
    };
    return { ...state, index: excludingIndex(state.index, hiddenIds) };
  };
  return view;
}
