// Live resources: `resources/updated` for each subscribed URI whose conversation changed, `list_changed` when
// conversations appear or disappear; a watcher follows the archive only once something is asked of it.
// Initialize-era sessions subscribe with resources/subscribe (and hear list_changed after a listing); the 2026-07-28
// subscriptions/listen streams of one HTTP endpoint or stdio connection share one watcher (listenWatch), which
// publishes each change once: the SDK hands it to every stream whose filter names it.
import { type McpServer, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { errorMessage, inline, parseResourceId, ProtocolError, type ServerContext } from '../core';

/** Per conversation: its count, lowest and highest id (a re-import renumbers). */
type Signature = Map<number, string>;
type MessageRef = { id?: number; hash?: string };
/** The conversation a subscribed URI is about; a message's is looked up again after changes. */
type Subscription = { conversationId?: number; message?: MessageRef };
type Sent = (method: string, uri?: string) => void;

/** Where a watcher's notifications go: a session's server, or the SDK's publisher for listen streams. */
export interface ChangeSink {
  resourceUpdated(uri: string): Promise<void> | void;
  resourcesChanged(): void;
}

/** What an acknowledged `subscriptions/listen` stream asked for that concerns resources. */
export interface ListenFilter {
  resourcesListChanged?: boolean;
  resourceSubscriptions?: readonly string[];
}

/** The sink that sends through a server's own notifications. */
export function serverSink(server: McpServer): ChangeSink {
  return {
    resourceUpdated: (uri) => server.server.sendResourceUpdated({ uri }),
    resourcesChanged: () => server.sendResourceListChanged(),
  };
}

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

/** The conversations whose signature changed, and whether conversations appeared or disappeared. */
function diff(before: Signature, now: Signature): { changed: Set<number>; setChanged: boolean } {
  const changed = new Set<number>();
  for (const [id, sig] of now) if (before.get(id) !== sig) changed.add(id);
  for (const id of before.keys()) if (!now.has(id)) changed.add(id);
  return { changed, setChanged: now.size !== before.size || [...now.keys()].some((id) => !before.has(id)) };
}

class ResourceWatcher implements ResourceWatch {
  readonly subscribed = new Map<string, Subscription>();
  listed = false;
  private last: Signature | undefined;
  private unwatch: (() => void) | undefined;
  /** A closed session's watcher: a request still in flight must not start it again. */
  private disposed = false;
  private reading: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly sink: ChangeSink,
    private readonly ctx: ServerContext,
    private readonly sent: Sent | undefined,
  ) {}

  noteListed(): void {
    this.listed = true;
    void this.watch();
  }

  /** Follows the archive's changes from now on (once), with its state read to compare them with. */
  async watch(): Promise<void> {
    if (this.disposed) return;
    this.unwatch ??= this.ctx.onDidChange?.(this.onChange) ?? (() => {});
    if (this.last) return;
    const watching = this.unwatch;
    const now = await this.signatures().catch(() => undefined);
    if (this.unwatch === watching && !this.last) this.last = now; // not if stopped meanwhile: a new start reads afresh
  }

  /** Stops following the archive and forgets what was asked; `dispose` also refuses any later start. */
  stop(dispose = false): void {
    this.disposed ||= dispose;
    this.unwatch?.();
    this.unwatch = undefined;
    this.last = undefined;
    this.subscribed.clear();
    this.listed = false;
  }

  /**
   * Subscribing is always accepted (MCP leaves unknown URIs open): a conversation or message not in the archive yet is
   * notified when an import brings it; a URI that is not one of ours can never change.
   */
  async subscribe(uri: string): Promise<void> {
    const target = parseSubscribable(uri);
    if (!target) {
      this.ctx.log?.(
        'debug',
        `resources/subscribe ${inline(uri)}: not a msgbrowse conversation or message URI; it will never be updated`,
      );
      this.subscribed.set(uri, {});
    } else if (target.kind === 'conversation') {
      this.subscribed.set(uri, { conversationId: target.id });
    } else {
      const row = await this.messageOf(target).catch(() => undefined);
      // Follow the message by its hash: its id changes when msgbrowse re-imports the conversation.
      this.subscribed.set(uri, {
        conversationId: row?.conversationId,
        message: row ? { hash: row.hash } : target.hash ? { hash: target.hash } : { id: target.id },
      });
    }
  }

  /** Changes arrive in bursts: one read at a time, and one more if anything changed meanwhile. */
  readonly onChange = (): void => {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        await this.check();
      } while (this.again);
    })().finally(() => (this.reading = undefined));
  };

  private async signatures(): Promise<Signature> {
    const rows = await (await this.ctx.archive()).conversationSignatures();
    return new Map(rows.map((r) => [r.id, `${r.messages}:${r.minId}:${r.maxId}`]));
  }

  private async messageOf(m: MessageRef) {
    const archive = await this.ctx.archive();
    return m.hash ? archive.messageByHash(m.hash) : m.id !== undefined ? archive.messageById(m.id) : undefined;
  }

  /** While watching, `last` stays current even with nothing asked: a stream added later compares with it. */
  private async check(): Promise<void> {
    const watching = this.unwatch;
    if (!watching) return;
    const before = this.last;
    let now: Signature;
    try {
      now = await this.signatures();
    } catch (e) {
      this.ctx.log?.('debug', `resource watch: could not read the archive (${errorMessage(e)})`);
      return;
    }
    if (this.unwatch !== watching) return; // stopped meanwhile
    this.last = now;
    if (!before) return;
    const { changed, setChanged } = diff(before, now);
    if (changed.size === 0) return;
    await this.notifySubscribers(changed);
    if (this.listed && setChanged) {
      this.sink.resourcesChanged();
      this.sent?.('notifications/resources/list_changed');
    }
  }

  private async notifySubscribers(changed: Set<number>): Promise<void> {
    for (const [uri, sub] of this.subscribed) {
      let hit = sub.conversationId !== undefined && changed.has(sub.conversationId);
      if (sub.message) {
        // A re-import moves a message to a new id (or removes it): follow it by hash when we know it.
        const conv = (await this.messageOf(sub.message).catch(() => undefined))?.conversationId;
        if (conv !== sub.conversationId) hit = true;
        sub.conversationId = conv;
        if (conv !== undefined && changed.has(conv)) hit = true;
      }
      if (hit) {
        await Promise.resolve(this.sink.resourceUpdated(uri)).catch(() => undefined);
        this.sent?.('notifications/resources/updated', uri);
      }
    }
  }
}

