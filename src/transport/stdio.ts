/** One MCP server over stdio: stdout carries only JSON-RPC, logs go elsewhere (stderr). */
import type { Readable, Writable } from 'node:stream';
import { type JSONRPCMessage, type McpServer, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import { serveStdio as serveEras } from '@modelcontextprotocol/server/stdio';
import { LineTransport } from './line-transport';
import { type ListenFilter, type ListenSlot, type ListenWatch, listenRequestId } from './listen-streams';

type Ending = 'stdin-end' | 'signal' | 'closed';

export interface StdioServeOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Stop on SIGINT / SIGTERM too (default true). */
  handleSignals?: boolean;
  /** Told which 2026-07-28 `subscriptions/listen` streams are open and what each asked for; it publishes through the
   * server, whose change notifications the SDK's entry routes onto those streams. */
  listens?: ListenWatch;
}

export interface StdioHandle {
  /** Resolves when the session ends: stdin ended, a signal arrived, or `close()` was called. */
  readonly closed: Promise<Ending>;
  close(): Promise<void>;
}

/** How long the requests still being answered when stdin ends may take. */
const DRAIN_MS = 30_000;

/** Tracks unanswered requests, so a client that closes stdin after writing still gets every answer (at most `ms`). */
function trackPending(transport: LineTransport): (ms: number) => Promise<void> {
  const pending = new Set<string | number>();
  let drained: (() => void) | undefined;
  const settle = (id: string | number | undefined) => {
    if (id !== undefined && pending.delete(id) && pending.size === 0) drained?.();
  };
  const onmessage = transport.onmessage;
  transport.onmessage = (msg: JSONRPCMessage) => {
    const m = msg as { id?: string | number; method?: string; params?: { requestId?: string | number } };
    // A listen stream is answered only when it ends: not a request the drain waits for.
    if (m.method !== undefined && m.id !== undefined && m.method !== 'subscriptions/listen') pending.add(m.id);
    else if (m.method === 'notifications/cancelled') settle(m.params?.requestId);
    onmessage?.(msg);
  };
  const send = transport.send.bind(transport);
  transport.send = async (msg: JSONRPCMessage) => {
    const m = msg as { id?: string | number; method?: string };
    try {
      return await send(msg);
    } finally {
      if (m.method === undefined) settle(m.id);
    }
  };
  return (ms) =>
    pending.size === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
}

/**
 * Tells the listen watch which streams are open: a listen request waits for its slot (changes are noticed from then
 * on), then goes to the SDK; its stream counts from the SDK's acknowledgement (with the filter it honoured) until it
 * is cancelled, answered or the connection ends. A refused listen gives its slot back. Returns what ends them all.
 */
function watchListens(transport: LineTransport, listens: ListenWatch): () => void {
  /** Listen requests waiting for their slot; a cancel meanwhile drops them. */
  const held = new Set<{ id: string | number; dropped: boolean }>();
  /** Forwarded to the SDK: waiting for its answer (`end` unset) or open. */
  const streams = new Map<string | number, { slot: ListenSlot; end?: () => void }>();
  let ended = false;
  const finish = (id: string | number) => {
    const s = streams.get(id);
    streams.delete(id);
    if (s) (s.end ?? s.slot.release)();
  };
  const onmessage = transport.onmessage;
  transport.onmessage = (msg: JSONRPCMessage) => {
    const m = msg as { method?: string; params?: { requestId?: string | number } };
    const cancelled = m.method === 'notifications/cancelled' ? m.params?.requestId : undefined;
    if (cancelled !== undefined) {
      for (const h of held) if (h.id === cancelled) h.dropped = true;
      finish(cancelled);
    }
    const id = listenRequestId(msg);
    if (id === undefined) return onmessage?.(msg);
    const h = { id, dropped: false };
    held.add(h);
    const forward = (slot?: ListenSlot) => {
      held.delete(h);
      if (h.dropped || ended) return slot?.release();
      finish(id); // the same id again: the SDK replaces that stream
      if (slot) streams.set(id, { slot });
      onmessage?.(msg);
    };
    void listens.reserve().then(forward, () => forward());
  };
  const send = transport.send.bind(transport);
  transport.send = (msg: JSONRPCMessage, ...rest) => {
    const m = msg as {
      id?: string | number;
      method?: string;
      params?: { notifications?: ListenFilter; _meta?: Record<string, unknown> };
    };
    const acked =
      m.method === 'notifications/subscriptions/acknowledged' ? m.params?._meta?.[SUBSCRIPTION_ID_META_KEY] : undefined;
    const stream = typeof acked === 'string' || typeof acked === 'number' ? streams.get(acked) : undefined;
    if (stream && !stream.end) stream.end = stream.slot.add(m.params?.notifications ?? {});
    else if (m.method === undefined && m.id !== undefined) finish(m.id); // its answer (an error, or the end) ends it
    return send(msg, ...rest);
  };
  return () => {
    ended = true;
    for (const h of held) h.dropped = true;
    for (const id of [...streams.keys()]) finish(id);
  };
}

export async function serveStdio(server: McpServer, opts: StdioServeOptions = {}): Promise<StdioHandle> {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const transport = new LineTransport(stdin, stdout);
  let finish!: (why: Ending) => void;
  const closed = new Promise<Ending>((resolve) => (finish = resolve));
  let closing: Promise<void> | undefined;
  let drain = (_ms: number) => Promise.resolve();
  let entry: { close(): Promise<void> } | undefined;
  let endListens = () => {};

  const shutdown = (why: Ending): Promise<void> => {
    // Assigned before any close work runs: closing the server re-enters here through transport.onclose.
    closing ??= (async () => {
      await Promise.resolve();
      if (why === 'stdin-end') await drain(DRAIN_MS);
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      endListens();
      await entry?.close().catch(() => {});
      // The transport only pauses stdin; nothing may keep the process alive.
      if (stdin === process.stdin) stdin.destroy();
      finish(why);
    })();
    return closing;
  };
  const onEnd = () => void shutdown('stdin-end');
  const onSignal = () => void shutdown('signal');

  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  if (opts.handleSignals ?? true) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  // An EPIPE on stdout means the client is gone: end quietly instead of crashing.
  stdout.on('error', () => void shutdown('stdin-end'));
  // The SDK's entry serves both protocol eras on this one connection: a 2025-era `initialize` (VS Code, most clients)
  // or a 2026-07-28 request with its `_meta` envelope; it owns the transport's callbacks, so ours wrap them.
  entry = serveEras(() => server, { transport, onerror: () => {} });
  const entryClose = transport.onclose;
  transport.onclose = () => {
    entryClose?.();
    void shutdown('closed');
  };
  if (opts.listens) endListens = watchListens(transport, opts.listens);
  drain = trackPending(transport);
  return { closed, close: () => shutdown('closed') };
}
