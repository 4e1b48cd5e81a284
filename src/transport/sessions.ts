/**
 * Registry of live MCP sessions on the HTTP transport: one McpServer + one transport per session,
 * activity tracking, idle eviction and orderly shutdown.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface Session {
  readonly id: string;
  readonly server: McpServer;
  readonly transport: StreamableHTTPServerTransport;
  /** HTTP requests of this session still open (an SSE GET stays open for the session's life). */
  active: number;
  lastSeen: number;
  closing?: Promise<void>;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private readonly onClosed: (id: string) => void;

  constructor(onClosed: (id: string) => void = () => {}) {
    this.onClosed = onClosed;
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  add(session: Session): void {
    this.sessions.set(session.id, session);
  }

  /** Marks one request of the session as started; returns the function that marks it finished. */
  track(session: Session, now = Date.now()): () => void {
    session.active++;
    session.lastSeen = now;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      session.active--;
      session.lastSeen = Date.now();
    };
  }

  /** Removes the session and closes its transport and server (idempotent). */
  close(id: string): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return Promise.resolve();
    if (!s.closing) {
      this.sessions.delete(id);
      s.closing = (async () => {
        // Closing the server closes its transport (and any open SSE streams).
        await s.server.close().catch(() => {});
        await s.transport.close().catch(() => {});
        this.onClosed(id);
      })();
    }
    return s.closing;
  }

  /** Forgets a session whose transport already closed itself. */
  forget(id: string): void {
    if (this.sessions.delete(id)) this.onClosed(id);
  }

  /** Sessions with no open request that were last seen before `cutoff`. */
  idleSince(cutoff: number): Session[] {
    return [...this.sessions.values()].filter((s) => s.active === 0 && s.lastSeen < cutoff);
  }

  /** The least recently used session without open requests, if any. */
  leastRecentlyUsedIdle(): Session | undefined {
    let best: Session | undefined;
    for (const s of this.sessions.values()) {
      if (s.active === 0 && (!best || s.lastSeen < best.lastSeen)) best = s;
    }
    return best;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }
}
