/** One MCP server over stdio: stdout carries only JSON-RPC, logs go elsewhere (stderr). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';

export interface StdioServeOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Stop on SIGINT / SIGTERM too (default true). */
  handleSignals?: boolean;
}

export interface StdioHandle {
  /** Resolves when the session ends: stdin ended, a signal arrived, or `close()` was called. */
  readonly closed: Promise<'stdin-end' | 'signal' | 'closed'>;
  close(): Promise<void>;
}

export async function serveStdio(server: McpServer, opts: StdioServeOptions = {}): Promise<StdioHandle> {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const transport = new StdioServerTransport(stdin, stdout);

  let finish!: (why: 'stdin-end' | 'signal' | 'closed') => void;
  const closed = new Promise<'stdin-end' | 'signal' | 'closed'>((resolve) => (finish = resolve));
  let closing: Promise<void> | undefined;

  const shutdown = (why: 'stdin-end' | 'signal' | 'closed'): Promise<void> => {
    // Assigned before any close work runs: closing the server re-enters here through transport.onclose.
    closing ??= (async () => {
      await Promise.resolve();
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
  return { closed, close: () => shutdown('closed') };
}
