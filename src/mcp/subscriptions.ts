/**
 * Live resources: `resources/subscribe` / `unsubscribe` for conversation and message URIs. When msgbrowse writes to a
 * subscribed conversation (an import, a re-import, a WAL commit) this server sends `notifications/resources/updated`
 * for each subscribed URI of it; when conversations appear or disappear (or an exclusion changes which ones the model
 * may see) after the client listed them, `notifications/resources/list_changed`.
 *
 * Change detection: the context's `onDidChange` (the runtime's file watcher and settings) triggers one
 * `conversationSignatures()` read (count, lowest and highest id per conversation: a re-import renumbers), diffed
 * with the previous one. Only servers with a subscription or a past listing read anything. The subscription set is
 * the only per-session state (a stateless request could not subscribe anyway).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, inline, parseResourceId, ProtocolError, type ServerContext } from '../core';

type Signature = Map<number, string>;

export interface ResourceWatch {
  /** resources/list was answered: from now on, tell this client when the list changes. */
  noteListed(): void;
}

/** The conversation a subscribable URI is about: `msgbrowse://conversation/{id}` or `msgbrowse://message/{id|hash}{?h}`. */
function parseSubscribable(
  uri: string,
): { kind: 'conversation'; id: number } | { kind: 'message'; id?: number; hash?: string } | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'msgbrowse:') return undefined;
  const raw = decodeURIComponent(u.pathname.replace(/^\/+/, ''));
  const id = parseResourceId(raw);
  if (!id) return undefined;
  if (u.hostname === 'conversation') return 'id' in id ? { kind: 'conversation', id: id.id } : undefined;
  if (u.hostname === 'message') return 'id' in id ? { kind: 'message', id: id.id } : { kind: 'message', hash: id.hash };
  return undefined;
}

export function registerSubscriptions(
  server: McpServer,
  ctx: ServerContext,
  sent?: (method: string, uri?: string) => void,
): ResourceWatch {
  /** Subscribed URI → the conversation it is about (a message's conversation is looked up again after changes). */
  const subscribed = new Map<string, { conversationId?: number; message?: { id?: number; hash?: string } }>();
  let listed = false;
  let last: Signature | undefined;
  let reading: Promise<void> | undefined;
  let again = false;

  const signatures = async (): Promise<Signature> => {
    const rows = await (await ctx.archive()).conversationSignatures();
    return new Map(rows.map((r) => [r.id, `${r.messages}:${r.minId}:${r.maxId}`]));
  };
  const baseline = async () => {
    if (!last) last = await signatures().catch(() => undefined);
  };
  const messageOf = async (m: { id?: number; hash?: string }) => {
    const archive = await ctx.archive();
    return m.hash ? archive.messageByHash(m.hash) : m.id !== undefined ? archive.messageById(m.id) : undefined;
  };
  const conversationOf = async (m: { id?: number; hash?: string }): Promise<number | undefined> =>
    (await messageOf(m))?.conversationId;

  const check = async (): Promise<void> => {
    if (!listed && subscribed.size === 0) return;
    const before = last;
    let now: Signature;
    try {
      now = await signatures();
    } catch (e) {
      ctx.log?.('debug', `resource watch: could not read the archive (${errorMessage(e)})`);
      return;
    }
    last = now;
    if (!before) return;
    const changed = new Set<number>();
    for (const [id, sig] of now) if (before.get(id) !== sig) changed.add(id);
    for (const id of before.keys()) if (!now.has(id)) changed.add(id);
    if (changed.size === 0) return;
    const setChanged = now.size !== before.size || [...now.keys()].some((id) => !before.has(id));
    for (const [uri, sub] of subscribed) {
      let hit = sub.conversationId !== undefined && changed.has(sub.conversationId);
      if (sub.message) {
        // A re-import moves a message to a new id (or removes it): follow it by hash when we know it.
        const conv = await conversationOf(sub.message).catch(() => undefined);
        if (conv !== sub.conversationId) hit = true;
        sub.conversationId = conv;
        if (conv !== undefined && changed.has(conv)) hit = true;
      }
      if (hit) {
        await server.server.sendResourceUpdated({ uri }).catch(() => undefined);
        sent?.('notifications/resources/updated', uri);
      }
    }
    if (listed && setChanged) {
      server.sendResourceListChanged();
      sent?.('notifications/resources/list_changed');
    }
  };
  // Changes arrive in bursts: one read at a time, and one more if anything changed meanwhile.
  const onChange = () => {
    if (reading) {
      again = true;
      return;
    }
    reading = (async () => {
      do {
        again = false;
        await check();
      } while (again);
    })().finally(() => (reading = undefined));
  };
  const unwatch = ctx.onDidChange?.(onChange);
  const prevClose = server.server.onclose;
  server.server.onclose = () => {
    unwatch?.();
    subscribed.clear();
    prevClose?.();
  };

  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    const uri = req.params.uri;
    if (typeof uri !== 'string' || uri.length > 2048)
      throw new ProtocolError(ErrorCode.InvalidParams, 'uri must be a string of at most 2048 characters');
    const target = parseSubscribable(uri);
    // Subscribing is always accepted (MCP leaves unknown URIs open): a conversation or message that is not in the
    // archive yet is notified when an import brings it; a URI that is not one of ours can never change.
    if (!target) {
      ctx.log?.(
        'debug',
        `resources/subscribe ${inline(uri)}: not a msgbrowse conversation or message URI; it will never be updated`,
      );
      subscribed.set(uri, {});
    } else if (target.kind === 'conversation') {
      subscribed.set(uri, { conversationId: target.id });
    } else {
      const row = await messageOf(target).catch(() => undefined);
      // Follow the message by its hash: its id changes when msgbrowse re-imports the conversation.
      subscribed.set(uri, {
        conversationId: row?.conversationId,
        message: row ? { hash: row.hash } : target.hash ? { hash: target.hash } : { id: target.id },
      });
    }
    await baseline();
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    subscribed.delete(req.params.uri);
    return {};
  });

  return {
    noteListed() {
      listed = true;
      void baseline();
    },
  };
}
