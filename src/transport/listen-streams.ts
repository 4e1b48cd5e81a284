/**
 * 2026-07-28 `subscriptions/listen` streams as the transports see them: the SDK's entries answer them and fan each
 * published change out to the streams whose filter names it; the application, told which streams are open, publishes.
 */
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';

/** Publishes a change once; the SDK delivers it to every open stream that asked for it. */
export interface ChangeNotifier {
  resourceUpdated(uri: string): Promise<void> | void;
  resourcesChanged(): void;
}

export interface ListenFilter {
  resourcesListChanged?: boolean;
  resourceSubscriptions?: readonly string[];
}

/** The open streams of one HTTP endpoint or stdio connection (mcp/subscriptions.ts `listenWatch`). */
export interface ListenWatch {
  /** A stream is coming (before the SDK answers it): resolves once changes from now on are noticed, with its slot. */
  reserve(): Promise<ListenSlot>;
}

/** One stream's place: `add` when acknowledged (returns what ends it), `release` when refused or gone before. */
export interface ListenSlot {
  add(filter: ListenFilter): () => void;
  release(): void;
}

/** Made once per HTTP endpoint or stdio connection, with what publishes its changes. */
export type ListenWatchFactory = (notify: ChangeNotifier) => ListenWatch;

/** A 2026-07-28 `subscriptions/listen` request (it carries the `_meta` envelope): its id; undefined for anything else. */
export function listenRequestId(msg: unknown): string | number | undefined {
  const m = msg as { method?: unknown; id?: unknown; params?: { _meta?: Record<string, unknown> } } | null;
  if (!m || typeof m !== 'object' || m.method !== 'subscriptions/listen') return undefined;
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return undefined;
  return m.params?._meta?.[PROTOCOL_VERSION_META_KEY] === undefined ? undefined : m.id;
}

/** The filter of a listen request, as far as it concerns resources (the SDK validates the whole request). */
export function requestedFilter(msg: unknown): ListenFilter {
  const n = (msg as { params?: { notifications?: ListenFilter } }).params?.notifications;
  const uris = Array.isArray(n?.resourceSubscriptions) ? n.resourceSubscriptions : [];
  return {
    resourcesListChanged: n?.resourcesListChanged === true,
    resourceSubscriptions: uris.filter((u): u is string => typeof u === 'string'),
  };
}
