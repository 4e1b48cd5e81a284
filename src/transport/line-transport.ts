// MCP over stdio, one JSON-RPC message per line. Unlike the SDK's stdio transport (which closed the session silently),
// what cannot be read is answered and the session goes on; a line too long is skipped, answered to the id it starts with.
import type { Readable, Writable } from 'node:stream';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import type { Transport, JSONRPCMessage } from '@modelcontextprotocol/server';

/** The SDK client's own read limit. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** A request id in the first bytes of a line, for answering a line too long to parse. */
function idIn(head: string): string | number | null {
  const m = /"id"\s*:\s*(-?\d{1,15}(?![\d.eE])|"(?:[^"\\]|\\.){0,200}")/.exec(head);
  if (!m) return null;
  try {
    return JSON.parse(m[1]) as string | number;
  } catch {
    return null;
  }
}

function idOf(json: unknown): string | number | null {
  const id = (json as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  /** The start of the line being read: its id, should it prove too long. */
  private head = '';
  private skipping = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.ondata);
    this.stdin.on('error', this.onStdinError);
  }

  private readonly onStdinError = (e: Error) => this.onerror?.(e);

  private readonly ondata = (chunk: Buffer | string) => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let at = 0; at < buf.length; ) {
      const nl = buf.indexOf(10, at);
      this.take(buf.subarray(at, nl < 0 ? buf.length : nl));
      if (nl < 0) break;
      this.endLine();
      at = nl + 1;
    }
  };

  private take(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    if (this.size === 0) this.head = part.subarray(0, 512).toString('utf8');
    if (this.size + part.length > MAX_LINE_BYTES) {
      this.chunks = [];
      this.size = 0;
      this.skipping = true;
      return;
    }
    this.chunks.push(part);
    this.size += part.length;
  }

  private endLine(): void {
    if (this.skipping) {
      this.skipping = false;
      this.reply(
        idIn(this.head),
        -32600,
        `Invalid Request: the message is longer than ${MAX_LINE_BYTES} bytes (10 MiB), the most one line may carry; it was not read. Send smaller arguments`,
      );
      return;
    }
    const line = Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.reply(null, -32700, 'Parse error: the line is not JSON. Send one JSON-RPC 2.0 message per line');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.reply(
        idOf(json),
        -32600,
        'Invalid Request: not a JSON-RPC 2.0 message (it needs "jsonrpc": "2.0" and a method, or the result or error of a request)',
      );
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private reply(id: string | number | null, code: number, message: string): void {
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((e: unknown) =>
      this.onerror?.(e as Error),
    );
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.ondata);
    this.stdin.off('error', this.onStdinError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.onclose?.();
  }
}