export function registerSubscriptions(server: McpServer, ctx: ServerContext, sent?: Sent): ResourceWatch {
  const watcher = new ResourceWatcher(serverSink(server), ctx, sent);
  const prevClose = server.server.onclose;
  server.server.onclose = () => {
    watcher.stop(true);
    prevClose?.();
  };
  server.server.setRequestHandler('resources/subscribe', async (req) => {
    const uri = req.params.uri;
    if (typeof uri !== 'string' || uri.length > 2048)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'uri must be a string of at most 2048 characters');
    await watcher.subscribe(uri);
    await watcher.watch();
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async (req) => {
    watcher.subscribed.delete(req.params.uri);
    return {};
  });
  return watcher;
}

/** The listen streams of one HTTP endpoint or stdio connection, watched together. */
export interface ListenWatch {
  /** A stream is coming: resolves once changes from now on are noticed, with its slot. */
  reserve(): Promise<ListenSlot>;
}

/** One stream's place: `add` when acknowledged (returns what ends it), `release` when refused or gone before. */
export interface ListenSlot {
  add(filter: ListenFilter): () => void;
  release(): void;
}

/**
 * One watcher for many streams: each URI and the listing are watched while any open stream asks for them, and the
 * archive is followed while any stream is open or on its way (reserved).
 */
export function listenWatch(ctx: ServerContext, sink: ChangeSink): ListenWatch {
  const watcher = new ResourceWatcher(sink, ctx, undefined);
  const uris = new Map<string, number>();
  let listing = 0;
  let holders = 0; // open streams and reserved slots
  const leave = () => {
    if (--holders === 0) watcher.stop();
  };
  const open = (filter: ListenFilter): (() => void) => {
    const mine = [...new Set(filter.resourceSubscriptions ?? [])];
    const lists = filter.resourcesListChanged === true;
    if (lists) watcher.listed = ++listing > 0;
    for (const uri of mine) {
      uris.set(uri, (uris.get(uri) ?? 0) + 1);
      // A message URI is looked up first: if every stream asking for it closed meanwhile, it is dropped again.
      if (uris.get(uri) === 1) void watcher.subscribe(uri).then(() => uris.has(uri) || watcher.subscribed.delete(uri));
    }
    return () => {
      if (lists) watcher.listed = --listing > 0;
      for (const uri of mine) {
        const left = uris.get(uri)! - 1;
        if (left > 0) {
          uris.set(uri, left);
        } else {
          uris.delete(uri);
          watcher.subscribed.delete(uri);
        }
      }
    };
  };
  return {
    async reserve() {
      holders++;
      await watcher.watch();
      let state: 'reserved' | 'open' | 'done' = 'reserved';
      return {
        add(filter) {
          if (state !== 'reserved') return () => {};
          state = 'open';
          const close = open(filter);
          return () => {
            if (state !== 'open') return;
            state = 'done';
            close();
            leave();
          };
        },
        release() {
          if (state !== 'reserved') return;
          state = 'done';
          leave();
        },
      };
    },
  };
}
