/**
 * 2026-07-28 `subscriptions/listen` streams as the transports see them: the SDK's entries answer them, and a hook
 * tells the application what each stream watches, so it can publish the changes.
 */
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';

/** Publishes a change to the streams that asked for it (the SDK matches each stream's filter). */
export interface ChangeNotifier {
  resourceUpdated(uri: string): Promise<void> | void;
  resourcesChanged(): void;
}

export interface ListenFilter {
  resourcesListChanged?: boolean;
  resourceSubscriptions?: readonly string[];
}

/**
 * Called when a stream opens, before it is acknowledged; resolves, once ready to publish, with what to call when it
 * closes.
 */
export type ListenHook = (filter: ListenFilter, notify: ChangeNotifier) => Promise<() => void>;

/**
 * The id and resource filter of a 2026-07-28 `subscriptions/listen` request (it carries the `_meta` envelope);
 * undefined for any other message.
 */
export function listenRequestOf(msg: unknown): { id: string | number; filter: ListenFilter } | undefined {
  type Params = { notifications?: unknown; _meta?: Record<string, unknown> };
  const m = msg as { method?: unknown; id?: unknown; params?: Params } | null;
  if (!m || typeof m !== 'object' || m.method !== 'subscriptions/listen') return undefined;
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return undefined;
  if (m.params?._meta?.[PROTOCOL_VERSION_META_KEY] === undefined) return undefined;
  const n = m.params?.notifications as { resourcesListChanged?: unknown; resourceSubscriptions?: unknown } | undefined;
  if (!n || typeof n !== 'object') return undefined; // the SDK answers -32602
  const uris = Array.isArray(n.resourceSubscriptions)
    ? n.resourceSubscriptions.filter((u): u is string => typeof u === 'string')
    : undefined;
  return { id: m.id, filter: { resourcesListChanged: n.resourcesListChanged === true, resourceSubscriptions: uris } };
}
