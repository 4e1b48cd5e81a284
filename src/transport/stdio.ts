/** One MCP server over stdio: stdout carries only JSON-RPC, logs go elsewhere (stderr). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LineTransport } from './line-transport';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';

export interface StdioServeOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Stop on SIGINT / SIGTERM too (default true). */
  handleSignals?: boolean;
  /** When stdin ends, how long requests still being answered may take before the session closes (default 30 s). */
  drainMs?: number;
}

export interface StdioHandle {
  /** Resolves when the session ends: stdin ended, a signal arrived, or `close()` was called. */
  readonly closed: Promise<'stdin-end' | 'signal' | 'closed'>;
  close(): Promise<void>;
}

export async function serveStdio(server: McpServer, opts: StdioServeOptions = {}): Promise<StdioHandle> {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const transport = new LineTransport(stdin, stdout);

  let finish!: (why: 'stdin-end' | 'signal' | 'closed') => void;
  const closed = new Promise<'stdin-end' | 'signal' | 'closed'>((resolve) => (finish = resolve));
  let closing: Promise<void> | undefined;

  // Requests received and not yet answered (or cancelled). Tool calls answer asynchronously (the archive runs in
  // the engine worker), so a client that writes its requests and closes stdin still gets every answer.
  const pending = new Set<string | number>();
  let drained: (() => void) | undefined;
  const settle = (id: string | number | undefined) => {
    if (id === undefined || !pending.delete(id)) return;
    if (pending.size === 0) drained?.();
  };
  const drain = (ms: number) =>
    pending.size === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });

  const shutdown = (why: 'stdin-end' | 'signal' | 'closed'): Promise<void> => {
    // Assigned before any close work runs: closing the server re-enters here through transport.onclose.
    closing ??= (async () => {
      await Promise.resolve();
      if (why === 'stdin-end') await drain(opts.drainMs ?? 30_000);
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await server.close().catch(() => {});
      // The SDK transport only pauses stdin; make sure nothing keeps the process alive.
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
  transport.onclose = () => void shutdown('closed');

  await server.connect(transport);
  const onmessage = transport.onmessage;
  transport.onmessage = (msg: JSONRPCMessage) => {
    const m = msg as { id?: string | number; method?: string; params?: { requestId?: string | number } };
    if (m.method !== undefined && m.id !== undefined) pending.add(m.id);
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
  return { closed, close: () => shutdown('closed') };
}
